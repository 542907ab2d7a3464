package io.sextant.tc.ui;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.tracecompass.tmf.core.dataprovider.DataProviderParameterUtils;
import org.eclipse.tracecompass.tmf.core.model.IOutputStyleProvider;
import org.eclipse.tracecompass.tmf.core.model.OutputElementStyle;
import org.eclipse.tracecompass.tmf.core.model.OutputStyleModel;
import org.eclipse.tracecompass.tmf.core.model.timegraph.ITimeGraphArrow;
import org.eclipse.tracecompass.tmf.core.model.timegraph.ITimeGraphDataProvider;
import org.eclipse.tracecompass.tmf.core.model.timegraph.ITimeGraphRowModel;
import org.eclipse.tracecompass.tmf.core.model.timegraph.ITimeGraphState;
import org.eclipse.tracecompass.tmf.core.model.timegraph.TimeGraphEntryModel;
import org.eclipse.tracecompass.tmf.core.model.timegraph.TimeGraphModel;
import org.eclipse.tracecompass.tmf.core.model.timegraph.TimeGraphRowModel;
import org.eclipse.tracecompass.tmf.core.model.timegraph.TimeGraphState;
import org.eclipse.tracecompass.tmf.core.model.tree.TmfTreeModel;
import org.eclipse.tracecompass.tmf.core.response.ITmfResponse;
import org.eclipse.tracecompass.tmf.core.response.TmfModelResponse;
import org.eclipse.tracecompass.tmf.core.trace.ITmfTrace;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

import io.sextant.tc.Rpc;
import io.sextant.tc.SextantException;
import io.sextant.tc.Sidecar;
import io.sextant.tc.protocol.OutputDescriptor;
import io.sextant.tc.protocol.OutputQuery;
import io.sextant.tc.protocol.Response;
import io.sextant.tc.protocol.StatesModel;
import io.sextant.tc.protocol.StyleQuery;
import io.sextant.tc.protocol.TreeModel;

/**
 * A sextant time-graph output as a Trace Compass data provider: TSP's tree,
 * states and styles are the models Trace Compass's own views draw. The
 * output is looked up at each request (the trace's current model or
 * explanation), so a view keeps its provider when a new model is posted.
 */
public final class TspTimeGraphProvider implements ITimeGraphDataProvider<TimeGraphEntryModel>, IOutputStyleProvider {

    /** The output and the experiment a request goes to. */
    private record Target(String exp, OutputDescriptor output) {
    }

    private final ITmfTrace trace;
    private final SextantOutput kind;
    private final Sidecar sidecar;

    public TspTimeGraphProvider(ITmfTrace trace, SextantOutput kind, Sidecar sidecar) {
        this.trace = trace;
        this.kind = kind;
        this.sidecar = sidecar;
    }

    @Override
    public String getId() {
        return kind.providerId();
    }

    private Optional<Target> target() {
        String key = SextantService.key(trace);
        return sidecar.experiment(key).flatMap(exp -> kind.current(sidecar, key).map(o -> new Target(exp, o)));
    }

    /** Shift applied to sextant's times: the trace's start for outputs whose rows start at 0. */
    private long offset() {
        return kind.relative() ? trace.getStartTime().toNanos() : 0;
    }

    private Duration timeout() {
        return sidecar.timeout();
    }

    private static <T> TmfModelResponse<T> response(Response<?> r, T model) {
        ITmfResponse.Status status = switch (r.status()) {
            case "COMPLETED" -> ITmfResponse.Status.COMPLETED;
            case "RUNNING" -> ITmfResponse.Status.RUNNING;
            case "CANCELLED" -> ITmfResponse.Status.CANCELLED;
            default -> ITmfResponse.Status.FAILED;
        };
        return new TmfModelResponse<>(model, status, r.statusMessage() == null ? "" : r.statusMessage());
    }

    /**
     * {@code empty} (COMPLETED) while the trace has no such output yet;
     * else {@code fetch} on it, a failed request answered as FAILED with
     * sextant's message.
     */
    private <T> TmfModelResponse<T> onTarget(T empty, Function<Target, TmfModelResponse<T>> fetch) {
        Optional<Target> t = target();
        if (t.isEmpty()) {
            return new TmfModelResponse<>(empty, ITmfResponse.Status.COMPLETED, "nothing from sextant yet");
        }
        try {
            return fetch.apply(t.get());
        } catch (SextantException e) {
            return new TmfModelResponse<>(empty, ITmfResponse.Status.FAILED, e.getMessage());
        }
    }

    @Override
    public TmfModelResponse<TmfTreeModel<TimeGraphEntryModel>> fetchTree(Map<String, Object> parameters,
            IProgressMonitor monitor) {
        TmfTreeModel<TimeGraphEntryModel> empty = new TmfTreeModel<>(List.of(), List.of());
        return onTarget(empty, t -> {
            long start = trace.getStartTime().toNanos();
            long end = trace.getEndTime().toNanos();
            Response<TreeModel> r = Rpc.await(sidecar.connection().tsp().timeGraphTree(
                    OutputQuery.tree(t.exp(), t.output().id(), start, end)), timeout(),
                    "time graph tree " + t.output().id());
            if (r.model() == null) {
                return response(r, empty);
            }
            long offset = offset();
            List<TimeGraphEntryModel> entries = new ArrayList<>();
            List<String> headers = r.model().headers() == null ? List.of()
                    : r.model().headers().stream().map(TreeModel.Header::name).toList();
            for (TreeModel.Entry e : r.model().entries()) {
                long s = e.start() == null ? start : e.start() + offset;
                long en = e.end() == null ? end : e.end() + offset;
                List<String> labels = e.labels() == null ? List.of() : e.labels();
                var absStart = e.metadataLong("start");
                var tid = e.metadataLong("tid");
                if (kind.relative() && absStart.isPresent() && tid.isPresent() && e.end() != null) {
                    entries.add(new ExecutionEntryModel(e.id(), labels, s, en, tid.getAsLong(), absStart.getAsLong(),
                            absStart.getAsLong() + e.end() - (e.start() == null ? 0 : e.start())));
                } else {
                    entries.add(new TimeGraphEntryModel(e.id(), e.parentId(), labels, s, en,
                            !Boolean.FALSE.equals(e.hasData())));
                }
            }
            return response(r, new TmfTreeModel<>(headers, entries));
        });
    }

    @Override
    public TmfModelResponse<TimeGraphModel> fetchRowModel(Map<String, Object> parameters, IProgressMonitor monitor) {
        TimeGraphModel empty = new TimeGraphModel(List.of());
        List<Long> times = DataProviderParameterUtils.extractTimeRequested(parameters);
        List<Long> items = DataProviderParameterUtils.extractSelectedItems(parameters);
        if (times == null || times.isEmpty()) {
            return new TmfModelResponse<>(empty, ITmfResponse.Status.COMPLETED, "");
        }
        return onTarget(empty, t -> {
            long offset = offset();
            long start = Math.max(0, Collections.min(times) - offset);
            long end = Math.max(0, Collections.max(times) - offset);
            Response<StatesModel> r = Rpc.await(sidecar.connection().tsp().timeGraphStates(
                    OutputQuery.data(t.exp(), t.output().id(), start, end, times.size(), items)), timeout(),
                    "time graph states " + t.output().id());
            if (r.model() == null) {
                return response(r, empty);
            }
            List<ITimeGraphRowModel> rows = new ArrayList<>();
            for (StatesModel.Row row : r.model().rows()) {
                List<ITimeGraphState> states = new ArrayList<>();
                for (StatesModel.State s : row.states()) {
                    states.add(new TimeGraphState(s.start() + offset, s.end() - s.start(), s.label(),
                            s.style() == null ? null : style(s.style())));
                }
                rows.add(new TimeGraphRowModel(row.entryId(), states));
            }
            return response(r, new TimeGraphModel(rows));
        });
    }

    @Override
    public TmfModelResponse<OutputStyleModel> fetchStyle(Map<String, Object> parameters, IProgressMonitor monitor) {
        return onTarget(new OutputStyleModel(Map.of()), t -> {
            var r = Rpc.await(sidecar.connection().tsp().style(StyleQuery.of(t.exp(), t.output().id())), timeout(),
                    "style " + t.output().id());
            Map<String, OutputElementStyle> styles = new HashMap<>();
            if (r.model() != null && r.model().styles() != null) {
                r.model().styles().forEach((k, v) -> styles.put(k, style(v)));
            }
            return response(r, new OutputStyleModel(styles));
        });
    }

    /** TSP's style as Trace Compass's: strings stay strings, numbers become floats (heights, opacities, widths). */
    static OutputElementStyle style(StatesModel.Style s) {
        Map<String, Object> values = new HashMap<>();
        JsonObject v = s.values();
        if (v != null) {
            for (Map.Entry<String, JsonElement> e : v.entrySet()) {
                JsonElement x = e.getValue();
                if (x.isJsonPrimitive() && x.getAsJsonPrimitive().isNumber()) {
                    values.put(e.getKey(), x.getAsFloat());
                } else if (x.isJsonPrimitive()) {
                    values.put(e.getKey(), x.getAsString());
                }
            }
        }
        return new OutputElementStyle(s.parentKey(), values);
    }

    @Override
    public TmfModelResponse<List<ITimeGraphArrow>> fetchArrows(Map<String, Object> parameters,
            IProgressMonitor monitor) {
        return new TmfModelResponse<>(List.of(), ITmfResponse.Status.COMPLETED, "");
    }

    @Override
    public TmfModelResponse<Map<String, String>> fetchTooltip(Map<String, Object> parameters,
            IProgressMonitor monitor) {
        return new TmfModelResponse<>(Map.of(), ITmfResponse.Status.COMPLETED, "");
    }
}
