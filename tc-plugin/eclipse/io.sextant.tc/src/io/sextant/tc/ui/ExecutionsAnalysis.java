package io.sextant.tc.ui;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.tracecompass.analysis.timing.core.segmentstore.AbstractSegmentStoreAnalysisModule;
import org.eclipse.tracecompass.segmentstore.core.ISegment;
import org.eclipse.tracecompass.segmentstore.core.ISegmentStore;
import org.eclipse.tracecompass.tmf.core.analysis.IAnalysisModule;
import org.eclipse.tracecompass.tmf.core.exceptions.TmfAnalysisException;
import org.eclipse.tracecompass.tmf.core.segment.ISegmentAspect;
import org.eclipse.tracecompass.tmf.core.trace.ITmfTrace;
import org.eclipse.tracecompass.tmf.core.trace.TmfTraceUtils;

import io.sextant.tc.DerivedOutputs;
import io.sextant.tc.SextantException;
import io.sextant.tc.Sidecar;
import io.sextant.tc.ViewFeeder;
import io.sextant.tc.ViewSink;
import io.sextant.tc.protocol.OutputDescriptor;
import io.sextant.tc.protocol.StatesModel;
import io.sextant.tc.protocol.TableColumn;
import io.sextant.tc.protocol.TableLines;
import io.sextant.tc.protocol.TreeModel;
import io.sextant.tc.protocol.XyModel;

/**
 * The executions of the trace's execution model as a Trace Compass segment
 * store, read from sextant's executions table: Trace Compass's latency views
 * (table, scatter, density, statistics) show them like any latency
 * analysis. Run again each time a model is posted.
 */
public final class ExecutionsAnalysis extends AbstractSegmentStoreAnalysisModule {

    public static final String ID = "io.sextant.tc.executions";

    private volatile List<String> columns = List.of();

    /** Runs the trace's analysis again (a new model was posted). */
    public static void rerun(ITmfTrace trace) {
        ExecutionsAnalysis m = of(trace);
        if (m != null) {
            m.resetAnalysis();
            m.schedule();
        }
    }

    public static ExecutionsAnalysis of(ITmfTrace trace) {
        return TmfTraceUtils.getAnalysisModuleOfClass(trace, ExecutionsAnalysis.class, ID);
    }

    @Override
    protected String getDataFileName() {
        // Kept in memory: sextant keeps the executions, and a new model replaces them.
        return null;
    }

    @Override
    protected boolean buildAnalysisSegments(ISegmentStore<ISegment> store, IProgressMonitor monitor)
            throws TmfAnalysisException {
        ITmfTrace trace = getTrace();
        if (trace == null) {
            return false;
        }
        Sidecar sidecar = SextantService.get().sidecar();
        String key = SextantService.key(trace);
        Optional<String> exp = sidecar.experiment(key);
        Optional<DerivedOutputs> model = sidecar.model(key);
        if (exp.isEmpty() || model.isEmpty()) {
            // No model yet: an empty store; posting one runs the analysis again.
            return true;
        }
        try {
            new ViewFeeder(sidecar.connection().tsp(), sidecar.timeout()).table(exp.get(), model.get().table(), 1000,
                    new ViewSink() {
                        @Override
                        public void table(OutputDescriptor output, List<TableColumn> cols, List<TableLines.Line> lines) {
                            List<String> names = cols.stream().map(TableColumn::name).toList();
                            columns = names;
                            int start = names.indexOf("Start");
                            int end = names.indexOf("End");
                            int thread = names.indexOf("Command");
                            for (TableLines.Line l : lines) {
                                List<String> cells = l.cells().stream().map(TableLines.Cell::content).toList();
                                store.add(new ExecutionSegment(Long.parseLong(cells.get(start)),
                                        Long.parseLong(cells.get(end)), thread < 0 ? "" : cells.get(thread), cells));
                            }
                        }

                        @Override
                        public void timeGraph(OutputDescriptor output, TreeModel tree, StatesModel states) {
                            throw new UnsupportedOperationException("a table is read here");
                        }

                        @Override
                        public void xy(OutputDescriptor output, TreeModel tree, XyModel xy) {
                            throw new UnsupportedOperationException("a table is read here");
                        }
                    });
        } catch (SextantException | NumberFormatException | IndexOutOfBoundsException e) {
            throw new TmfAnalysisException("reading sextant's executions of " + trace.getName() + ": " + e.getMessage());
        }
        return true;
    }

    @Override
    protected void canceling() {
        // One request at a time, each bounded by the request timeout.
    }

    /** sextant's columns beyond start, end and duration (which Trace Compass shows itself). */
    @Override
    public Iterable<ISegmentAspect> getSegmentAspects() {
        List<ISegmentAspect> aspects = new ArrayList<>();
        List<String> names = columns;
        for (int i = 0; i < names.size(); i++) {
            String n = names.get(i);
            if (!List.of("Start", "End", "Duration", "Command").contains(n)) {
                aspects.add(new CellAspect(n, i));
            }
        }
        return aspects;
    }

    /** A column of sextant's table as a segment aspect (sorted as numbers when they are). */
    private record CellAspect(String name, int column) implements ISegmentAspect {

        @Override
        public String getName() {
            return name;
        }

        @Override
        public String getHelpText() {
            return name + " (from sextant)";
        }

        @Override
        public Comparator<?> getComparator() {
            return Comparator.comparing((ISegment s) -> resolve(s), ExecutionsAnalysis::compareCells);
        }

        @Override
        public Object resolve(ISegment segment) {
            return segment instanceof ExecutionSegment x ? x.cell(column) : null;
        }
    }

    private static int compareCells(Object a, Object b) {
        String x = String.valueOf(a);
        String y = String.valueOf(b);
        try {
            return Long.compare(Long.parseLong(x), Long.parseLong(y));
        } catch (NumberFormatException e) {
            return x.compareTo(y);
        }
    }

    @Override
    protected Iterable<IAnalysisModule> getDependentAnalyses() {
        return List.of();
    }
}
