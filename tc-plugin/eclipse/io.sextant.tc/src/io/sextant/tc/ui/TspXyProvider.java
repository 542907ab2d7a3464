package io.sextant.tc.ui;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.tracecompass.tmf.core.dataprovider.DataProviderParameterUtils;
import org.eclipse.tracecompass.tmf.core.dataprovider.DataType;
import org.eclipse.tracecompass.tmf.core.model.OutputElementStyle;
import org.eclipse.tracecompass.tmf.core.model.SeriesModel;
import org.eclipse.tracecompass.tmf.core.model.TmfXyModel;
import org.eclipse.tracecompass.tmf.core.model.StyleProperties;
import org.eclipse.tracecompass.tmf.core.model.tree.TmfTreeDataModel;
import org.eclipse.tracecompass.tmf.core.model.tree.TmfTreeModel;
import org.eclipse.tracecompass.tmf.core.model.xy.ISeriesModel;
import org.eclipse.tracecompass.tmf.core.model.xy.ITmfTreeXYDataProvider;
import org.eclipse.tracecompass.tmf.core.model.xy.ITmfXyModel;
import org.eclipse.tracecompass.tmf.core.model.xy.TmfXYAxisDescription;
import org.eclipse.tracecompass.tmf.core.response.TmfModelResponse;
import org.eclipse.tracecompass.tmf.core.trace.ITmfTrace;

import io.sextant.tc.Rpc;
import io.sextant.tc.Sidecar;
import io.sextant.tc.protocol.OutputQuery;
import io.sextant.tc.protocol.Response;
import io.sextant.tc.protocol.TreeModel;
import io.sextant.tc.protocol.XyModel;

/**
 * A sextant XY output (the Time Perspective: each execution's duration at
 * its start time, the deadline misses, the mean and ±1σ) as a Trace
 * Compass tree XY data provider. Each series keeps its own x values (a
 * scatter, not sampled on a common axis); the y axis says it holds
 * durations, so Trace Compass formats it as such. The style sextant gives
 * a series (scatter or line, its colour) is kept for the view.
 */
public final class TspXyProvider extends TspProvider implements ITmfTreeXYDataProvider<TmfTreeDataModel> {

    private final Map<Long, OutputElementStyle> seriesStyles = new ConcurrentHashMap<>();
    private volatile Set<Long> defaults = Set.of();

    public TspXyProvider(ITmfTrace trace, SextantOutput kind, Sidecar sidecar) {
        super(trace, kind, sidecar);
    }

    @Override
    public TmfModelResponse<TmfTreeModel<TmfTreeDataModel>> fetchTree(Map<String, Object> parameters,
            IProgressMonitor monitor) {
        TmfTreeModel<TmfTreeDataModel> empty = new TmfTreeModel<>(List.of(), List.of());
        return onTarget(empty, t -> {
            Response<TreeModel> r = Rpc.await(tsp().xyTree(OutputQuery.tree(t.exp(), t.output().id(),
                    trace.getStartTime().toNanos(), trace.getEndTime().toNanos())), timeout(),
                    "XY tree " + t.output().id());
            if (r.model() == null) {
                return response(r, empty);
            }
            List<String> headers = r.model().headers() == null ? List.of()
                    : r.model().headers().stream().map(TreeModel.Header::name).toList();
            defaults = r.model().entries().stream().filter(e -> Boolean.TRUE.equals(e.isDefault()))
                    .map(TreeModel.Entry::id).collect(Collectors.toUnmodifiableSet());
            List<TmfTreeDataModel> entries = r.model().entries().stream()
                    .map(e -> new TmfTreeDataModel(e.id(), e.parentId(), e.labels() == null ? List.of() : e.labels(),
                            Boolean.TRUE.equals(e.hasData()), null))
                    .toList();
            return response(r, new TmfTreeModel<>(headers, entries));
        });
    }

    @Override
    public TmfModelResponse<ITmfXyModel> fetchXY(Map<String, Object> parameters, IProgressMonitor monitor) {
        ITmfXyModel empty = new TmfXyModel("", List.of());
        List<Long> items = DataProviderParameterUtils.extractSelectedItems(parameters);
        return Times.of(parameters).map(times -> onTarget(empty, t -> {
            Response<XyModel> r = Rpc.await(tsp().xy(OutputQuery.data(t.exp(), t.output().id(), times.start(),
                    times.end(), times.count(), items)), timeout(), "XY series " + t.output().id());
            if (r.model() == null) {
                return response(r, empty);
            }
            List<ISeriesModel> series = new ArrayList<>();
            for (XyModel.Series s : r.model().series()) {
                long[] xs = s.xValues().stream().mapToLong(Long::longValue).toArray();
                double[] ys = s.yValues().stream().mapToDouble(Double::doubleValue).toArray();
                OutputElementStyle style = style(null, s.style() == null ? null : s.style().values());
                seriesStyles.put(s.seriesId(), style);
                SeriesModel.SeriesModelBuilder b = new SeriesModel.SeriesModelBuilder(s.seriesId(), s.seriesName(),
                        xs, ys).seriesDisplayType(StyleProperties.SeriesType.SCATTER.equals(
                                style.getStyleValues().get(StyleProperties.SERIES_TYPE))
                                        ? ISeriesModel.DisplayType.SCATTER
                                        : ISeriesModel.DisplayType.LINE);
                if (s.yValuesDescription() != null) {
                    b.yAxisDescription(axis(s.yValuesDescription()));
                }
                series.add(b.build());
            }
            return response(r, new TmfXyModel(r.model().title() == null ? "" : r.model().title(), series));
        })).orElseGet(() -> completed(empty));
    }

    /** The series sextant shows when none is chosen (as of the last tree). */
    public Set<Long> defaults() {
        return defaults;
    }

    /** The style sextant gave series {@code id} in the last answer (series type, colour). */
    public Optional<OutputElementStyle> seriesStyle(long id) {
        return Optional.ofNullable(seriesStyles.get(id));
    }

    private static TmfXYAxisDescription axis(XyModel.Axis a) {
        DataType type;
        try {
            type = a.dataType() == null ? DataType.NUMBER : DataType.valueOf(a.dataType());
        } catch (IllegalArgumentException unknown) {
            type = DataType.NUMBER;
        }
        return new TmfXYAxisDescription(a.label() == null ? "" : a.label(), a.unit() == null ? "" : a.unit(), type);
    }
}
