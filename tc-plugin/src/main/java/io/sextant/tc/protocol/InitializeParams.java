package io.sextant.tc.protocol;

import java.util.List;

import com.google.gson.JsonObject;

/**
 * {@code initialize} params, as in LSP. The client declares no capabilities:
 * progress and the sync notifications are sextant's, not negotiated.
 */
public record InitializeParams(Long processId, ClientInfo clientInfo, JsonObject capabilities,
        Options initializationOptions) {

    public record ClientInfo(String name, String version) {
    }

    /** Directories whose traces the client may open, besides the server's working directory. */
    public record Options(List<String> traceRoots) {
    }
}
