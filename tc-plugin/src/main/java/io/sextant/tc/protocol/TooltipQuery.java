package io.sextant.tc.protocol;

import java.util.List;

import com.google.gson.annotations.SerializedName;

/**
 * {@code tsp/timeGraph/tooltip} params: the entry and the time under the
 * pointer, and the element there (a state, with its start and duration).
 */
public record TooltipQuery(String expUUID, String outputId, Parameters parameters) {

    public record Parameters(@SerializedName("requested_times") List<Long> times,
            @SerializedName("requested_items") List<Long> items,
            @SerializedName("requested_element") Element element) {
    }

    /** {@code elementType} STATE, ANNOTATION or ARROW. */
    public record Element(String elementType, long time, long duration) {
    }

    /** The tooltip of the state of entry {@code item} that holds {@code time} and lasts [start, start + duration]. */
    public static TooltipQuery state(String exp, String output, long item, long time, long start, long duration) {
        return new TooltipQuery(exp, output,
                new Parameters(List.of(time), List.of(item), new Element("STATE", start, duration)));
    }
}
