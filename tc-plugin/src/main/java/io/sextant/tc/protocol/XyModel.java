package io.sextant.tc.protocol;

import java.util.List;

import com.google.gson.JsonObject;

/** XY series (the Time Perspective: start time against duration, as a scatter). */
public record XyModel(String title, List<Series> series) {

    /** A series with its own x values; the descriptions name each axis's unit and type (TIMESTAMP, DURATION...). */
    public record Series(long seriesId, String seriesName, List<Long> xValues, List<Double> yValues,
            Style style, Axis xValuesDescription, Axis yValuesDescription) {
    }

    public record Style(JsonObject values) {
    }

    public record Axis(String label, String unit, String dataType) {
    }
}
