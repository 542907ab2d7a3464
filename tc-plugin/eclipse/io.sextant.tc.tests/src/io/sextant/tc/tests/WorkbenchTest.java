package io.sextant.tc.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.LongSummaryStatistics;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.eclipse.core.runtime.NullProgressMonitor;
import org.eclipse.tracecompass.common.core.format.SubSecondTimeWithUnitFormat;
import org.eclipse.jface.action.IAction;
import org.eclipse.jface.dialogs.IDialogConstants;
import org.eclipse.jface.viewers.StructuredSelection;
import org.eclipse.swt.SWT;
import org.eclipse.swt.widgets.Button;
import org.eclipse.swt.widgets.Event;
import org.eclipse.swt.graphics.Rectangle;
import org.eclipse.swt.widgets.Shell;
import org.eclipse.swt.widgets.Table;
import org.eclipse.swt.widgets.TableColumn;
import org.eclipse.swt.widgets.Text;
import org.eclipse.tracecompass.internal.provisional.tmf.core.model.table.VirtualTableLine;
import org.eclipse.tracecompass.analysis.timing.ui.views.segmentstore.table.SegmentStoreTableView;
import org.eclipse.tracecompass.analysis.timing.ui.views.segmentstore.scatter.SegmentStoreScatterView2;
import org.eclipse.tracecompass.segmentstore.core.ISegment;
import org.eclipse.tracecompass.tmf.core.dataprovider.DataProviderManager;
import org.eclipse.tracecompass.tmf.core.dataprovider.DataProviderParameterUtils;
import org.eclipse.tracecompass.tmf.core.dataprovider.DataType;
import org.eclipse.tracecompass.tmf.core.model.IOutputStyleProvider;
import org.eclipse.tracecompass.tmf.core.model.OutputElementStyle;
import org.eclipse.tracecompass.tmf.core.model.timegraph.ITimeGraphArrow;
import org.eclipse.tracecompass.tmf.core.model.timegraph.ITimeGraphDataProvider;
import org.eclipse.tracecompass.tmf.core.model.timegraph.ITimeGraphRowModel;
import org.eclipse.tracecompass.tmf.core.model.timegraph.ITimeGraphState;
import org.eclipse.tracecompass.tmf.core.model.timegraph.TimeGraphEntryModel;
import org.eclipse.tracecompass.tmf.core.model.tree.TmfTreeDataModel;
import org.eclipse.tracecompass.tmf.core.model.tree.TmfTreeModel;
import org.eclipse.tracecompass.tmf.core.model.xy.ISeriesModel;
import org.eclipse.tracecompass.tmf.core.response.ITmfResponse;
import org.eclipse.tracecompass.tmf.core.response.TmfModelResponse;
import org.eclipse.tracecompass.tmf.core.signal.TmfSelectionRangeUpdatedSignal;
import org.eclipse.tracecompass.tmf.core.signal.TmfSignalHandler;
import org.eclipse.tracecompass.tmf.core.signal.TmfSignalManager;
import org.eclipse.tracecompass.tmf.core.signal.TmfTraceClosedSignal;
import org.eclipse.tracecompass.tmf.core.signal.TmfTraceOpenedSignal;
import org.eclipse.tracecompass.tmf.core.signal.TmfTraceSelectedSignal;
import org.eclipse.tracecompass.tmf.core.signal.TmfWindowRangeUpdatedSignal;
import org.eclipse.tracecompass.tmf.core.timestamp.TmfTimeRange;
import org.eclipse.tracecompass.tmf.core.trace.TmfTraceManager;
import org.eclipse.tracecompass.tmf.ctf.core.event.CtfTmfEvent;
import org.eclipse.tracecompass.tmf.ui.widgets.timegraph.model.TimeGraphEntry;
import org.eclipse.tracecompass.tmf.ctf.core.trace.CtfTmfTrace;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

import io.sextant.tc.Rpc;
import io.sextant.tc.Sidecar;
import io.sextant.tc.protocol.Experiment;
import io.sextant.tc.protocol.ExperimentRef;
import io.sextant.tc.ui.Activator;
import io.sextant.tc.ui.ComparisonView;
import io.sextant.tc.ui.ComplementView;
import io.sextant.tc.ui.CriticalPathView;
import io.sextant.tc.ui.ExecutionEntryModel;
import io.sextant.tc.ui.ExecutionsAnalysis;
import io.sextant.tc.ui.ExecutionsTableView;
import io.sextant.tc.ui.FacilitiesView;
import io.sextant.tc.ui.ModelActions;
import io.sextant.tc.ui.ModelDialog;
import io.sextant.tc.ui.Preferences;
import io.sextant.tc.ui.SextantOutput;
import io.sextant.tc.ui.SextantService;
import io.sextant.tc.ui.TableColumnModel;
import io.sextant.tc.ui.TaskResponseView;
import io.sextant.tc.ui.TasksView;
import io.sextant.tc.ui.TimePerspectiveView;
import io.sextant.tc.ui.TspXyProvider;

/**
 * The plugin in a real Trace Compass 6.2 workbench against the real
 * {@code sextant serve --stdio}: fixtures/scenario-a opened in Trace
 * Compass, the scenario's model defined, the views fed and compared with
 * {@code sextant analyze}; the time sync with a second client of the same
 * sidecar; the priority inversion in the Critical Path Complement; the
 * sidecar killed and back; the real-time tasks view, opening rt_high's jobs
 * in the Comparison View. The tests run in order on one trace. The last
 * one leaves the sidecar's pid in target/sidecar.pid: verify.sh checks,
 * after the workbench has exited, that no such process is left.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class WorkbenchTest {

    private static final Duration T = Duration.ofSeconds(120);

    private static CtfTmfTrace trace;
    private static int port;
    private static JsonObject reference;

    /** Selection signals that reached Trace Compass, whoever sent them. */
    public static final class SelectionRecorder {
        final List<TmfSelectionRangeUpdatedSignal> seen = new CopyOnWriteArrayList<>();

        @TmfSignalHandler
        public void selectionRangeUpdated(TmfSelectionRangeUpdatedSignal s) {
            seen.add(s);
        }
    }

    private static final SelectionRecorder RECORDER = new SelectionRecorder();

    @BeforeAll
    static void openTheFixture() throws Exception {
        port = Sextant.freePort();
        var prefs = Activator.getDefault().getPreferenceStore();
        prefs.setValue(Preferences.BINARY, Sextant.binary().toString());
        prefs.setValue(Preferences.SERVE_OPTIONS, "--port " + port);
        reference = Sextant.analyze();
        TmfSignalManager.register(RECORDER);
        trace = new CtfTmfTrace();
        trace.initTrace(null, Sextant.fixture().toString(), CtfTmfEvent.class);
        Workbench.ui(() -> {
            TmfSignalManager.dispatchSignal(new TmfTraceOpenedSignal(WorkbenchTest.class, trace, null));
            TmfSignalManager.dispatchSignal(new TmfTraceSelectedSignal(WorkbenchTest.class, trace));
        });
    }

    @AfterAll
    static void closeTheTrace() {
        TmfSignalManager.deregister(RECORDER);
    }

    private static SextantService service() {
        return SextantService.get();
    }

    private static Sidecar sidecar() {
        return service().sidecar();
    }

    private static String exp() {
        return service().experiment(trace).orElseThrow();
    }

    @Test
    @Order(1)
    void openingATraceOpensItInTheSidecar() {
        Workbench.await("the trace opened in sextant", T, () -> service().experiment(trace).isPresent());
        Experiment e = Rpc.await(sidecar().connection().tsp().experiment(new ExperimentRef(exp())), T, "get");
        assertEquals(3533, e.nbEvents(), "the fixture's events (sextant dump counts 3533)");
        assertEquals(Sextant.fixture().toString(), e.traces().get(0).path());
        assertEquals(trace.getStartTime().toNanos(), e.start(), "Trace Compass and sextant agree on time");
    }

    private static ITimeGraphDataProvider<TimeGraphEntryModel> provider(String id) {
        @SuppressWarnings("unchecked")
        ITimeGraphDataProvider<TimeGraphEntryModel> p = DataProviderManager.getInstance().getDataProvider(trace, id,
                ITimeGraphDataProvider.class);
        assertNotNull(p, "no data provider " + id);
        return p;
    }

    private static List<TimeGraphEntryModel> tree(ITimeGraphDataProvider<TimeGraphEntryModel> p) {
        TmfModelResponse<TmfTreeModel<TimeGraphEntryModel>> r = p.fetchTree(Map.of(), new NullProgressMonitor());
        assertEquals(ITmfResponse.Status.COMPLETED, r.getStatus(), r.getStatusMessage());
        return r.getModel().getEntries();
    }

    private static List<ITimeGraphRowModel> rows(ITimeGraphDataProvider<TimeGraphEntryModel> p,
            List<TimeGraphEntryModel> entries) {
        long start = entries.stream().mapToLong(TimeGraphEntryModel::getStartTime).min().orElseThrow();
        long end = entries.stream().mapToLong(TimeGraphEntryModel::getEndTime).max().orElseThrow();
        Map<String, Object> q = new HashMap<>();
        q.put(DataProviderParameterUtils.REQUESTED_TIME_KEY, times(start, end, 1000));
        q.put(DataProviderParameterUtils.REQUESTED_ITEMS_KEY,
                entries.stream().map(TimeGraphEntryModel::getId).toList());
        var r = p.fetchRowModel(q, new NullProgressMonitor());
        assertEquals(ITmfResponse.Status.COMPLETED, r.getStatus(), r.getStatusMessage());
        return r.getModel().getRows();
    }

    private static List<JsonObject> referenceExecutions() {
        List<JsonObject> xs = new ArrayList<>();
        for (JsonElement e : reference.getAsJsonArray("executions")) {
            xs.add(e.getAsJsonObject());
        }
        return xs;
    }

    /**
     * The model defined as a user does: the Comparison View's toolbar opens the dialog, a model the schema
     * refuses keeps OK disabled (an empty list of events, a deadline in an unknown unit), the same model with
     * times in units enables it, the scenario's model too, and a real click on OK posts it.
     */
    private static void defineTheModelInTheDialog(ComparisonView view) throws Exception {
        String good = Files.readString(Sextant.model());
        IAction define = Workbench.toolbarAction(view, ComparisonView.DEFINE);
        Workbench.display().asyncExec(define::run);
        Shell dialog = Workbench.shell(ModelDialog.TITLE, T);
        Text editor = Workbench.find(dialog, Text.class).stream()
                .filter(t -> Workbench.ui(() -> (t.getStyle() & SWT.MULTI) != 0)).findFirst()
                .orElseThrow(() -> new AssertionError("no JSON editor in the dialog"));
        Button ok = Workbench.button(dialog, IDialogConstants.OK_LABEL);
        Workbench.ui(() -> editor.setText("{\"name\": \"bad\", \"events\": []}"));
        assertFalse(Workbench.ui(() -> ok.getEnabled()), "OK enabled for a model without events");
        Workbench.screenshot("model-dialog", dialog);
        // Times with units: the served schema's duration is an integer of ns or a string with a unit.
        String units = Files.readString(Sextant.repo().resolve("schemas/examples/periodic-rt_high-units.json"));
        Workbench.ui(() -> editor.setText(units));
        assertTrue(Workbench.ui(() -> ok.getEnabled()), "OK disabled for a deadline of \"1ms\"");
        Workbench.ui(() -> editor.setText(units.replace("\"1ms\"", "\"1 parsec\"")));
        assertFalse(Workbench.ui(() -> ok.getEnabled()), "OK enabled for a deadline of \"1 parsec\"");
        Workbench.ui(() -> editor.setText(good));
        assertTrue(Workbench.ui(() -> ok.getEnabled()), "OK disabled for the scenario's model");
        Workbench.click(ok);
        Workbench.await("the dialog closed", T, () -> Workbench.ui(() -> dialog.isDisposed()));
        Workbench.await("the model's executions", T, () -> sidecar().model(SextantService.key(trace)).isPresent());
    }

    /** {@code n + 1} times evenly spread over [start, end], as Trace Compass's views ask. */
    private static List<Long> times(long start, long end, int n) {
        List<Long> times = new ArrayList<>();
        for (int i = 0; i <= n; i++) {
            times.add(start + (end - start) * i / n);
        }
        return times;
    }

    @Test
    @Order(2)
    void theComparisonViewShowsTheExecutionsAnalyzeFinds() throws Exception {
        ComparisonView view = (ComparisonView) Workbench.show(ComparisonView.ID, null);
        defineTheModelInTheDialog(view);
        ITimeGraphDataProvider<TimeGraphEntryModel> p = provider("io.sextant.tc.comparison");
        List<TimeGraphEntryModel> entries = tree(p);
        // The rows: one per execution, with its absolute start, duration and thread, as analyze says.
        Set<String> shown = new TreeSet<>();
        for (TimeGraphEntryModel e : entries) {
            ExecutionEntryModel x = (ExecutionEntryModel) e;
            shown.add(x.absoluteStart() + "+" + (x.absoluteEnd() - x.absoluteStart()) + "@" + x.tid());
            assertEquals(0, e.getStartTime(), "rows start together, at 0 on the view's axis of durations");
        }
        Set<String> expected = referenceExecutions().stream().map(x -> x.get("start").getAsLong() + "+"
                + x.get("duration").getAsLong() + "@" + x.get("tid").getAsLong())
                .collect(Collectors.toCollection(TreeSet::new));
        assertEquals(expected, shown);
        assertTrue(expected.size() > 10, "the scenario has many jobs: " + expected.size());
        // Each row has states (running, blocked...) drawn from sextant's styles.
        List<ITimeGraphRowModel> rows = rows(p, entries);
        assertEquals(entries.size(), rows.size());
        assertTrue(rows.stream().allMatch(r -> !r.getStates().isEmpty()), "every execution has states");
        // The tooltip of a row is sextant's: the execution's absolute start, duration and thread.
        ExecutionEntryModel first = (ExecutionEntryModel) entries.get(0);
        Map<String, String> tip = p.fetchTooltip(Map.of(DataProviderParameterUtils.REQUESTED_TIME_KEY, List.of(1L),
                DataProviderParameterUtils.REQUESTED_ITEMS_KEY, List.of(first.getId())), new NullProgressMonitor())
                .getModel();
        assertEquals(Long.toString(first.absoluteStart()), tip.get("Start"), tip.toString());
        assertEquals(Long.toString(first.absoluteEnd() - first.absoluteStart()), tip.get("Duration (ns)"));
        assertEquals(Long.toString(first.tid()), tip.get("TID"));
        assertTrue(tip.containsKey("State"), "the state at the pointer: " + tip);
        // The view itself built its entries from the provider.
        Workbench.await("the Comparison View's rows", T,
                () -> Workbench.ui(() -> view.getTimeGraphViewer().getExpandedElements().length) == entries.size());
        // It shows the longest execution whole, on its axis of durations, with the states of the rows in
        // sight drawn (Trace Compass fetches those of visible rows), the longest first.
        long longest = entries.stream().mapToLong(TimeGraphEntryModel::getEndTime).max().orElseThrow();
        Drawing whole = awaitDrawing(view, "the whole axis with the rows' states", T,
                d -> d.time0() == 0 && d.time1() >= longest && d.longestFirst(longest) && d.allDrawn());
        // Zoomed onto the end of the longest execution, past every other row: its states are drawn, and the
        // rows in sight that end before have none (the zoom left them out)...
        long next = entries.stream().mapToLong(TimeGraphEntryModel::getEndTime).filter(e -> e < longest).max()
                .orElseThrow(() -> new AssertionError("every execution is as long as the longest"));
        long z0 = next + 1;
        assertTrue(whole.ends().stream().anyMatch(e -> e < z0), "no row in sight is left out by the zoom: " + whole);
        zoom(view, z0, longest, "the longest execution's end zoomed on", d -> d.longestFirst(longest)
                && d.drawn().get(0)
                && IntStream.range(0, d.ends().size()).allMatch(i -> d.ends().get(i) >= z0 || !d.drawn().get(i)));
        // ...and back out to the whole axis: every row in sight is drawn again (Trace Compass 6.2 would
        // skip the rows the zoom left out, their sampling still that of this window: SextantTimeGraphView).
        zoom(view, whole.time0(), whole.time1(), "the whole axis again, every row in sight drawn",
                d -> d.longestFirst(longest) && d.allDrawn());
        Path png = Workbench.screenshot("comparison", view);
        assertTrue(Files.size(png) > 10_000, png + " is too small to show anything");
    }

    private static final Duration ZOOM = Duration.ofSeconds(30);

    /**
     * What a time-graph view draws: its window, and for each row in sight (top to bottom, whole rows) its end
     * and whether it has states to draw (zoomed events, which Trace Compass fetches for the rows in sight).
     */
    private record Drawing(long time0, long time1, List<Long> ends, List<Boolean> drawn) {
        boolean allDrawn() {
            return !drawn.isEmpty() && !drawn.contains(false);
        }

        boolean longestFirst(long longest) {
            return !ends.isEmpty() && ends.get(0) == longest;
        }
    }

    private static Drawing drawing(ComparisonView view) {
        return Workbench.ui(() -> {
            var viewer = view.getTimeGraphViewer();
            var control = viewer.getTimeGraphControl();
            int top = control.getTopIndex();
            int last = Math.min(control.getExpandedElementCount(), top + Math.max(1, control.countPerPage()));
            List<Long> ends = new ArrayList<>();
            List<Boolean> drawn = new ArrayList<>();
            for (int i = top; i < last; i++) {
                if (control.getExpandedElement(i) instanceof TimeGraphEntry row) {
                    ends.add(row.getEndTime());
                    drawn.add(row.hasZoomedEvents());
                }
            }
            return new Drawing(viewer.getTime0(), viewer.getTime1(), ends, drawn);
        });
    }

    /** Waits until the view's drawing is {@code done}; fails with what it drew last. */
    private static Drawing awaitDrawing(ComparisonView view, String what, Duration timeout, Predicate<Drawing> done) {
        try {
            Workbench.await(what, timeout, () -> done.test(drawing(view)));
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + ": " + drawing(view), e);
        }
        return drawing(view);
    }

    /**
     * Zooms the view on [t0, t1] as a user does (the viewer's window, then Trace Compass's zoom on it) and
     * waits until it draws {@code done} there. A refresh still coming from the view's build puts the whole
     * axis back (the Comparison View's own window): the zoom is then made again.
     */
    private static Drawing zoom(ComparisonView view, long t0, long t1, String what, Predicate<Drawing> done) {
        Runnable zoom = () -> Workbench.ui(() -> view.getTimeGraphViewer().setStartFinishTimeNotify(t0, t1));
        zoom.run();
        return awaitDrawing(view, what, ZOOM, d -> {
            if (d.time0() != t0 || d.time1() != t1) {
                zoom.run();
                return false;
            }
            return done.test(d);
        });
    }

    @Test
    @Order(3)
    void theTimePerspectiveShowsEachExecutionsDurationAtItsStart() throws Exception {
        TspXyProvider p = DataProviderManager.getInstance().getDataProvider(trace,
                SextantOutput.TIME_PERSPECTIVE.providerId(), TspXyProvider.class);
        assertNotNull(p, "no Time Perspective provider");
        var tree = p.fetchTree(Map.of(), new NullProgressMonitor());
        assertEquals(ITmfResponse.Status.COMPLETED, tree.getStatus(), tree.getStatusMessage());
        Map<String, Long> ids = tree.getModel().getEntries().stream()
                .collect(Collectors.toMap(TmfTreeDataModel::getName, TmfTreeDataModel::getId));
        assertTrue(ids.keySet().containsAll(List.of("duration", "deadline misses", "mean")), ids.toString());
        assertTrue(p.defaults().contains(ids.get("duration")), "the durations are shown by default");
        var xy = p.fetchXY(Map.of(DataProviderParameterUtils.REQUESTED_TIME_KEY,
                times(trace.getStartTime().toNanos(), trace.getEndTime().toNanos(), 10_000),
                DataProviderParameterUtils.REQUESTED_ITEMS_KEY, List.copyOf(ids.values())), new NullProgressMonitor());
        assertEquals(ITmfResponse.Status.COMPLETED, xy.getStatus(), xy.getStatusMessage());
        Map<String, ISeriesModel> series = xy.getModel().getSeriesData().stream()
                .collect(Collectors.toMap(ISeriesModel::getName, s -> s));
        // Every execution at its start with its duration, the misses apart: what analyze finds.
        assertEquals(points(referenceExecutions()), points(series.get("duration")));
        assertEquals(points(referenceExecutions().stream().filter(x -> x.get("deadline_miss").getAsBoolean())
                .toList()), points(series.get("deadline misses")));
        assertEquals(ISeriesModel.DisplayType.SCATTER, series.get("duration").getDisplayType());
        assertEquals(DataType.DURATION, series.get("duration").getYAxisDescription().getDataType());
        // The view draws them over the window: all of the trace, a point per execution.
        TimePerspectiveView view = (TimePerspectiveView) Workbench.show(TimePerspectiveView.ID, null);
        Workbench.ui(() -> TmfSignalManager.dispatchSignal(new TmfWindowRangeUpdatedSignal(WorkbenchTest.class,
                new TmfTimeRange(trace.getStartTime(), trace.getEndTime()), trace)));
        int n = referenceExecutions().size();
        Supplier<String> drawn = () -> Workbench.ui(() -> Arrays.stream(
                view.getChartViewer().getSwtChart().getSeriesSet().getSeries())
                .map(s -> s.getId() + ":" + (s.getYSeries() == null ? 0 : s.getYSeries().length))
                .collect(Collectors.joining(", ")));
        try {
            Workbench.await("the Time Perspective's points", Duration.ofSeconds(30),
                    () -> drawn.get().matches("(.*, )?[^,]*:" + n + "(, .*)?"));
        } finally {
            Path png = Workbench.screenshot("time-perspective", view);
            assertTrue(Files.size(png) > 10_000, png + " is too small to show anything");
        }
        assertTrue(drawn.get().contains(":" + n), "series drawn: " + drawn.get());
    }

    private static Set<String> points(List<JsonObject> executions) {
        return executions.stream().map(x -> x.get("start").getAsLong() + ":" + x.get("duration").getAsLong())
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private static Set<String> points(ISeriesModel s) {
        assertNotNull(s, "no such series");
        Set<String> out = new TreeSet<>();
        for (int i = 0; i < s.getXAxis().length; i++) {
            out.add(s.getXAxis()[i] + ":" + (long) s.getData()[i]);
        }
        return out;
    }

    @Test
    @Order(4)
    void theExecutionsTableListsSortsAndSelectsTheExecutions() throws Exception {
        ExecutionsTableView view = (ExecutionsTableView) Workbench.show(ExecutionsTableView.ID, null);
        List<JsonObject> ref = referenceExecutions();
        Workbench.await("the executions table's lines", T,
                () -> Workbench.ui(() -> view.viewer().getTable().getItemCount()) == ref.size());
        List<String> names = view.columns().stream().map(TableColumnModel::getName).toList();
        int start = names.indexOf("Start");
        int end = names.indexOf("End");
        int duration = names.indexOf("Duration");
        assertTrue(start >= 0 && end >= 0 && duration >= 0, "columns: " + names);
        // The lines behind the virtual table, in its order (sorting sorts them in place): each execution's
        // range, as analyze finds them.
        Supplier<List<VirtualTableLine>> input = () -> Workbench.ui(() -> {
            @SuppressWarnings("unchecked")
            List<VirtualTableLine> in = (List<VirtualTableLine>) view.viewer().getInput();
            return List.copyOf(in);
        });
        List<VirtualTableLine> lines = input.get();
        assertEquals(ref.stream().map(x -> x.get("start").getAsLong() + "-" + x.get("end").getAsLong())
                .collect(Collectors.toCollection(TreeSet::new)), lines.stream().map(l -> l.getCells().get(start)
                .getContent() + "-" + l.getCells().get(end).getContent()).collect(Collectors.toCollection(TreeSet::new)));
        // A click on a column's header sorts by it, as numbers (sextant sends them longest first: Start, then
        // Duration, so that each click changes the order).
        for (int column : new int[] { start, duration }) {
            Workbench.ui(() -> view.viewer().getTable().getColumn(column).notifyListeners(SWT.Selection, new Event()));
            List<Long> values = input.get().stream()
                    .map(l -> Long.parseLong(l.getCells().get(column).getContent())).toList();
            assertTrue(values.equals(values.stream().sorted().toList())
                    || values.equals(values.stream().sorted(Comparator.reverseOrder()).toList()),
                    "sorted by " + names.get(column) + " as numbers: " + values);
        }
        LongSummaryStatistics d = ref.stream().mapToLong(x -> x.get("duration").getAsLong()).summaryStatistics();
        Path png = Workbench.screenshot("executions", view);
        assertTrue(Files.size(png) > 10_000, png + " is too small to show anything");
        // Selecting a line (the shortest execution) selects its range in every view.
        VirtualTableLine shortest = lines.stream().filter(l -> Long.parseLong(l.getCells().get(duration)
                .getContent()) == d.getMin()).findFirst().orElseThrow();
        long s0 = Long.parseLong(shortest.getCells().get(start).getContent());
        long e0 = Long.parseLong(shortest.getCells().get(end).getContent());
        RECORDER.seen.clear();
        Workbench.ui(() -> view.viewer().setSelection(new StructuredSelection(shortest), true));
        Workbench.await("the line's range selected", T, () -> RECORDER.seen.stream()
                .anyMatch(s -> s.getBeginTime().toNanos() == s0 && s.getEndTime().toNanos() == e0));
    }

    @Test
    @Order(5)
    void theExecutionsAreASegmentStoreForTraceCompassLatencyViews() throws Exception {
        ExecutionsAnalysis m = ExecutionsAnalysis.of(trace);
        assertNotNull(m, "the analysis module is registered for the trace");
        Workbench.await("the segment store", T, () -> m.waitForCompletion() && m.getSegmentStore() != null
                && m.getSegmentStore().size() == referenceExecutions().size());
        List<ISegment> segments = new ArrayList<>(m.getSegmentStore());
        segments.sort(Comparator.comparingLong(ISegment::getStart));
        List<JsonObject> ref = referenceExecutions();
        ref.sort(Comparator.comparingLong(x -> x.get("start").getAsLong()));
        for (int i = 0; i < ref.size(); i++) {
            assertEquals(ref.get(i).get("start").getAsLong(), segments.get(i).getStart());
            assertEquals(ref.get(i).get("end").getAsLong(), segments.get(i).getEnd());
        }
        assertNotNull(Workbench.show(SegmentStoreScatterView2.ID, ExecutionsAnalysis.ID));
        Workbench.screenshot("latency-table", Workbench.show(SegmentStoreTableView.ID, ExecutionsAnalysis.ID));
    }

    @Test
    @Order(6)
    void selectingAnExecutionSelectsItsRangeEverywhere() throws Exception {
        ComparisonView view = (ComparisonView) Workbench.show(ComparisonView.ID, null);
        SseClient other = new SseClient(port);
        other.listen();
        assertNotNull(other.next("sextant/connected", T), "the second client connected");
        // The longest execution, selected in the Comparison View as a user would.
        JsonObject longest = referenceExecutions().stream()
                .max(Comparator.comparingLong(x -> x.get("duration").getAsLong())).orElseThrow();
        long start = longest.get("start").getAsLong();
        long end = longest.get("end").getAsLong();
        RECORDER.seen.clear();
        // The rows come longest first: the first row, selected as the Down key does.
        Workbench.ui(() -> view.getTimeGraphViewer().selectNextItem());
        assertEquals(start, Workbench.ui(() -> view.selected().orElseThrow().absoluteStart()));
        // Trace Compass's views (Control Flow, Resources) follow the selection signal...
        Workbench.await("the selection signal", T, () -> RECORDER.seen.stream().anyMatch(s -> s.getBeginTime()
                .toNanos() == start && s.getEndTime().toNanos() == end));
        Workbench.await("Trace Compass's selection", T, () -> TmfTraceManager.getInstance().getTraceContext(trace)
                .getSelectionRange().getStartTime().toNanos() == start);
        // ...and the second client sees it, from Trace Compass.
        SseClient.Event e = other.next("sextant/selectionChanged", T);
        assertNotNull(e, "the selection reached the second client");
        assertEquals(start, e.data().get("start").getAsLong());
        assertEquals(end, e.data().get("end").getAsLong());
        assertEquals("trace-compass", e.data().get("source").getAsString());
        // A selection made there comes back as a Trace Compass signal...
        RECORDER.seen.clear();
        long s2 = start + 1000;
        long e2 = end - 1000;
        other.postSelection(exp(), s2, e2, "vscode");
        Workbench.await("the other client's selection as a signal", T,
                () -> RECORDER.seen.stream().anyMatch(s -> s.getBeginTime().toNanos() == s2
                        && s.getEndTime().toNanos() == e2 && s.getTrace() == trace));
        assertEquals(s2, TmfTraceManager.getInstance().getTraceContext(trace).getSelectionRange().getStartTime()
                .toNanos());
        // ...and is not echoed back to the server: nothing from trace-compass follows.
        SseClient.Event echo = other.next("sextant/selectionChanged", Duration.ofSeconds(2));
        assertNull(echo, "echo of the other client's selection: " + (echo == null ? "" : echo.data()));
    }

    @Test
    @Order(7)
    void theComplementShowsTheInversionOfScenarioA() throws Exception {
        JsonObject longest = referenceExecutions().stream()
                .max(Comparator.comparingLong(x -> x.get("duration").getAsLong())).orElseThrow();
        ModelActions.explainExecution(trace, "longest", longest.get("tid").getAsLong(),
                longest.get("start").getAsLong(), longest.get("end").getAsLong());
        var facilities = Workbench.show(FacilitiesView.ID, null);
        var complement = Workbench.show(ComplementView.ID, null);
        ITimeGraphDataProvider<TimeGraphEntryModel> p = provider("io.sextant.tc.complement");
        List<TimeGraphEntryModel> entries = tree(p);
        assertTrue(entries.stream().anyMatch(e -> e.getName().contains("rt_med2")),
                "rt_med2 ran while rt_high waited: " + entries.stream().map(TimeGraphEntryModel::getName).toList());
        List<ITimeGraphState> inversions = new ArrayList<>();
        for (ITimeGraphRowModel r : rows(p, entries)) {
            for (ITimeGraphState s : r.getStates()) {
                if (s.getStyle() != null && "inversion".equals(s.getStyle().getParentKey())) {
                    inversions.add(s);
                }
            }
        }
        assertFalse(inversions.isEmpty(), "the complement marks priority inversions");
        Map<String, OutputElementStyle> styles = ((IOutputStyleProvider) p)
                .fetchStyle(Map.of(), new NullProgressMonitor()).getModel().getStyles();
        assertEquals("#d62728", styles.get("inversion").getStyleValues().get("background-color"),
                "inversions in sextant's red");
        Path png = Workbench.screenshot("complement", complement);
        assertTrue(Files.size(png) > 10_000);
        Workbench.screenshot("facilities", Workbench.show(FacilitiesView.ID, null));
        assertNotNull(facilities);
        assertFalse(tree(provider("io.sextant.tc.facilities")).isEmpty(), "the facilities of the execution");
    }

    @Test
    @Order(8)
    void theCriticalPathHasTheWakeUpArrowsAndTooltips() throws Exception {
        JsonObject explained = Sextant.explainLongest();
        JsonObject execution = explained.getAsJsonObject("execution");
        long start = execution.get("start").getAsLong();
        long end = execution.get("end").getAsLong();
        // Where the path comes back to the late thread: its wake-up by the thread it waited for.
        long tid = execution.get("tid").getAsLong();
        List<JsonObject> path = new ArrayList<>();
        explained.getAsJsonArray("critical_path").forEach(x -> path.add(x.getAsJsonObject()));
        OptionalLong back = OptionalLong.empty();
        long waker = -1;
        for (int i = 1; i < path.size(); i++) {
            if (path.get(i).get("tid").getAsLong() == tid && path.get(i - 1).get("tid").getAsLong() != tid) {
                back = OptionalLong.of(path.get(i).get("start").getAsLong());
                waker = path.get(i - 1).get("tid").getAsLong();
            }
        }
        assertTrue(back.isPresent(), "the path leaves the late thread and comes back: " + path);
        var view = Workbench.show(CriticalPathView.ID, null);
        ITimeGraphDataProvider<TimeGraphEntryModel> p = provider("io.sextant.tc.criticalPath");
        Map<String, Long> ids = tree(p).stream().collect(Collectors.toMap(
                e -> e.getLabels().size() > 1 ? e.getLabels().get(1) : e.getName(), TimeGraphEntryModel::getId));
        var r = p.fetchArrows(Map.of(DataProviderParameterUtils.REQUESTED_TIME_KEY, times(start, end, 1000)),
                new NullProgressMonitor());
        assertEquals(ITmfResponse.Status.COMPLETED, r.getStatus(), r.getStatusMessage());
        List<ITimeGraphArrow> arrows = r.getModel();
        assertTrue(arrows.stream().allMatch(a -> a.getStartTime() >= start && a.getStartTime() <= end
                && a.getSourceId() != a.getDestinationId()), "arrows inside the execution, between rows");
        long wakerId = ids.get(Long.toString(waker));
        long lateId = ids.get(Long.toString(tid));
        long at = back.getAsLong();
        assertTrue(arrows.stream().anyMatch(a -> a.getSourceId() == wakerId && a.getDestinationId() == lateId
                && a.getStartTime() == at), "the wake-up of " + tid + " by " + waker + " at " + at + ": " + arrows
                .stream().map(a -> a.getSourceId() + "->" + a.getDestinationId() + "@" + a.getStartTime()).toList());
        // The late thread's tooltip names it, and the state under the pointer.
        Map<String, String> tip = p.fetchTooltip(Map.of(DataProviderParameterUtils.REQUESTED_TIME_KEY, List.of(start),
                DataProviderParameterUtils.REQUESTED_ITEMS_KEY, List.of(lateId)), new NullProgressMonitor()).getModel();
        assertTrue(tip.getOrDefault("Thread", "").contains(Long.toString(tid)), tip.toString());
        assertTrue(tip.containsKey("State"), tip.toString());
        Path png = Workbench.screenshot("critical-path", view);
        assertTrue(Files.size(png) > 10_000);
    }

    @Test
    @Order(9)
    void aKilledSidecarComesBackWithItsTraceAndModel() {
        OptionalLong before = sidecar().pid();
        assertTrue(before.isPresent());
        ProcessHandle.of(before.getAsLong()).orElseThrow().destroyForcibly();
        Workbench.await("a new sidecar", T, () -> sidecar().pid().isPresent()
                && sidecar().pid().getAsLong() != before.getAsLong()
                && sidecar().model(SextantService.key(trace)).isPresent());
        assertNotEquals(before.getAsLong(), sidecar().pid().getAsLong());
        // The same experiment, the model posted again: the Comparison View's rows are back.
        Workbench.await("the Comparison rows after the restart", T, () -> {
            try {
                return tree(provider("io.sextant.tc.comparison")).size() == referenceExecutions().size();
            } catch (AssertionError notYet) {
                return false; // the experiment is being re-opened
            }
        });
    }

    /**
     * The real-time tasks view lists the tasks {@code sextant tasks} finds, rt_high periodic with its period
     * (in Trace Compass's time format); a double-click on rt_high's line (real X events) posts the task's
     * model and opens the Comparison View on its jobs: those {@code sextant analyze} finds with that model.
     */
    @Test
    @Order(10)
    void theTasksViewListsRtHighAndOpensItsJobsInTheComparisonView() throws Exception {
        List<JsonObject> ref = Sextant.tasks();
        JsonObject rtHigh = ref.stream().filter(t -> "rt_high".equals(t.get("comm").getAsString())).findFirst()
                .orElseThrow(() -> new AssertionError("sextant tasks found no rt_high: " + ref));
        TasksView view = (TasksView) Workbench.show(TasksView.ID, null);
        Table table = Workbench.ui(() -> view.viewer().getTable());
        Workbench.await("the real-time tasks' lines", T,
                () -> Workbench.ui(() -> table.getItemCount()) == ref.size() && !view.columns().isEmpty());
        List<String> names = view.columns().stream().map(TableColumnModel::getName).toList();
        int command = names.indexOf("Command");
        int period = names.indexOf("Period");
        int kind = names.indexOf("Kind");
        assertTrue(command >= 0 && period >= 0 && kind >= 0, "columns: " + names);
        @SuppressWarnings("unchecked")
        List<VirtualTableLine> lines = Workbench.ui(() -> List.copyOf((List<VirtualTableLine>) view.viewer()
                .getInput()));
        assertEquals(ref.stream().map(t -> t.get("comm").getAsString()).toList(),
                lines.stream().map(l -> l.getCells().get(command).getContent()).toList(), "the tasks, in order");
        int row = IntStream.range(0, lines.size())
                .filter(i -> "rt_high".equals(lines.get(i).getCells().get(command).getContent())).findFirst()
                .orElseThrow();
        long rtHighPeriod = rtHigh.get("period").getAsLong();
        assertEquals(rtHighPeriod, Long.parseLong(lines.get(row).getCells().get(period).getContent()));
        assertEquals("periodic", lines.get(row).getCells().get(kind).getContent());
        // Shown: the period as a duration; the model (JSON, what the action posts) is not a column on screen.
        List<String> headers = Workbench.ui(() -> Arrays.stream(table.getColumns()).map(TableColumn::getText)
                .toList());
        assertFalse(headers.contains("Model"), "columns shown: " + headers);
        assertEquals(SubSecondTimeWithUnitFormat.getInstance().format(rtHighPeriod),
                Workbench.ui(() -> table.getItem(row).getText(headers.indexOf("Period"))));
        Path png = Workbench.screenshot("tasks", view);
        assertTrue(Files.size(png) > 10_000, png + " is too small to show anything");

        // The reference: analyze with rt_high's own model, written where the repository is not.
        Path model = Files.createTempFile("rt_high-task-model", ".json");
        JsonObject analyzed;
        try {
            Files.writeString(model, rtHigh.getAsJsonObject("model").toString());
            analyzed = Sextant.analyze(model);
        } finally {
            Files.delete(model);
        }
        Set<String> expected = new TreeSet<>();
        analyzed.getAsJsonArray("executions").forEach(x -> expected.add(x.getAsJsonObject().get("start")
                .getAsLong() + "+" + x.getAsJsonObject().get("duration").getAsLong() + "@"
                + x.getAsJsonObject().get("tid").getAsLong()));
        assertTrue(expected.size() > 10, "rt_high has many jobs: " + expected.size());

        // One gesture on the task's line: a double-click. It replaces the model posted before (the
        // scenario's, which may find the same jobs): the Comparison View's output is a new configuration.
        String before = sidecar().model(SextantService.key(trace)).orElseThrow().comparison().configurationId();
        Rectangle cell = Workbench.ui(() -> {
            table.showItem(table.getItem(row));
            return table.getItem(row).getBounds(0);
        });
        Workbench.doubleClick(table, cell);
        assertTrue(Workbench.toolbarAction(view, TasksView.OPEN_JOBS).isEnabled(),
                "the action, once a task is selected");
        Workbench.await("the Comparison View shown", T,
                () -> Workbench.ui(() -> Workbench.page().getActivePart()) instanceof ComparisonView);
        ComparisonView comparison = (ComparisonView) Workbench.ui(() -> Workbench.page().getActivePart());
        Workbench.await("rt_high's model posted", T, () -> !before.equals(sidecar().model(SextantService.key(trace))
                .orElseThrow().comparison().configurationId()));
        Workbench.await("rt_high's jobs in the Comparison View's provider", T, () -> {
            Set<String> shown = new TreeSet<>();
            for (TimeGraphEntryModel e : tree(provider("io.sextant.tc.comparison"))) {
                ExecutionEntryModel x = (ExecutionEntryModel) e;
                shown.add(x.absoluteStart() + "+" + (x.absoluteEnd() - x.absoluteStart()) + "@" + x.tid());
            }
            return shown.equals(expected);
        });
        Workbench.await("the Comparison View's rows: rt_high's jobs", T, () -> Workbench.ui(
                () -> comparison.getTimeGraphViewer().getExpandedElements().length) == expected.size());
        Path jobs = Workbench.screenshot("tasks-comparison", comparison);
        assertTrue(Files.size(jobs) > 10_000, jobs + " is too small to show anything");
    }

    /**
     * The tasks' response times: the provider's tree is the tasks of {@code sextant tasks}, rt_high shown by
     * default, its series a point per job whose longest is the summary's; the view draws them.
     */
    @Test
    @Order(11)
    void theTaskResponseViewDrawsRtHighsJobs() throws Exception {
        List<JsonObject> ref = Sextant.tasks();
        JsonObject rtHigh = ref.stream().filter(t -> "rt_high".equals(t.get("comm").getAsString())).findFirst()
                .orElseThrow(() -> new AssertionError("sextant tasks found no rt_high: " + ref));
        TspXyProvider p = DataProviderManager.getInstance().getDataProvider(trace,
                SextantOutput.TASK_RESPONSE.providerId(), TspXyProvider.class);
        assertNotNull(p, "no task response provider");
        var tree = p.fetchTree(Map.of(), new NullProgressMonitor());
        assertEquals(ITmfResponse.Status.COMPLETED, tree.getStatus(), tree.getStatusMessage());
        List<TmfTreeDataModel> entries = tree.getModel().getEntries();
        assertEquals(ref.stream().map(t -> t.get("comm").getAsString()).toList(),
                entries.stream().map(TmfTreeDataModel::getName).toList(), "a series per task, in order");
        long id = entries.stream().filter(e -> e.getName().equals("rt_high")).findFirst().orElseThrow().getId();
        assertEquals(Set.of(id), p.defaults(), "rt_high, the highest priority, shown by default");
        var xy = p.fetchXY(Map.of(DataProviderParameterUtils.REQUESTED_TIME_KEY,
                times(trace.getStartTime().toNanos(), trace.getEndTime().toNanos(), 10_000),
                DataProviderParameterUtils.REQUESTED_ITEMS_KEY, List.of(id)), new NullProgressMonitor());
        assertEquals(ITmfResponse.Status.COMPLETED, xy.getStatus(), xy.getStatusMessage());
        ISeriesModel series = xy.getModel().getSeriesData().iterator().next();
        int jobs = rtHigh.get("jobs").getAsInt();
        assertEquals(jobs, series.getXAxis().length, "a point per job");
        assertEquals(rtHigh.getAsJsonObject("response").get("max").getAsLong(),
                (long) Arrays.stream(series.getData()).max().orElseThrow(), "the longest response time");
        assertEquals(DataType.DURATION, series.getYAxisDescription().getDataType());
        TaskResponseView view = (TaskResponseView) Workbench.show(TaskResponseView.ID, null);
        Workbench.ui(() -> TmfSignalManager.dispatchSignal(new TmfWindowRangeUpdatedSignal(WorkbenchTest.class,
                new TmfTimeRange(trace.getStartTime(), trace.getEndTime()), trace)));
        Supplier<String> drawn = () -> Workbench.ui(() -> Arrays.stream(
                view.getChartViewer().getSwtChart().getSeriesSet().getSeries())
                .map(s -> s.getId() + ":" + (s.getYSeries() == null ? 0 : s.getYSeries().length))
                .collect(Collectors.joining(", ")));
        try {
            Workbench.await("rt_high's response times drawn", Duration.ofSeconds(30),
                    () -> drawn.get().matches("(.*, )?[^,]*:" + jobs + "(, .*)?"));
        } finally {
            Path png = Workbench.screenshot("task-response", view);
            assertTrue(Files.size(png) > 10_000, png + " is too small to show anything");
        }
    }

    @Test
    @Order(12)
    void closingTheTraceClosesItInTheSidecar() throws Exception {
        String exp = exp();
        Workbench.ui(() -> TmfSignalManager.dispatchSignal(new TmfTraceClosedSignal(WorkbenchTest.class, trace)));
        Workbench.await("the experiment closed", T, () -> service().experiment(trace).isEmpty());
        io.sextant.tc.SextantException gone = org.junit.jupiter.api.Assertions.assertThrows(
                io.sextant.tc.SextantException.class,
                () -> Rpc.await(sidecar().connection().tsp().experiment(new ExperimentRef(exp)), T, "get"));
        assertEquals(404, gone.status(), gone.getMessage());
        // For verify.sh: the process that must not outlive the workbench.
        Path pid = Path.of(System.getProperty("sextant.out", "target"), "sidecar.pid");
        Files.writeString(pid, Long.toString(sidecar().pid().orElseThrow()));
    }
}
