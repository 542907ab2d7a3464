package io.sextant.tc.ui;

import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.tracecompass.internal.provisional.tmf.ui.widgets.timegraph.BaseDataProviderTimeGraphPresentationProvider;
import org.eclipse.tracecompass.tmf.ui.views.timegraph.BaseDataProviderTimeGraphView;
import org.eclipse.tracecompass.tmf.ui.widgets.timegraph.model.TimeGraphEntry;

/**
 * A Trace Compass time-graph view over one sextant output: Trace Compass's
 * own view and presentation (styles from sextant), rebuilt when the trace's
 * output changes (a model posted, an execution explained, sextant restarted).
 */
public abstract class SextantTimeGraphView extends BaseDataProviderTimeGraphView {

    protected SextantTimeGraphView(String viewId, SextantOutput output) {
        super(viewId, new BaseDataProviderTimeGraphPresentationProvider(), output.providerId());
    }

    @Override
    public void createPartControl(Composite parent) {
        super.createPartControl(parent);
        SextantService.get().followOutputs(getTimeGraphViewer().getControl(), this::getTrace, trace -> rebuild());
    }

    /**
     * Trace Compass's zoom, plus: the rows it leaves out (outside the zoomed range, or without states) lose
     * their sampling. Trace Compass 6.2 empties those rows' states but keeps their sampling, which says the
     * states are up to date for the range they were last fetched for: a later zoom on that range skips them
     * and they stay empty (the Comparison View after a refresh's zoom on the trace's window, or after a zoom
     * in and back out). Trace Compass 10 clears the sampling there itself (setZoomedEventList(null)); this
     * does it for 6.2, with Trace Compass's own test for a row left out. Cleared before the zoom, so that a
     * zoom started while this one fetches fetches those rows again, and after it, so that an earlier zoom's
     * results applied in between do not leave a row emptied with their sampling. Clearing a sampling
     * needlessly only costs a fetch.
     */
    @Override
    protected void zoomEntries(Iterable<TimeGraphEntry> entries, long zoomStartTime, long zoomEndTime,
            long resolution, boolean fullSearch, IProgressMonitor monitor) {
        forgetLeftOut(entries, zoomStartTime, zoomEndTime);
        try {
            super.zoomEntries(entries, zoomStartTime, zoomEndTime, resolution, fullSearch, monitor);
        } finally {
            forgetLeftOut(entries, zoomStartTime, zoomEndTime);
        }
    }

    private static void forgetLeftOut(Iterable<TimeGraphEntry> entries, long zoomStartTime, long zoomEndTime) {
        for (TimeGraphEntry entry : entries) {
            if (!(zoomStartTime <= entry.getEndTime() && zoomEndTime >= entry.getStartTime()
                    && entry.hasTimeEvents())) {
                entry.setSampling(null);
            }
        }
    }
}
