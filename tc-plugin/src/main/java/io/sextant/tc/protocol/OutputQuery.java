package io.sextant.tc.protocol;

import java.util.List;

import com.google.gson.annotations.SerializedName;

/** Params of the data requests on one output (tree, states, XY, table). */
public record OutputQuery(String expUUID, String outputId, Parameters parameters) {

    /** The HTTP body's {@code parameters}; absent members are left out. */
    public record Parameters(@SerializedName("requested_timerange") TimeQuery timeRange,
            @SerializedName("requested_items") List<Long> items,
            @SerializedName("requested_table_index") Long tableIndex,
            @SerializedName("requested_table_count") Integer tableCount) {
    }

    /** {@code nbTimes} null asks for full resolution. */
    public record TimeQuery(long start, long end, Integer nbTimes) {
    }

    public static OutputQuery tree(String exp, String output, long start, long end) {
        return new OutputQuery(exp, output, new Parameters(new TimeQuery(start, end, null), null, null, null));
    }

    public static OutputQuery data(String exp, String output, long start, long end, Integer nbTimes,
            List<Long> items) {
        return new OutputQuery(exp, output, new Parameters(new TimeQuery(start, end, nbTimes), items, null, null));
    }

    public static OutputQuery columns(String exp, String output) {
        return new OutputQuery(exp, output, new Parameters(null, null, null, null));
    }

    public static OutputQuery lines(String exp, String output, long index, int count) {
        return new OutputQuery(exp, output, new Parameters(null, null, index, count));
    }
}
