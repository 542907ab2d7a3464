package io.sextant.tc.protocol;

import java.util.List;

/** Entries of a time graph, Gantt chart or XY tree, with their column headers. */
public record TreeModel(List<Header> headers, List<Entry> entries) {

    public record Header(String name, String tooltip, String dataType) {
    }

    /**
     * A row; {@code parentId} -1 at the top. {@code start}/{@code end} are
     * absent on XY entries; {@code isDefault} XY entries are shown first.
     */
    public record Entry(long id, long parentId, List<String> labels, Boolean hasData, Boolean isDefault, Long start,
            Long end) {

        public String label() {
            return labels == null || labels.isEmpty() ? "" : labels.get(0);
        }
    }
}
