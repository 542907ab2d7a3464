package io.sextant.tc.protocol;

import java.util.concurrent.CompletableFuture;

import org.eclipse.lsp4j.jsonrpc.services.JsonDelegate;
import org.eclipse.lsp4j.jsonrpc.services.JsonNotification;
import org.eclipse.lsp4j.jsonrpc.services.JsonRequest;

import com.google.gson.JsonObject;

/** {@code sextant serve --stdio} as the plugin sees it: the LSP life cycle, time sync and the TSP methods. */
public interface SextantServer extends SyncNotifications {

    @JsonRequest
    CompletableFuture<InitializeResult> initialize(InitializeParams params);

    /** LSP's {@code initialized} carries an empty object. */
    @JsonNotification
    void initialized(JsonObject params);

    @JsonRequest
    CompletableFuture<Void> shutdown();

    @JsonNotification
    void exit();

    /** The experiment's current selection and window, as the server keeps them for all clients. */
    @JsonRequest("sextant/getSelection")
    CompletableFuture<CurrentRanges> getSelection(SelectionQuery query);

    @JsonDelegate
    TspService tsp();
}
