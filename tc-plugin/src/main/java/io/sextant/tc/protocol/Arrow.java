package io.sextant.tc.protocol;

/**
 * A time-graph arrow between two entries of the output's tree (the critical
 * path's wake-ups): from {@code sourceId} at {@code start} to
 * {@code targetId} at {@code end}.
 */
public record Arrow(long sourceId, long targetId, long start, long end, StatesModel.Style style) {
}
