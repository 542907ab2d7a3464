package io.sextant.tc.ui;

import java.util.List;
import java.util.Optional;

import org.eclipse.jface.action.Action;
import org.eclipse.jface.action.IToolBarManager;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.tracecompass.tmf.core.signal.TmfSelectionRangeUpdatedSignal;
import org.eclipse.tracecompass.tmf.core.signal.TmfSignalManager;
import org.eclipse.tracecompass.tmf.core.signal.TmfWindowRangeUpdatedSignal;
import org.eclipse.tracecompass.tmf.core.timestamp.TmfTimestamp;
import org.eclipse.tracecompass.tmf.core.trace.ITmfTrace;
import org.eclipse.tracecompass.tmf.ui.TmfUiRefreshHandler;
import org.eclipse.tracecompass.tmf.ui.widgets.timegraph.model.TimeGraphEntry;

/**
 * The executions of the trace's execution model superposed from their start
 * (sextant's GANTT_CHART), longest first. Selecting one selects its range in
 * every other view (Control Flow, Resources, and sextant's other clients);
 * the toolbar defines a model, discovers one from the selected thread and
 * explains the selected execution.
 */
public final class ComparisonView extends SextantTimeGraphView {

    public static final String ID = "io.sextant.tc.ui.comparison";

    /** The key of the zoom in Trace Compass's refresh queue (the view's own key is its refresh). */
    private final Object zoomKey = new Object();

    public ComparisonView() {
        super(ID, SextantOutput.COMPARISON);
    }

    @Override
    public void createPartControl(Composite parent) {
        super.createPartControl(parent);
        getTimeGraphViewer().addSelectionListener(e -> selected().ifPresent(this::select));
    }

    /** The selected execution, if a row is selected. */
    public Optional<ExecutionEntryModel> selected() {
        if (getTimeGraphViewer().getSelection() instanceof TimeGraphEntry entry
                && entry.getEntryModel() instanceof ExecutionEntryModel x) {
            return Optional.of(x);
        }
        return Optional.empty();
    }

    private void select(ExecutionEntryModel x) {
        ITmfTrace trace = getTrace();
        if (trace != null) {
            TmfSignalManager.dispatchSignal(new TmfSelectionRangeUpdatedSignal(this,
                    TmfTimestamp.fromNanos(x.absoluteStart()), TmfTimestamp.fromNanos(x.absoluteEnd()), trace));
        }
    }

    /** Shows the longest execution whole: the rows' scale runs from 0 to the longest duration. */
    @Override
    protected void refresh() {
        super.refresh();
        // Queued after the refresh super queued, which sets the trace's window.
        TmfUiRefreshHandler.getInstance().queueUpdate(zoomKey, this::zoomToLongest);
    }

    private void zoomToLongest() {
        ITmfTrace trace = getTrace();
        if (trace == null || getTimeGraphViewer().getControl().isDisposed()) {
            return;
        }
        List<TimeGraphEntry> rows = getEntryList(trace);
        if (rows == null || rows.isEmpty()) {
            return;
        }
        long start = trace.getStartTime().toNanos();
        long end = rows.stream().mapToLong(TimeGraphEntry::getEndTime).max().orElse(start);
        if (end > start) {
            getTimeGraphViewer().setStartFinishTime(start, start + (end - start) * 21 / 20);
        }
    }

    // Rows are on a time scale relative to each execution's start: the trace's selection and
    // window (absolute times) do not apply here, so these handlers are overridden without
    // @TmfSignalHandler and the signals do not reach this view.

    @Override
    public void selectionRangeUpdated(TmfSelectionRangeUpdatedSignal signal) {
        // Not followed: see above.
    }

    @Override
    public void windowRangeUpdated(TmfWindowRangeUpdatedSignal signal) {
        // Not followed: see above.
    }

    @Override
    protected void fillLocalToolBar(IToolBarManager manager) {
        manager.add(new Action("Define execution model...") {
            @Override
            public void run() {
                ModelActions.define(getSite().getShell(), getTrace(), null);
            }
        });
        manager.add(new Action("Discover a model from the selected thread...") {
            @Override
            public void run() {
                ModelActions.discover(getSite().getShell(), getTrace(), selected().map(ExecutionEntryModel::tid));
            }
        });
        manager.add(new Action("Explain the selected execution") {
            @Override
            public void run() {
                ModelActions.explain(getSite().getShell(), getTrace(), selected());
            }
        });
        super.fillLocalToolBar(manager);
    }
}
