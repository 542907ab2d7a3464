package io.sextant.tc.ui;

import java.util.List;

import org.eclipse.tracecompass.segmentstore.core.segment.interfaces.INamedSegment;

/** One execution as a Trace Compass segment: its range, its thread's name, and the table's other cells. */
public final class ExecutionSegment implements INamedSegment {

    private static final long serialVersionUID = 1L;

    private final long start;
    private final long end;
    private final String name;
    private final List<String> cells;

    ExecutionSegment(long start, long end, String name, List<String> cells) {
        this.start = start;
        this.end = end;
        this.name = name;
        this.cells = List.copyOf(cells);
    }

    @Override
    public long getStart() {
        return start;
    }

    @Override
    public long getEnd() {
        return end;
    }

    @Override
    public String getName() {
        return name;
    }

    /** The executions table's cell in column {@code column}. */
    public String cell(int column) {
        return column < cells.size() ? cells.get(column) : "";
    }
}
