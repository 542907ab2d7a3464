package io.sextant.tc.ui;

import java.util.List;
import java.util.Optional;

import org.eclipse.jface.action.Action;
import org.eclipse.jface.action.IToolBarManager;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.tracecompass.tmf.core.signal.TmfSelectionRangeUpdatedSignal;
import org.eclipse.tracecompass.tmf.core.signal.TmfSignal;
import org.eclipse.tracecompass.tmf.core.signal.TmfSignalManager;
import org.eclipse.tracecompass.tmf.core.signal.TmfWindowRangeUpdatedSignal;
import org.eclipse.tracecompass.tmf.core.timestamp.TmfTimeRange;
import org.eclipse.tracecompass.tmf.core.timestamp.TmfTimestamp;
import org.eclipse.tracecompass.tmf.core.trace.ITmfTrace;
import org.eclipse.tracecompass.tmf.core.trace.TmfTraceManager;
import org.eclipse.tracecompass.tmf.ui.TmfUiRefreshHandler;
import org.eclipse.tracecompass.tmf.ui.widgets.timegraph.model.TimeGraphEntry;
import org.eclipse.tracecompass.tmf.ui.widgets.timegraph.widgets.Utils.TimeFormat;
import org.eclipse.ui.ISharedImages;
import org.eclipse.ui.PlatformUI;

/**
 * The executions of the trace's execution model superposed from their start
 * (sextant's GANTT_CHART), longest first, on a time axis of durations: each
 * row starts at 0, and the axis reads as time since the execution began.
 * That axis is the view's own: the trace's selection and window do not
 * apply to it, and its zooms and clicks are not sent as the trace's.
 * Selecting a row selects its execution's range in every other view
 * (Control Flow, Resources, and sextant's other clients); the toolbar
 * defines a model, discovers one from the selected thread and explains the
 * selected execution.
 */
public final class ComparisonView extends SextantTimeGraphView {

    public static final String ID = "io.sextant.tc.ui.comparison";

    /** The toolbar's actions, by their text. */
    public static final String DEFINE = "Define execution model...";
    public static final String DISCOVER = "Discover a model from the selected thread...";
    public static final String EXPLAIN = "Explain the selected execution";

    public ComparisonView() {
        super(ID, SextantOutput.COMPARISON);
        setTimeFormat(TimeFormat.RELATIVE);
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

    /** The end of the longest row (0 without rows). */
    private long longest() {
        ITmfTrace trace = getTrace();
        List<TimeGraphEntry> rows = trace == null ? null : getEntryList(trace);
        return rows == null ? 0 : rows.stream().mapToLong(TimeGraphEntry::getEndTime).max().orElse(0);
    }

    /**
     * The bounds are [0, the longest execution and a twentieth], not the
     * trace's; Trace Compass's refresh then puts the trace's window in them,
     * so the whole of the bounds is shown again after it, and zoomed (its
     * own zoom on the trace's window is one on the whole axis: see
     * {@link #createZoomThread}).
     */
    @Override
    protected void refresh() {
        if (Thread.currentThread() instanceof ZoomThread) {
            // A zoom of this view's window finished: draw what it fetched.
            redraw();
            return;
        }
        long longest = longest();
        setStartTime(0);
        setEndTime(Math.max(1, longest + longest / 20));
        super.refresh();
        // Queued behind the refresh just queued (under the view's key). A key of its own each time: a
        // pending reset under a fixed key would keep its earlier place in the queue, before a refresh
        // queued again meanwhile, which would then put the trace's window back.
        TmfUiRefreshHandler.getInstance().queueUpdate(new Object(), this::showAll);
    }

    private void showAll() {
        if (getTimeGraphViewer().getControl().isDisposed()) {
            return;
        }
        getTimeGraphViewer().setStartFinishTime(0, getEndTime());
        startZoomThread(0, getEndTime());
    }

    /**
     * Trace Compass's refresh ends by zooming on the trace's window, in absolute time, clamped to this view's
     * bounds: on this axis of durations that is [end, end], where no row is (all start at 0). That zoom, even
     * cancelled by the whole-axis zoom queued after it ({@link #showAll}), empties the rows' states, and may
     * do so after the whole-axis zoom drew them. So a zoom on the trace's window, clamped as the refresh
     * clamps it, is made on the whole axis instead, at the resolution Trace Compass gives that zoom.
     */
    @Override
    protected ZoomThread createZoomThread(long startTime, long endTime, long resolution, boolean restart) {
        ITmfTrace trace = getTrace();
        if (trace != null && getStartTime() <= getEndTime()) {
            TmfTimeRange window = TmfTraceManager.getInstance().getTraceContext(trace).getWindowRange();
            if (startTime == clamp(window.getStartTime().toNanos())
                    && endTime == clamp(window.getEndTime().toNanos())) {
                int timeSpace = getTimeGraphViewer().getTimeSpace();
                long whole = Math.max(1, (getEndTime() - getStartTime()) / Math.max(1, timeSpace));
                return super.createZoomThread(getStartTime(), getEndTime(), whole, restart);
            }
        }
        return super.createZoomThread(startTime, endTime, resolution, restart);
    }

    /** A time put in the view's bounds, as Trace Compass's refresh does with the trace's window. */
    private long clamp(long time) {
        return Math.min(Math.max(time, getStartTime()), getEndTime());
    }

    /** Time changes made in this view are on its relative axis: they are not the trace's and are not sent. */
    @Override
    public void broadcast(TmfSignal signal) {
        if (!(signal instanceof TmfSelectionRangeUpdatedSignal || signal instanceof TmfWindowRangeUpdatedSignal)) {
            super.broadcast(signal);
        }
    }

    // The trace's selection and window (absolute times) do not apply to the relative axis: these
    // handlers are overridden without @TmfSignalHandler, so the signals do not reach this view.

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
        manager.add(action(DEFINE, ISharedImages.IMG_OBJ_ADD,
                () -> ModelActions.define(getSite().getShell(), getTrace(), null)));
        manager.add(action(DISCOVER, ISharedImages.IMG_TOOL_NEW_WIZARD, () -> ModelActions.discover(
                getSite().getShell(), getTrace(), selected().map(ExecutionEntryModel::tid))));
        manager.add(action(EXPLAIN, ISharedImages.IMG_OBJS_INFO_TSK,
                () -> ModelActions.explain(getSite().getShell(), getTrace(), selected())));
        super.fillLocalToolBar(manager);
    }

    /** A toolbar button with a workbench icon; its text is its tooltip. */
    private static Action action(String text, String image, Runnable run) {
        Action a = new Action(text) {
            @Override
            public void run() {
                run.run();
            }
        };
        a.setToolTipText(text);
        a.setImageDescriptor(PlatformUI.getWorkbench().getSharedImages().getImageDescriptor(image));
        return a;
    }
}
