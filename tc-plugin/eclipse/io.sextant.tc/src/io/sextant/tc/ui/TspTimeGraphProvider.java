package io.sextant.tc.ui;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.tracecompass.tmf.core.dataprovider.DataProviderParameterUtils;
import org.eclipse.tracecompass.tmf.core.model.IOutputStyleProvider;
import org.eclipse.tracecompass.tmf.core.model.ITimeElement;
import org.eclipse.tracecompass.tmf.core.model.OutputElementStyle;
import org.eclipse.tracecompass.tmf.core.model.OutputStyleModel;
import org.eclipse.tracecompass.tmf.core.model.timegraph.ITimeGraphArrow;
import org.eclipse.tracecompass.tmf.core.model.timegraph.ITimeGraphDataProvider;
import org.eclipse.tracecompass.tmf.core.model.timegraph.ITimeGraphRowModel;
import org.eclipse.tracecompass.tmf.core.model.timegraph.ITimeGraphState;
import org.eclipse.tracecompass.tmf.core.model.timegraph.TimeGraphArrow;
import org.eclipse.tracecompass.tmf.core.model.timegraph.TimeGraphEntryModel;
import org.eclipse.tracecompass.tmf.core.model.timegraph.TimeGraphModel;
import org.eclipse.tracecompass.tmf.core.model.timegraph.TimeGraphRowModel;
import org.eclipse.tracecompass.tmf.core.model.timegraph.TimeGraphState;
import org.eclipse.tracecompass.tmf.core.model.tree.TmfTreeModel;
import org.eclipse.tracecompass.tmf.core.response.TmfModelResponse;
import org.eclipse.tracecompass.tmf.core.trace.ITmfTrace;

import io.sextant.tc.Rpc;
import io.sextant.tc.Sidecar;
import io.sextant.tc.protocol.Arrow;
import io.sextant.tc.protocol.OutputQuery;
import io.sextant.tc.protocol.Response;
import io.sextant.tc.protocol.StatesModel;
import io.sextant.tc.protocol.StyleQuery;
import io.sextant.tc.protocol.TooltipQuery;
import io.sextant.tc.protocol.TreeModel;

/**
 * A sextant time-graph output as a Trace Compass data provider: TSP's tree,
 * states, styles, arrows and tooltips are the models Trace Compass's own
 * views draw. The Comparison View's rows keep sextant's times, relative to
 * each execution's start.
 */
public final class TspTimeGraphProvider extends TspProvider
        implements ITimeGraphDataProvider<TimeGraphEntryModel>, IOutputStyleProvider {

    public TspTimeGraphProvider(ITmfTrace trace, SextantOutput kind, Sidecar sidecar) {
        super(trace, kind, sidecar);
    }

    @Override
    public TmfModelResponse<TmfTreeModel<TimeGraphEntryModel>> fetchTree(Map<String, Object> parameters,
            IProgressMonitor monitor) {
        TmfTreeModel<TimeGraphEntryModel> empty = new TmfTreeModel<>(List.of(), List.of());
        return onTarget(empty, t -> {
            long start = trace.getStartTime().toNanos();
            long end = trace.getEndTime().toNanos();
            Response<TreeModel> r = Rpc.await(tsp().timeGraphTree(OutputQuery.tree(t.exp(), t.output().id(), start,
                    end)), timeout(), "time graph tree " + t.output().id());
            if (r.model() == null) {
                return response(r, empty);
            }
            List<TimeGraphEntryModel> entries = new ArrayList<>();
            List<String> headers = r.model().headers() == null ? List.of()
                    : r.model().headers().stream().map(TreeModel.Header::name).toList();
            for (TreeModel.Entry e : r.model().entries()) {
                List<String> labels = e.labels() == null ? List.of() : e.labels();
                var absStart = e.metadataLong("start");
                var tid = e.metadataLong("tid");
                if (kind.relative() && absStart.isPresent() && tid.isPresent() && e.end() != null) {
                    long s = e.start() == null ? 0 : e.start();
                    entries.add(new ExecutionEntryModel(e.id(), labels, s, e.end(), tid.getAsLong(),
                            absStart.getAsLong(), absStart.getAsLong() + e.end() - s));
                } else {
                    entries.add(new TimeGraphEntryModel(e.id(), e.parentId(), labels,
                            e.start() == null ? start : e.start(), e.end() == null ? end : e.end(),
                            !Boolean.FALSE.equals(e.hasData())));
                }
            }
            return response(r, new TmfTreeModel<>(headers, entries));
        });
    }

    @Override
    public TmfModelResponse<TimeGraphModel> fetchRowModel(Map<String, Object> parameters, IProgressMonitor monitor) {
        TimeGraphModel empty = new TimeGraphModel(List.of());
        List<Long> items = DataProviderParameterUtils.extractSelectedItems(parameters);
        return Times.of(parameters).map(times -> onTarget(empty, t -> {
            Response<StatesModel> r = Rpc.await(tsp().timeGraphStates(OutputQuery.data(t.exp(), t.output().id(),
                    times.start(), times.end(), times.count(), items)), timeout(),
                    "time graph states " + t.output().id());
            if (r.model() == null) {
                return response(r, empty);
            }
            List<ITimeGraphRowModel> rows = new ArrayList<>();
            for (StatesModel.Row row : r.model().rows()) {
                List<ITimeGraphState> states = new ArrayList<>();
                for (StatesModel.State s : row.states()) {
                    states.add(new TimeGraphState(s.start(), s.end() - s.start(), s.label(),
                            s.style() == null ? null : style(s.style().parentKey(), s.style().values())));
                }
                rows.add(new TimeGraphRowModel(row.entryId(), states));
            }
            return response(r, new TimeGraphModel(rows));
        })).orElseGet(() -> completed(empty));
    }

    @Override
    public TmfModelResponse<OutputStyleModel> fetchStyle(Map<String, Object> parameters, IProgressMonitor monitor) {
        return onTarget(new OutputStyleModel(Map.of()), t -> {
            var r = Rpc.await(tsp().style(StyleQuery.of(t.exp(), t.output().id())), timeout(),
                    "style " + t.output().id());
            Map<String, OutputElementStyle> styles = new HashMap<>();
            if (r.model() != null && r.model().styles() != null) {
                r.model().styles().forEach((k, v) -> styles.put(k, style(v.parentKey(), v.values())));
            }
            return response(r, new OutputStyleModel(styles));
        });
    }

    /** The wake-ups between rows over the times asked for (the critical path's arrows), in sextant's styles. */
    @Override
    public TmfModelResponse<List<ITimeGraphArrow>> fetchArrows(Map<String, Object> parameters,
            IProgressMonitor monitor) {
        List<ITimeGraphArrow> empty = List.of();
        return Times.of(parameters).map(times -> onTarget(empty, t -> {
            Response<List<Arrow>> r = Rpc.await(tsp().timeGraphArrows(OutputQuery.tree(t.exp(), t.output().id(),
                    times.start(), times.end())), timeout(), "time graph arrows " + t.output().id());
            List<ITimeGraphArrow> arrows = new ArrayList<>();
            for (Arrow a : r.model() == null ? List.<Arrow>of() : r.model()) {
                arrows.add(new TimeGraphArrow(a.sourceId(), a.targetId(), a.start(), a.end() - a.start(),
                        a.style() == null ? null : style(a.style().parentKey(), a.style().values())));
            }
            return response(r, arrows);
        })).orElseGet(() -> completed(empty));
    }

    /** What sextant says of the row under the pointer and of its state there. */
    @Override
    public TmfModelResponse<Map<String, String>> fetchTooltip(Map<String, Object> parameters,
            IProgressMonitor monitor) {
        Map<String, String> empty = Map.of();
        List<Long> times = DataProviderParameterUtils.extractTimeRequested(parameters);
        List<Long> items = DataProviderParameterUtils.extractSelectedItems(parameters);
        if (times == null || times.isEmpty() || items == null || items.isEmpty()) {
            return completed(empty);
        }
        long time = times.get(0);
        Object element = parameters.get(DataProviderParameterUtils.REQUESTED_ELEMENT_KEY);
        long elementStart = element instanceof ITimeElement s ? s.getStartTime() : time;
        long elementDuration = element instanceof ITimeElement s ? s.getDuration() : 0;
        return onTarget(empty, t -> {
            Response<Map<String, String>> r = Rpc.await(tsp().timeGraphTooltip(TooltipQuery.state(t.exp(),
                    t.output().id(), items.get(0), time, elementStart, elementDuration)), timeout(),
                    "time graph tooltip " + t.output().id());
            return response(r, r.model() == null ? empty : r.model());
        });
    }
}
