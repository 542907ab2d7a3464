package io.sextant.tc.protocol;

/** {@code sextant/getSelection} result: the experiment's current selection and window, each null until set. */
public record CurrentRanges(String experimentUUID, TimeRange selection, TimeRange window) {
}
