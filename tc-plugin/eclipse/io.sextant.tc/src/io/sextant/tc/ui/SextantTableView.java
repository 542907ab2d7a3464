package io.sextant.tc.ui;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.NullProgressMonitor;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.jface.viewers.ColumnLabelProvider;
import org.eclipse.jface.viewers.IStructuredSelection;
import org.eclipse.jface.viewers.TableViewer;
import org.eclipse.jface.viewers.Viewer;
import org.eclipse.swt.SWT;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Display;
import org.eclipse.swt.widgets.TableColumn;
import org.eclipse.tracecompass.common.core.format.SubSecondTimeWithUnitFormat;
import org.eclipse.tracecompass.internal.provisional.tmf.core.model.table.ITmfVirtualTableDataProvider;
import org.eclipse.tracecompass.internal.provisional.tmf.core.model.table.ITmfVirtualTableModel;
import org.eclipse.tracecompass.internal.provisional.tmf.core.model.table.VirtualTableLine;
import org.eclipse.tracecompass.tmf.core.dataprovider.DataProviderManager;
import org.eclipse.tracecompass.tmf.core.dataprovider.DataProviderParameterUtils;
import org.eclipse.tracecompass.tmf.core.model.tree.TmfTreeModel;
import org.eclipse.tracecompass.tmf.core.response.ITmfResponse;
import org.eclipse.tracecompass.tmf.core.response.TmfModelResponse;
import org.eclipse.tracecompass.tmf.core.signal.TmfSignalHandler;
import org.eclipse.tracecompass.tmf.core.signal.TmfTraceClosedSignal;
import org.eclipse.tracecompass.tmf.core.signal.TmfTraceSelectedSignal;
import org.eclipse.tracecompass.tmf.core.timestamp.TmfTimestamp;
import org.eclipse.tracecompass.tmf.core.trace.ITmfTrace;
import org.eclipse.tracecompass.tmf.core.trace.TmfTraceManager;
import org.eclipse.tracecompass.tmf.ui.viewers.table.ISortingLazyContentProvider;
import org.eclipse.tracecompass.tmf.ui.viewers.table.TmfSimpleTableViewer;
import org.eclipse.tracecompass.tmf.ui.views.TmfView;

/**
 * A sextant table (TABLE output) in Trace Compass's table viewer (the one
 * its latency tables use): the columns and lines of the output's table
 * provider, read a page at a time when the trace or its outputs change; a
 * click on a column sorts by it (as numbers where sextant says the column is
 * numeric). Times are shown in Trace Compass's time format.
 */
public abstract class SextantTableView extends TmfView {

    private static final int PAGE = 1000;

    private final SextantOutput output;
    /** What the lines are, for the reading job's name ("the executions"). */
    private final String what;
    private TmfSimpleTableViewer table;
    /** The trace shown (set by signals and jobs, read on the UI thread). */
    private volatile ITmfTrace trace;
    private List<TableColumnModel> columns = List.of();
    /** Which of {@link #columns} are on screen. */
    private List<Boolean> visible = List.of();

    protected SextantTableView(String viewId, SextantOutput output, String what) {
        super(viewId);
        this.output = output;
        this.what = what;
    }

    @Override
    public void createPartControl(Composite parent) {
        super.createPartControl(parent);
        TableViewer viewer = new TableViewer(parent, SWT.FULL_SELECTION | SWT.VIRTUAL | SWT.H_SCROLL | SWT.V_SCROLL);
        table = new TmfSimpleTableViewer(viewer);
        viewer.setContentProvider(new Lines(viewer));
        viewer.addSelectionChangedListener(e -> {
            if (e.getSelection() instanceof IStructuredSelection s && s.getFirstElement() instanceof VirtualTableLine l) {
                lineSelected(l);
            }
        });
        SextantService.get().followOutputs(viewer.getControl(), () -> trace, this::load);
        ITmfTrace active = TmfTraceManager.getInstance().getActiveTrace();
        if (active != null) {
            load(active);
        }
    }

    /** A line was selected (by a click, the keyboard or a program). */
    protected abstract void lineSelected(VirtualTableLine line);

    /**
     * Whether the view shows the column at {@code index} of {@code lines} (every line keeps all its cells,
     * shown or not).
     */
    protected boolean shown(TableColumnModel column, int index, List<VirtualTableLine> lines) {
        return true;
    }

    @Override
    public void setFocus() {
        table.getControl().setFocus();
    }

    /** The table viewer (for tests and for Trace Compass's table actions). */
    public TableViewer viewer() {
        return table.getTableViewer();
    }

    /** The table's columns, shown or not: a line's cells are in their order. */
    public List<TableColumnModel> columns() {
        return columns;
    }

    protected ITmfTrace trace() {
        return trace;
    }

    /** The selected line, or null. */
    protected VirtualTableLine selectedLine() {
        return viewer().getStructuredSelection().getFirstElement() instanceof VirtualTableLine l ? l : null;
    }

    @TmfSignalHandler
    public void traceSelected(TmfTraceSelectedSignal signal) {
        load(signal.getTrace());
    }

    @TmfSignalHandler
    public void traceClosed(TmfTraceClosedSignal signal) {
        if (signal.getTrace().equals(trace)) {
            trace = null;
            Display.getDefault().asyncExec(() -> show(List.of(), List.of()));
        }
    }

    /** Reads the trace's table in the background, then shows it. */
    private void load(ITmfTrace t) {
        trace = t;
        Job job = Job.create("sextant: reading " + what + " of " + t.getName(), monitor -> {
            @SuppressWarnings("unchecked")
            ITmfVirtualTableDataProvider<TableColumnModel, VirtualTableLine> p = DataProviderManager.getInstance()
                    .getDataProvider(t, output.providerId(), ITmfVirtualTableDataProvider.class);
            TmfModelResponse<TmfTreeModel<TableColumnModel>> tree = p.fetchTree(Map.of(), monitor);
            if (tree.getStatus() == ITmfResponse.Status.FAILED) {
                return new Status(IStatus.ERROR, Activator.ID, tree.getStatusMessage());
            }
            List<TableColumnModel> cols = tree.getModel() == null ? List.of() : tree.getModel().getEntries();
            List<VirtualTableLine> lines = new ArrayList<>();
            long size;
            do {
                TmfModelResponse<ITmfVirtualTableModel<VirtualTableLine>> page = p.fetchLines(Map.of(
                        DataProviderParameterUtils.REQUESTED_TABLE_INDEX_KEY, (long) lines.size(),
                        DataProviderParameterUtils.REQUESTED_TABLE_COUNT_KEY, PAGE), new NullProgressMonitor());
                if (page.getStatus() == ITmfResponse.Status.FAILED || page.getModel() == null) {
                    return new Status(IStatus.ERROR, Activator.ID, page.getStatusMessage());
                }
                size = page.getModel().getSize();
                if (page.getModel().getLines().isEmpty() && lines.size() < size) {
                    return new Status(IStatus.ERROR, Activator.ID,
                            "no lines from " + lines.size() + " though the table has " + size);
                }
                lines.addAll(page.getModel().getLines());
            } while (lines.size() < size && !monitor.isCanceled());
            Display.getDefault().asyncExec(() -> {
                if (t.equals(trace)) {
                    show(cols, lines);
                }
            });
            return Status.OK_STATUS;
        });
        job.setSystem(true);
        job.schedule();
    }

    private void show(List<TableColumnModel> cols, List<VirtualTableLine> lines) {
        TableViewer viewer = table.getTableViewer();
        if (viewer.getControl().isDisposed()) {
            return;
        }
        List<Boolean> vis = new ArrayList<>();
        for (int i = 0; i < cols.size(); i++) {
            vis.add(shown(cols.get(i), i, lines));
        }
        if (!cols.equals(columns) || !vis.equals(visible)) {
            for (TableColumn c : viewer.getTable().getColumns()) {
                c.dispose();
            }
            for (int i = 0; i < cols.size(); i++) {
                TableColumnModel c = cols.get(i);
                if (!vis.get(i)) {
                    continue;
                }
                int index = i;
                TableColumn column = table.createColumn(c.getName(), new ColumnLabelProvider() {
                    @Override
                    public String getText(Object element) {
                        return element instanceof VirtualTableLine l ? label(c, cell(l, index)) : "";
                    }
                }, comparator(c, index));
                column.setToolTipText(c.getName());
                column.setWidth(c.type() == TableColumnModel.Type.TIMESTAMP ? 170 : 100);
            }
            columns = cols;
            visible = vis;
        }
        viewer.getTable().setSortColumn(null);
        viewer.setInput(new ArrayList<>(lines));
    }

    protected static String cell(VirtualTableLine line, int column) {
        return column >= 0 && column < line.getCells().size() ? line.getCells().get(column).getContent() : "";
    }

    /** The cells of {@code line}, in the order of {@link #columns()}. */
    protected static List<String> cells(VirtualTableLine line) {
        return line.getCells().stream().map(c -> c.getContent()).toList();
    }

    private static String label(TableColumnModel c, String content) {
        try {
            return switch (c.type()) {
                case TIMESTAMP -> TmfTimestamp.fromNanos(Long.parseLong(content)).toString();
                case DURATION -> SubSecondTimeWithUnitFormat.getInstance().format(Long.parseLong(content));
                default -> content;
            };
        } catch (NumberFormatException notANumber) {
            return content;
        }
    }

    private static Comparator<VirtualTableLine> comparator(TableColumnModel c, int column) {
        if (!c.type().numeric()) {
            return Comparator.comparing(l -> cell(l, column));
        }
        return Comparator.comparingLong(l -> {
            try {
                return Long.parseLong(cell(l, column));
            } catch (NumberFormatException notANumber) {
                return Long.MIN_VALUE;
            }
        });
    }

    /** The index of the column named {@code name}, or -1. */
    protected int columnNamed(String name) {
        for (int i = 0; i < columns.size(); i++) {
            if (columns.get(i).getName().equals(name)) {
                return i;
            }
        }
        return -1;
    }

    /** The lines in memory behind the virtual table, sorted in place when a column is clicked. */
    private static final class Lines implements ISortingLazyContentProvider {

        private final TableViewer viewer;
        private List<VirtualTableLine> lines = List.of();

        Lines(TableViewer viewer) {
            this.viewer = viewer;
        }

        @SuppressWarnings("unchecked")
        @Override
        public void inputChanged(Viewer v, Object oldInput, Object newInput) {
            lines = newInput instanceof List<?> l ? (List<VirtualTableLine>) l : List.of();
            viewer.setItemCount(lines.size());
        }

        @Override
        public void updateElement(int index) {
            if (index < lines.size()) {
                viewer.replace(lines.get(index), index);
            }
        }

        @SuppressWarnings("unchecked")
        @Override
        public void setSortOrder(Comparator<?> comparator) {
            lines.sort((Comparator<VirtualTableLine>) comparator);
            viewer.refresh();
        }
    }
}
