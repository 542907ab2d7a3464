package io.sextant.tc.protocol;

import java.util.List;

import com.google.gson.annotations.SerializedName;

/** TSP {@code Experiment}: its traces merged (time range, event count, indexing status). */
public record Experiment(@SerializedName("UUID") String uuid, String name, long start, long end, long nbEvents,
        String indexingStatus, String statusMessage, List<Trace> traces) {

    public boolean isIndexed() {
        return "COMPLETED".equals(indexingStatus);
    }

    public boolean isIndexing() {
        return "RUNNING".equals(indexingStatus);
    }
}
