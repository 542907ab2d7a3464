package io.sextant.tc.ui;

/**
 * Tracealyzer's response-time plot of the real-time tasks sextant finds with
 * no configuration: each job's response time (release to completion) at its
 * release, a line per task; the highest-priority task shown by default, the
 * others checked in the series tree.
 */
public final class TaskResponseView extends SextantChartView {

    public static final String ID = "io.sextant.tc.ui.taskResponse";

    public TaskResponseView() {
        super(ID, SextantOutput.TASK_RESPONSE, "Release", "Response time");
    }
}
