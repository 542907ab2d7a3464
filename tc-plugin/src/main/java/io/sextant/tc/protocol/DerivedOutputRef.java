package io.sextant.tc.protocol;

/** Params naming an output derived from a configuration, under its parent output. */
public record DerivedOutputRef(String expUUID, String outputId, String derivedOutputId) {
}
