package io.sextant.tc.protocol;

import com.google.gson.JsonObject;

/**
 * TSP output descriptor. {@code type} is one of TABLE, TREE_TIME_XY, TIME_GRAPH,
 * DATA_TREE, NONE, GANTT_CHART, TREE_GENERIC_XY; {@code configuration} is set
 * on outputs derived from a configuration (an execution model).
 */
public record OutputDescriptor(String id, String name, String description, String type, String parentId,
        JsonObject configuration, Capabilities capabilities) {

    public record Capabilities(Boolean canCreate, Boolean canDelete) {
    }

    /** The id of the configuration this output was derived from, or null. */
    public String configurationId() {
        if (configuration == null || !configuration.has("id")) {
            return null;
        }
        return configuration.get("id").getAsString();
    }
}
