package io.sextant.tc.ui;

import java.util.List;
import java.util.Map;

import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.tracecompass.internal.provisional.tmf.core.model.table.ITmfVirtualTableDataProvider;
import org.eclipse.tracecompass.internal.provisional.tmf.core.model.table.ITmfVirtualTableModel;
import org.eclipse.tracecompass.internal.provisional.tmf.core.model.table.TmfVirtualTableModel;
import org.eclipse.tracecompass.internal.provisional.tmf.core.model.table.VirtualTableCell;
import org.eclipse.tracecompass.internal.provisional.tmf.core.model.table.VirtualTableLine;
import org.eclipse.tracecompass.tmf.core.dataprovider.DataProviderParameterUtils;
import org.eclipse.tracecompass.tmf.core.model.tree.TmfTreeModel;
import org.eclipse.tracecompass.tmf.core.response.TmfModelResponse;
import org.eclipse.tracecompass.tmf.core.trace.ITmfTrace;

import io.sextant.tc.Rpc;
import io.sextant.tc.Sidecar;
import io.sextant.tc.protocol.OutputQuery;
import io.sextant.tc.protocol.Response;
import io.sextant.tc.protocol.TableColumn;
import io.sextant.tc.protocol.TableLines;

/**
 * A sextant table (the executions: one line each, with its range and its
 * times running, preempted, blocked and waiting) as a Trace Compass virtual
 * table provider: the columns are the tree, the lines are fetched by index
 * and count, as TSP pages them.
 */
public final class TspTableProvider extends TspProvider
        implements ITmfVirtualTableDataProvider<TableColumnModel, VirtualTableLine> {

    public TspTableProvider(ITmfTrace trace, SextantOutput kind, Sidecar sidecar) {
        super(trace, kind, sidecar);
    }

    @Override
    public TmfModelResponse<TmfTreeModel<TableColumnModel>> fetchTree(Map<String, Object> parameters,
            IProgressMonitor monitor) {
        TmfTreeModel<TableColumnModel> empty = new TmfTreeModel<>(List.of(), List.of());
        return onTarget(empty, t -> {
            Response<List<TableColumn>> r = Rpc.await(tsp().tableColumns(OutputQuery.columns(t.exp(),
                    t.output().id())), timeout(), "table columns " + t.output().id());
            List<TableColumnModel> columns = r.model() == null ? List.of()
                    : r.model().stream().map(c -> new TableColumnModel(c.id(), c.name(),
                            TableColumnModel.Type.of(c.type()))).toList();
            return response(r, new TmfTreeModel<>(columns.stream().map(TableColumnModel::getName).toList(),
                    columns));
        });
    }

    /** {@code count} lines from {@code index} ({@link DataProviderParameterUtils}' table keys). */
    @Override
    public TmfModelResponse<ITmfVirtualTableModel<VirtualTableLine>> fetchLines(Map<String, Object> parameters,
            IProgressMonitor monitor) {
        ITmfVirtualTableModel<VirtualTableLine> empty = new TmfVirtualTableModel<>(List.of(), List.of(), 0, 0);
        if (!(parameters.get(DataProviderParameterUtils.REQUESTED_TABLE_INDEX_KEY) instanceof Number index)
                || !(parameters.get(DataProviderParameterUtils.REQUESTED_TABLE_COUNT_KEY) instanceof Number count)) {
            return completed(empty);
        }
        return onTarget(empty, t -> {
            Response<TableLines> r = Rpc.await(tsp().tableLines(OutputQuery.lines(t.exp(), t.output().id(),
                    index.longValue(), count.intValue())), timeout(), "table lines " + t.output().id());
            if (r.model() == null) {
                return response(r, empty);
            }
            List<VirtualTableLine> lines = r.model().lines().stream().map(l -> new VirtualTableLine(l.index(),
                    l.cells().stream().map(c -> new VirtualTableCell(c.content())).toList())).toList();
            return response(r, new TmfVirtualTableModel<>(r.model().columnIds(), lines, r.model().lowIndex(),
                    r.model().size()));
        });
    }
}
