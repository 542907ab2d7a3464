package io.sextant.tc.ui;

/**
 * The Time Perspective: each execution's duration at its start time, as a
 * scatter, with the deadline misses in sextant's colour and the mean and
 * ±1σ as lines.
 */
public final class TimePerspectiveView extends SextantChartView {

    public static final String ID = "io.sextant.tc.ui.timePerspective";

    public TimePerspectiveView() {
        super(ID, SextantOutput.TIME_PERSPECTIVE, "Start", "Duration");
    }
}
