package io.sextant.tc.protocol;

import org.eclipse.lsp4j.jsonrpc.services.JsonNotification;

/** What the server sends the plugin: progress and the other clients' time changes. */
public interface SextantClient extends SyncNotifications {

    @JsonNotification("$/progress")
    void progress(ProgressParams params);
}
