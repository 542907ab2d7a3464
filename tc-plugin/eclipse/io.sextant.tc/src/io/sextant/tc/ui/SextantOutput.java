package io.sextant.tc.ui;

import java.util.Optional;
import java.util.function.BiFunction;

import org.eclipse.tracecompass.tmf.core.model.tree.ITmfTreeDataModel;
import org.eclipse.tracecompass.tmf.core.model.tree.ITmfTreeDataProvider;
import org.eclipse.tracecompass.tmf.core.trace.ITmfTrace;

import io.sextant.tc.DerivedOutputs;
import io.sextant.tc.Explanations;
import io.sextant.tc.RealTimeTask;
import io.sextant.tc.Sidecar;
import io.sextant.tc.protocol.OutputDescriptor;

/**
 * The sextant outputs Trace Compass shows, each under a data provider id
 * with the kind of provider its shape calls for, and where the current
 * output of a trace is: the last model or explanation posted for it, or the
 * one sextant offers for every trace.
 */
public enum SextantOutput {

    /** Executions superposed from their start (GANTT_CHART): times relative to each row's start. */
    COMPARISON("io.sextant.tc.comparison", Shape.TIME_GRAPH, true,
            (s, k) -> s.model(k).map(DerivedOutputs::comparison)),
    /** Each execution's duration at its start time (TREE_TIME_XY), with the deadline misses and the mean. */
    TIME_PERSPECTIVE("io.sextant.tc.timePerspective", Shape.XY, false,
            (s, k) -> s.model(k).map(DerivedOutputs::timePerspective)),
    /** One line per execution: its range, its times running, preempted, blocked, waiting (TABLE). */
    EXECUTIONS("io.sextant.tc.executions.table", Shape.TABLE, false,
            (s, k) -> s.model(k).map(DerivedOutputs::table)),
    /**
     * The real-time tasks sextant finds with no configuration (TABLE): one line per task, with its period,
     * response times, misses and a model of its jobs. Every experiment has it, no model needed.
     */
    TASKS("io.sextant.tc.tasks", Shape.TABLE, false, (s, k) -> s.experiment(k).map(exp -> new OutputDescriptor(
            RealTimeTask.TABLE, "Real-time tasks", null, "TABLE", null, null, null))),
    /** Each real-time task's jobs: response time at release, a series per task (TREE_TIME_XY), no model needed. */
    TASK_RESPONSE("io.sextant.tc.tasks.response", Shape.XY, false, (s, k) -> s.experiment(k).map(exp ->
            new OutputDescriptor(RealTimeTask.RESPONSE, "Real-time tasks: response time", null, "TREE_TIME_XY",
                    null, null, null))),
    CRITICAL_PATH("io.sextant.tc.criticalPath", Shape.TIME_GRAPH, false,
            (s, k) -> s.explanation(k).map(Explanations.Outputs::criticalPath)),
    COMPLEMENT("io.sextant.tc.complement", Shape.TIME_GRAPH, false,
            (s, k) -> s.explanation(k).map(Explanations.Outputs::complement)),
    FACILITIES("io.sextant.tc.facilities", Shape.TIME_GRAPH, false,
            (s, k) -> s.explanation(k).map(Explanations.Outputs::facilities));

    /** TSP's output types the plugin maps, each to its Trace Compass provider. */
    enum Shape {
        TIME_GRAPH, XY, TABLE
    }

    private final String providerId;
    private final Shape shape;
    private final boolean relative;
    private final BiFunction<Sidecar, String, Optional<OutputDescriptor>> find;

    SextantOutput(String providerId, Shape shape, boolean relative,
            BiFunction<Sidecar, String, Optional<OutputDescriptor>> find) {
        this.providerId = providerId;
        this.shape = shape;
        this.relative = relative;
        this.find = find;
    }

    public String providerId() {
        return providerId;
    }

    /** Whether sextant's times start at 0 for each row (a time axis of durations, not of the trace). */
    public boolean relative() {
        return relative;
    }

    public Optional<OutputDescriptor> current(Sidecar sidecar, String key) {
        return find.apply(sidecar, key);
    }

    /** This output's data provider for {@code trace}. */
    ITmfTreeDataProvider<? extends ITmfTreeDataModel> provider(ITmfTrace trace, Sidecar sidecar) {
        return switch (shape) {
            case TIME_GRAPH -> new TspTimeGraphProvider(trace, this, sidecar);
            case XY -> new TspXyProvider(trace, this, sidecar);
            case TABLE -> new TspTableProvider(trace, this, sidecar);
        };
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
