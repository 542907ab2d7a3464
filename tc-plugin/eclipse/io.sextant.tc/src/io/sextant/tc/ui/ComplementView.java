package io.sextant.tc.ui;

/** Who ran while the explained execution's critical path waited; priority inversions in sextant's red. */
public final class ComplementView extends SextantTimeGraphView {

    public static final String ID = "io.sextant.tc.ui.complement";

    public ComplementView() {
        super(ID, SextantOutput.COMPLEMENT);
    }
}
