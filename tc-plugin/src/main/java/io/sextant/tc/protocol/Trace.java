package io.sextant.tc.protocol;

import com.google.gson.annotations.SerializedName;

/** TSP {@code Trace}: times in ns, {@code indexingStatus} RUNNING, COMPLETED or CLOSED. */
public record Trace(@SerializedName("UUID") String uuid, String name, String path, long start, long end,
        long nbEvents, String indexingStatus, String statusMessage) {
}
