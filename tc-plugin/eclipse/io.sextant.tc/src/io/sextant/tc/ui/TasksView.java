package io.sextant.tc.ui;

import java.util.List;

import org.eclipse.jface.action.Action;
import org.eclipse.jface.action.MenuManager;
import org.eclipse.jface.dialogs.MessageDialog;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Display;
import org.eclipse.tracecompass.internal.provisional.tmf.core.model.table.VirtualTableLine;
import org.eclipse.tracecompass.tmf.core.trace.ITmfTrace;
import org.eclipse.ui.ISharedImages;
import org.eclipse.ui.PlatformUI;

import io.sextant.tc.RealTimeTask;

/**
 * The real-time tasks sextant finds in the trace with no configuration
 * (sextant's "Real-time tasks" table): one line per periodic or sporadic
 * task with its period, jitter, response times and deadline misses. Opening
 * a task (a double-click on its line, Enter, or the toolbar's or context
 * menu's {@value #OPEN_JOBS} on the selected line) posts the task's own
 * model, which finds its jobs, as the trace's execution model and shows the
 * Comparison View on them. The model is the table's Model column, not shown
 * (JSON text): it is what the action posts; the Host column is shown only
 * when the experiment has several hosts.
 */
public final class TasksView extends SextantTableView {

    public static final String ID = "io.sextant.tc.ui.tasks";
    public static final String OPEN_JOBS = "Open jobs in Comparison View";

    private final Action openJobs = new Action(OPEN_JOBS) {
        @Override
        public void run() {
            openJobs();
        }
    };

    public TasksView() {
        super(ID, SextantOutput.TASKS, "the real-time tasks");
        openJobs.setToolTipText(OPEN_JOBS);
        openJobs.setImageDescriptor(PlatformUI.getWorkbench().getSharedImages()
                .getImageDescriptor(ISharedImages.IMG_TOOL_FORWARD));
        openJobs.setEnabled(false);
    }

    @Override
    public void createPartControl(Composite parent) {
        super.createPartControl(parent);
        viewer().addDoubleClickListener(e -> openJobs());
        getViewSite().getActionBars().getToolBarManager().add(openJobs);
        MenuManager menu = new MenuManager();
        menu.add(openJobs);
        viewer().getControl().setMenu(menu.createContextMenu(viewer().getControl()));
    }

    @Override
    protected void lineSelected(VirtualTableLine line) {
        openJobs.setEnabled(true);
    }

    /** Not the model (JSON, for the action), nor the host of a trace of one host (always empty then). */
    @Override
    protected boolean shown(TableColumnModel column, int index, List<VirtualTableLine> lines) {
        return switch (column.getName()) {
            case RealTimeTask.MODEL -> false;
            case RealTimeTask.HOST -> lines.stream().anyMatch(l -> !cell(l, index).isEmpty());
            default -> true;
        };
    }

    /**
     * The name the task's model is posted under: not the model's own ("rt_high job"), which a user's model
     * may have (sextant keeps one model per name, and refuses another under a name it has).
     */
    private static String modelName(RealTimeTask task) {
        return task.command() + " task (TID " + task.tid() + ")";
    }

    /** Posts the selected task's model for the trace, then shows the Comparison View on its jobs. */
    private void openJobs() {
        VirtualTableLine line = selectedLine();
        ITmfTrace trace = trace();
        if (line == null || trace == null) {
            return;
        }
        RealTimeTask task;
        try {
            task = RealTimeTask.of(columns().stream().map(TableColumnModel::getName).toList(), cells(line));
        } catch (IllegalArgumentException e) {
            MessageDialog.openError(getSite().getShell(), "sextant", e.getMessage());
            return;
        }
        ModelActions.post(trace, modelName(task), task.model(), err -> Display.getDefault().asyncExec(
                () -> MessageDialog.openError(getSite().getShell(), "sextant refused the model of " + task.command(),
                        err)));
    }
}
