package io.sextant.tc.ui;

import org.eclipse.swt.widgets.Composite;
import org.eclipse.tracecompass.internal.provisional.tmf.ui.widgets.timegraph.BaseDataProviderTimeGraphPresentationProvider;
import org.eclipse.tracecompass.tmf.ui.views.timegraph.BaseDataProviderTimeGraphView;

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
}
