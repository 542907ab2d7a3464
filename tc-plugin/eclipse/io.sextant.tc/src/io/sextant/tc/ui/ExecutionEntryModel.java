package io.sextant.tc.ui;

import java.util.List;

import org.eclipse.tracecompass.tmf.core.model.timegraph.TimeGraphEntryModel;

/** A Comparison View row: one execution, with its thread and absolute range for selecting and explaining it. */
public final class ExecutionEntryModel extends TimeGraphEntryModel {

    private final long tid;
    private final long absoluteStart;
    private final long absoluteEnd;

    ExecutionEntryModel(long id, List<String> labels, long start, long end, long tid, long absoluteStart,
            long absoluteEnd) {
        super(id, -1, labels, start, end, true);
        this.tid = tid;
        this.absoluteStart = absoluteStart;
        this.absoluteEnd = absoluteEnd;
    }

    public long tid() {
        return tid;
    }

    public long absoluteStart() {
        return absoluteStart;
    }

    public long absoluteEnd() {
        return absoluteEnd;
    }
}
