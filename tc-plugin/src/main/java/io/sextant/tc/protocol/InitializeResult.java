package io.sextant.tc.protocol;

import java.util.List;

import com.google.gson.JsonElement;

/** {@code initialize} result: sextant's protocol description under LSP's {@code capabilities.experimental}. */
public record InitializeResult(Capabilities capabilities, ServerInfo serverInfo) {

    public record Capabilities(Experimental experimental) {
    }

    /**
     * What the server speaks. Output and configuration types are kept as JSON:
     * the plugin only lists them.
     */
    public record Experimental(String protocolVersion, List<String> methods, List<JsonElement> outputTypes,
            List<JsonElement> configTypes) {
    }

    public record ServerInfo(String name, String version) {
    }
}
