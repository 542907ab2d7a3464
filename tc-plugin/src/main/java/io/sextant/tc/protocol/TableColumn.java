package io.sextant.tc.protocol;

/** A column of a TSP table; {@code type} e.g. NUMBER, TIMESTAMP, DURATION, STRING. */
public record TableColumn(long id, String name, String description, String type) {
}
