package io.sextant.tc.ui;

import org.eclipse.tracecompass.internal.provisional.tmf.core.model.table.VirtualTableLine;
import org.eclipse.tracecompass.tmf.core.signal.TmfSelectionRangeUpdatedSignal;
import org.eclipse.tracecompass.tmf.core.timestamp.TmfTimestamp;

/**
 * sextant's executions table: one line per execution of the trace's model,
 * with its range and its times running, preempted, blocked and waiting;
 * selecting an execution selects its range in every view.
 */
public final class ExecutionsTableView extends SextantTableView {

    public static final String ID = "io.sextant.tc.ui.executions";

    public ExecutionsTableView() {
        super(ID, SextantOutput.EXECUTIONS, "the executions");
    }

    @Override
    protected void lineSelected(VirtualTableLine line) {
        int start = columnNamed("Start");
        int end = columnNamed("End");
        if (trace() == null || start < 0 || end < 0) {
            return;
        }
        try {
            broadcast(new TmfSelectionRangeUpdatedSignal(this, TmfTimestamp.fromNanos(Long.parseLong(cell(line,
                    start))), TmfTimestamp.fromNanos(Long.parseLong(cell(line, end))), trace()));
        } catch (NumberFormatException notATime) {
            // A line without times selects nothing.
        }
    }
}
