package io.sextant.tc.ui;

/** The explained execution's critical path. */
public final class CriticalPathView extends SextantTimeGraphView {

    public static final String ID = "io.sextant.tc.ui.criticalPath";

    public CriticalPathView() {
        super(ID, SextantOutput.CRITICAL_PATH);
    }
}
