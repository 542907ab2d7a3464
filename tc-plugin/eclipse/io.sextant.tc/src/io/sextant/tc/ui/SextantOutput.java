package io.sextant.tc.ui;

import java.util.Optional;
import java.util.function.BiFunction;

import io.sextant.tc.DerivedOutputs;
import io.sextant.tc.Explanations;
import io.sextant.tc.Sidecar;
import io.sextant.tc.protocol.OutputDescriptor;

/**
 * The sextant outputs shown as Trace Compass time graphs, each under a data
 * provider id, and where the current output of a trace is: the last model or
 * explanation posted for it.
 */
public enum SextantOutput {

    /** Executions superposed from their start (GANTT_CHART): times are relative, shown from the trace's start. */
    COMPARISON("io.sextant.tc.comparison", true, (s, k) -> s.model(k).map(DerivedOutputs::comparison)),
    CRITICAL_PATH("io.sextant.tc.criticalPath", false,
            (s, k) -> s.explanation(k).map(Explanations.Outputs::criticalPath)),
    COMPLEMENT("io.sextant.tc.complement", false, (s, k) -> s.explanation(k).map(Explanations.Outputs::complement)),
    FACILITIES("io.sextant.tc.facilities", false, (s, k) -> s.explanation(k).map(Explanations.Outputs::facilities));

    private final String providerId;
    private final boolean relative;
    private final BiFunction<Sidecar, String, Optional<OutputDescriptor>> find;

    SextantOutput(String providerId, boolean relative, BiFunction<Sidecar, String, Optional<OutputDescriptor>> find) {
        this.providerId = providerId;
        this.relative = relative;
        this.find = find;
    }

    public String providerId() {
        return providerId;
    }

    /** Whether sextant's times start at 0 for each row (shown shifted to the trace's start). */
    public boolean relative() {
        return relative;
    }

    public Optional<OutputDescriptor> current(Sidecar sidecar, String key) {
        return find.apply(sidecar, key);
    }

    public static SextantOutput ofProviderId(String id) {
        for (SextantOutput o : values()) {
            if (o.providerId.equals(id)) {
                return o;
            }
        }
        throw new IllegalArgumentException("no sextant output has the data provider id " + id);
    }
}
