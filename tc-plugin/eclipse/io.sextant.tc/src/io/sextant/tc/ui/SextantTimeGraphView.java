package io.sextant.tc.ui;

import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Display;
import org.eclipse.tracecompass.internal.provisional.tmf.ui.widgets.timegraph.BaseDataProviderTimeGraphPresentationProvider;
import org.eclipse.tracecompass.tmf.core.trace.ITmfTrace;
import org.eclipse.tracecompass.tmf.ui.views.timegraph.BaseDataProviderTimeGraphView;

/**
 * A Trace Compass time-graph view over one sextant output: Trace Compass's
 * own view and presentation (styles from sextant), rebuilt when the trace's
 * output changes (a model posted, an execution explained, sextant restarted).
 */
public abstract class SextantTimeGraphView extends BaseDataProviderTimeGraphView
        implements SextantService.OutputsListener {

    protected SextantTimeGraphView(String viewId, SextantOutput output) {
        super(viewId, new BaseDataProviderTimeGraphPresentationProvider(), output.providerId());
    }

    @Override
    public void createPartControl(Composite parent) {
        super.createPartControl(parent);
        SextantService.get().addOutputsListener(this);
    }

    @Override
    public void dispose() {
        SextantService.get().removeOutputsListener(this);
        super.dispose();
    }

    @Override
    public void outputsChanged(ITmfTrace trace) {
        Display.getDefault().asyncExec(() -> {
            if (!getTimeGraphViewer().getControl().isDisposed() && trace.equals(getTrace())) {
                rebuild();
            }
        });
    }
}
