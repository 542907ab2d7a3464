package io.sextant.tc.protocol;

/**
 * {@code sextant/selectionChanged} and {@code sextant/windowChanged} params,
 * and the members of the {@code sextant/getSelection} result: a range in
 * ns on one experiment ({@code start <= end}), and who set it.
 */
public record TimeRange(String experimentUUID, long start, long end, String source) {

    /** Same experiment and times, whoever set them. */
    public boolean sameSpan(TimeRange other) {
        return other != null && start == other.start && end == other.end
                && experimentUUID.equals(other.experimentUUID);
    }
}
