package io.sextant.tc.protocol;

import java.util.List;

import com.google.gson.JsonObject;

/** Time graph states, one row per requested entry. */
public record StatesModel(List<Row> rows) {

    public record Row(long entryId, List<State> states) {
    }

    /** A state; the style's {@code parentKey} names an entry of the output's style map. */
    public record State(long start, long end, String label, Style style) {
    }

    public record Style(String parentKey, JsonObject values) {
    }
}
