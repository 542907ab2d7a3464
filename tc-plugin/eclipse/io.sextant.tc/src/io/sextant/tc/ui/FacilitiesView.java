package io.sextant.tc.ui;

/** The explained execution's hrtimers, futexes and message queues, with their waiters. */
public final class FacilitiesView extends SextantTimeGraphView {

    public static final String ID = "io.sextant.tc.ui.facilities";

    public FacilitiesView() {
        super(ID, SextantOutput.FACILITIES);
    }
}
