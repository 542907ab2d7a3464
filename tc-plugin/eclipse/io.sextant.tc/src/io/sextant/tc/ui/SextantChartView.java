package io.sextant.tc.ui;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.eclipse.swt.widgets.Composite;
import org.eclipse.tracecompass.tmf.core.dataprovider.DataProviderManager;
import org.eclipse.tracecompass.tmf.core.model.OutputElementStyle;
import org.eclipse.tracecompass.tmf.core.model.StyleProperties;
import org.eclipse.tracecompass.tmf.core.trace.ITmfTrace;
import org.eclipse.tracecompass.tmf.ui.viewers.TmfViewer;
import org.eclipse.tracecompass.tmf.ui.viewers.tree.AbstractSelectTreeViewer2;
import org.eclipse.tracecompass.tmf.ui.viewers.tree.ITmfTreeColumnDataProvider;
import org.eclipse.tracecompass.tmf.ui.viewers.tree.ITmfTreeViewerEntry;
import org.eclipse.tracecompass.tmf.ui.viewers.tree.TmfGenericTreeEntry;
import org.eclipse.tracecompass.tmf.ui.viewers.tree.TmfTreeColumnData;
import org.eclipse.tracecompass.tmf.ui.viewers.xychart.TmfXYChartViewer;
import org.eclipse.tracecompass.tmf.ui.viewers.xychart.linechart.TmfFilteredXYChartViewer;
import org.eclipse.tracecompass.tmf.ui.viewers.xychart.linechart.TmfXYChartSettings;
import org.eclipse.tracecompass.tmf.ui.views.xychart.TmfChartView;

/**
 * A sextant TREE_TIME_XY output in Trace Compass's own XY chart and series
 * tree, on the trace's time axis (so it follows Trace Compass's window like
 * every other view): sextant's series type and colour kept, a scatter drawn
 * as marks; the series sextant marks as default are checked when nothing
 * else is; read again when the trace's outputs change.
 */
public abstract class SextantChartView extends TmfChartView {

    private static final String NEUTRAL = "#1f77b4";

    private final String provider;
    private final String xTitle;
    private final String yTitle;

    protected SextantChartView(String viewId, SextantOutput output, String xTitle, String yTitle) {
        super(viewId);
        this.provider = output.providerId();
        this.xTitle = xTitle;
        this.yTitle = yTitle;
    }

    private TspXyProvider provider(ITmfTrace trace) {
        return DataProviderManager.getInstance().getDataProvider(trace, provider, TspXyProvider.class);
    }

    @Override
    protected TmfXYChartViewer createChartViewer(Composite parent) {
        return new TmfFilteredXYChartViewer(parent, new TmfXYChartSettings(null, xTitle, yTitle, 1), provider) {
            /** Trace Compass's default look for the series, with sextant's type and colour (a scatter has marks, no line). */
            @Override
            public OutputElementStyle getSeriesStyle(Long seriesId) {
                OutputElementStyle base = super.getSeriesStyle(seriesId);
                ITmfTrace trace = getTrace();
                TspXyProvider p = trace == null ? null : provider(trace);
                if (p == null) {
                    return base;
                }
                return p.seriesStyle(seriesId).map(s -> {
                    Map<String, Object> values = new HashMap<>(base.getStyleValues());
                    values.putAll(s.getStyleValues());
                    if (StyleProperties.SeriesType.SCATTER.equals(values.get(StyleProperties.SERIES_TYPE))) {
                        values.put(StyleProperties.SERIES_STYLE, StyleProperties.SeriesStyle.NONE);
                        values.putIfAbsent(StyleProperties.SYMBOL_TYPE, StyleProperties.SymbolType.CIRCLE);
                        if (!s.getStyleValues().containsKey(StyleProperties.COLOR)) {
                            // sextant colours the misses only: the other points in a neutral blue, not in
                            // whatever Trace Compass's palette gives (red for the first series).
                            values.put(StyleProperties.COLOR, NEUTRAL);
                        }
                    }
                    return new OutputElementStyle(base.getParentKey(), values);
                }).orElse(base);
            }
        };
    }

    @Override
    protected TmfViewer createLeftChildViewer(Composite parent) {
        return new AbstractSelectTreeViewer2(parent, 1, provider) {
            @Override
            protected ITmfTreeColumnDataProvider getColumnDataProvider() {
                return () -> List.of(new TmfTreeColumnData("Series"), new TmfTreeColumnData("Legend"));
            }

            @Override
            protected void contentChanged(ITmfTreeViewerEntry root) {
                super.contentChanged(root);
                ITmfTrace trace = getTrace();
                if (root == null || trace == null || getTriStateFilteredCheckboxTree().getCheckedElements().length > 0) {
                    return;
                }
                Set<Long> defaults = provider(trace) == null ? Set.of() : provider(trace).defaults();
                List<Object> checked = new ArrayList<>();
                collect(root, defaults, checked);
                if (!checked.isEmpty()) {
                    setCheckedElements(checked.toArray());
                }
            }
        };
    }

    private static void collect(ITmfTreeViewerEntry entry, Set<Long> ids, List<Object> out) {
        if (entry instanceof TmfGenericTreeEntry<?> g && ids.contains(g.getModel().getId())) {
            out.add(entry);
        }
        for (ITmfTreeViewerEntry child : entry.getChildren()) {
            collect(child, ids, out);
        }
    }

    /** The chart and its series tree are read again when the trace's outputs change (a new model). */
    @Override
    public void createPartControl(Composite parent) {
        super.createPartControl(parent);
        SextantService.get().followOutputs(getChartViewer().getControl(), this::getTrace, trace -> {
            getChartViewer().loadTrace(trace);
            if (getLeftChildViewer() instanceof AbstractSelectTreeViewer2 tree) {
                tree.loadTrace(trace);
            }
        });
    }
}
