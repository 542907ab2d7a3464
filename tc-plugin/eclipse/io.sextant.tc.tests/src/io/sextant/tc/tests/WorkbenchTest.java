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
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

import org.eclipse.core.runtime.NullProgressMonitor;
import org.eclipse.tracecompass.analysis.timing.ui.views.segmentstore.table.SegmentStoreTableView;
import org.eclipse.tracecompass.analysis.timing.ui.views.segmentstore.scatter.SegmentStoreScatterView2;
import org.eclipse.tracecompass.segmentstore.core.ISegment;
import org.eclipse.tracecompass.tmf.core.dataprovider.DataProviderManager;
import org.eclipse.tracecompass.tmf.core.dataprovider.DataProviderParameterUtils;
import org.eclipse.tracecompass.tmf.core.model.IOutputStyleProvider;
import org.eclipse.tracecompass.tmf.core.model.OutputElementStyle;
import org.eclipse.tracecompass.tmf.core.model.timegraph.ITimeGraphDataProvider;
import org.eclipse.tracecompass.tmf.core.model.timegraph.ITimeGraphRowModel;
import org.eclipse.tracecompass.tmf.core.model.timegraph.ITimeGraphState;
import org.eclipse.tracecompass.tmf.core.model.timegraph.TimeGraphEntryModel;
import org.eclipse.tracecompass.tmf.core.model.tree.TmfTreeModel;
import org.eclipse.tracecompass.tmf.core.response.ITmfResponse;
import org.eclipse.tracecompass.tmf.core.response.TmfModelResponse;
import org.eclipse.tracecompass.tmf.core.signal.TmfSelectionRangeUpdatedSignal;
import org.eclipse.tracecompass.tmf.core.signal.TmfSignalHandler;
import org.eclipse.tracecompass.tmf.core.signal.TmfSignalManager;
import org.eclipse.tracecompass.tmf.core.signal.TmfTraceClosedSignal;
import org.eclipse.tracecompass.tmf.core.signal.TmfTraceOpenedSignal;
import org.eclipse.tracecompass.tmf.core.signal.TmfTraceSelectedSignal;
import org.eclipse.tracecompass.tmf.core.trace.TmfTraceManager;
import org.eclipse.tracecompass.tmf.ctf.core.event.CtfTmfEvent;
import org.eclipse.tracecompass.tmf.ctf.core.trace.CtfTmfTrace;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

import io.sextant.tc.ExecutionModels;
import io.sextant.tc.Rpc;
import io.sextant.tc.Sidecar;
import io.sextant.tc.protocol.Experiment;
import io.sextant.tc.protocol.ExperimentRef;
import io.sextant.tc.ui.Activator;
import io.sextant.tc.ui.ComparisonView;
import io.sextant.tc.ui.ComplementView;
import io.sextant.tc.ui.ExecutionEntryModel;
import io.sextant.tc.ui.ExecutionsAnalysis;
import io.sextant.tc.ui.FacilitiesView;
import io.sextant.tc.ui.ModelActions;
import io.sextant.tc.ui.Preferences;
import io.sextant.tc.ui.SextantService;

/**
 * The plugin in a real Trace Compass 6.2 workbench against the real
 * {@code sextant serve --stdio}: fixtures/scenario-a opened in Trace
 * Compass, the scenario's model defined, the views fed and compared with
 * {@code sextant analyze}; the time sync with a second client of the same
 * sidecar; the priority inversion in the Critical Path Complement; the
 * sidecar killed and back. The tests run in order on one trace. The last
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
        List<Long> times = new ArrayList<>();
        for (int i = 0; i <= 1000; i++) {
            times.add(start + (end - start) * i / 1000);
        }
        Map<String, Object> q = new HashMap<>();
        q.put(DataProviderParameterUtils.REQUESTED_TIME_KEY, times);
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

    private static void defineTheModel() throws Exception {
        JsonObject model = ExecutionModels.read(Sextant.model());
        List<String> errors = new CopyOnWriteArrayList<>();
        ModelActions.post(trace, model, errors::add);
        Workbench.await("the model's executions", T, () -> !errors.isEmpty() || sidecar().model(
                SextantService.key(trace)).isPresent());
        assertEquals(List.of(), errors);
    }

    @Test
    @Order(2)
    void theComparisonViewShowsTheExecutionsAnalyzeFinds() throws Exception {
        defineTheModel();
        ComparisonView view = (ComparisonView) Workbench.show(ComparisonView.ID, null);
        List<TimeGraphEntryModel> entries = tree(provider("io.sextant.tc.comparison"));
        // The rows: one per execution, with its absolute start, duration and thread, as analyze says.
        Set<String> shown = new TreeSet<>();
        for (TimeGraphEntryModel e : entries) {
            ExecutionEntryModel x = (ExecutionEntryModel) e;
            shown.add(x.absoluteStart() + "+" + (x.absoluteEnd() - x.absoluteStart()) + "@" + x.tid());
            assertEquals(trace.getStartTime().toNanos(), e.getStartTime(), "rows start together");
        }
        Set<String> expected = referenceExecutions().stream().map(x -> x.get("start").getAsLong() + "+"
                + x.get("duration").getAsLong() + "@" + x.get("tid").getAsLong())
                .collect(Collectors.toCollection(TreeSet::new));
        assertEquals(expected, shown);
        assertTrue(expected.size() > 10, "the scenario has many jobs: " + expected.size());
        // Each row has states (running, blocked...) drawn from sextant's styles.
        List<ITimeGraphRowModel> rows = rows(provider("io.sextant.tc.comparison"), entries);
        assertEquals(entries.size(), rows.size());
        assertTrue(rows.stream().allMatch(r -> !r.getStates().isEmpty()), "every execution has states");
        // The view itself built its entries from the provider.
        Workbench.await("the Comparison View's rows", T,
                () -> Workbench.ui(() -> view.getTimeGraphViewer().getExpandedElements().length) == entries.size());
        Path png = Workbench.screenshot("comparison", view);
        assertTrue(Files.size(png) > 10_000, png + " is too small to show anything");
    }

    @Test
    @Order(3)
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
    @Order(4)
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
    @Order(5)
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
    @Order(6)
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

    @Test
    @Order(7)
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
