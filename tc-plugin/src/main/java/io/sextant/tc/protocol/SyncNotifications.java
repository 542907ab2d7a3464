package io.sextant.tc.protocol;

import org.eclipse.lsp4j.jsonrpc.services.JsonNotification;

/** The time-synchronisation notifications, which travel in both directions. */
public interface SyncNotifications {

    @JsonNotification("sextant/selectionChanged")
    void selectionChanged(TimeRange range);

    @JsonNotification("sextant/windowChanged")
    void windowChanged(TimeRange range);
}
