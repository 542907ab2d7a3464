package io.sextant.tc.protocol;

import java.util.List;

/** {@code tsp/experiments/create} params: {@code {parameters: {name, traces: [trace UUID]}}}. */
public record CreateExperiment(Parameters parameters, String workDoneToken) {

    public record Parameters(String name, List<String> traces) {
    }

    public static CreateExperiment of(String name, List<String> traceUuids, String workDoneToken) {
        return new CreateExperiment(new Parameters(name, traceUuids), workDoneToken);
    }
}
