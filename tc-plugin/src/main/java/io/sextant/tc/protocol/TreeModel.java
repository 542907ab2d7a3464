package io.sextant.tc.protocol;

import java.util.List;

import com.google.gson.JsonObject;

/** Entries of a time graph, Gantt chart or XY tree, with their column headers. */
public record TreeModel(List<Header> headers, List<Entry> entries) {

    public record Header(String name, String tooltip, String dataType) {
    }

    /**
     * A row; {@code parentId} -1 at the top. {@code start}/{@code end} are
     * absent on XY entries; {@code isDefault} XY entries are shown first.
     * {@code metadata} holds lists of values by name (a Comparison View row:
     * its execution's absolute {@code start} and its {@code tid}).
     */
    public record Entry(long id, long parentId, List<String> labels, Boolean hasData, Boolean isDefault, Long start,
            Long end, JsonObject metadata) {

        /** The first value of a numeric metadata entry, if there is one. */
        public java.util.OptionalLong metadataLong(String name) {
            if (metadata == null || !metadata.has(name) || !metadata.get(name).isJsonArray()
                    || metadata.getAsJsonArray(name).isEmpty()) {
                return java.util.OptionalLong.empty();
            }
            return java.util.OptionalLong.of(metadata.getAsJsonArray(name).get(0).getAsLong());
        }

        public String label() {
            return labels == null || labels.isEmpty() ? "" : labels.get(0);
        }
    }
}
