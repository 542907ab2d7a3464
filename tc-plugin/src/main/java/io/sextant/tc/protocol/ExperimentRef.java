package io.sextant.tc.protocol;

/** Params naming an experiment by its route id. */
public record ExperimentRef(String expUUID) {
}
