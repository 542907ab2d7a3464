package io.sextant.tc.protocol;

import java.util.List;

import com.google.gson.JsonObject;

/** XY series (the Time Perspective: start time against duration, as a scatter). */
public record XyModel(String title, List<Series> series) {

    public record Series(long seriesId, String seriesName, List<Long> xValues, List<Double> yValues,
            Style style) {
    }

    public record Style(JsonObject values) {
    }
}
