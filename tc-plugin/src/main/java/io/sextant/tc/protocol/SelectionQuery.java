package io.sextant.tc.protocol;

/** {@code sextant/getSelection} params. */
public record SelectionQuery(String experimentUUID) {
}
