package io.sextant.tc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

import io.sextant.tc.protocol.CurrentRanges;
import io.sextant.tc.protocol.Experiment;
import io.sextant.tc.protocol.ExperimentRef;
import io.sextant.tc.protocol.InitializeResult;
import io.sextant.tc.protocol.OutputDescriptor;
import io.sextant.tc.protocol.SelectionQuery;
import io.sextant.tc.protocol.StatesModel;
import io.sextant.tc.protocol.TableColumn;
import io.sextant.tc.protocol.TableLines;
import io.sextant.tc.protocol.TimeRange;
import io.sextant.tc.protocol.TreeModel;
import io.sextant.tc.protocol.WorkDoneProgress;
import io.sextant.tc.protocol.XyModel;

/**
 * The plugin core against the real {@code sextant serve --stdio} on
 * fixtures/scenario-a, with {@code sextant analyze} as the independent
 * reference for the executions.
 */
class StdioIntegrationTest {

    private static final Duration T = Duration.ofSeconds(60);
    private static final String THREAD_STATUS =
            "org.eclipse.tracecompass.internal.analysis.os.linux.core.threadstatus.ThreadStatusDataProvider";
    private static final String FIXTURE = "fixtures/scenario-a/ctf";
    private static final String MODEL = "schemas/examples/periodic-rt_high.json";

    private Path bin;
    private SextantProcess server;
    private final List<String> log = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() {
        bin = ServeBinary.require();
        server = SextantProcess.start(bin, ServeBinary.repo(), "trace-compass-test", List.of(), log::add);
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(Duration.ofSeconds(5));
        }
    }

    private InitializeResult initialize() {
        return server.connection().initialize("test", List.of(ServeBinary.repo().resolve("fixtures").toString()), T);
    }

    private Experiment openScenarioA(List<WorkDoneProgress> progress) {
        Experiments experiments = new Experiments(server.connection(), T);
        Experiment e = experiments.open("scenario-a", List.of(FIXTURE), progress::add);
        return experiments.awaitIndexed(e.uuid());
    }

    @Test
    void initializeDescribesTheProtocol() {
        InitializeResult r = initialize();
        assertEquals("sextant", r.serverInfo().name());
        var x = r.capabilities().experimental();
        assertEquals("0.6.0", x.protocolVersion());
        assertFalse(x.methods().isEmpty());
        for (String m : List.of("tsp/experiments/create", "tsp/timeGraph/states", "tsp/outputs/create",
                "sextant/selectionChanged", "sextant/getSelection")) {
            assertTrue(x.methods().contains(m), m + " not in " + x.methods());
        }
        assertTrue(x.configTypes().toString().contains(ExecutionModels.CONFIG_TYPE), x.configTypes().toString());
        assertEquals("UP", Rpc.await(server.connection().tsp().health(), T, "health").get("status").getAsString());
    }

    @Test
    void scenarioAIsIndexedWithRtHighInTheThreadTree() {
        initialize();
        List<WorkDoneProgress> progress = new CopyOnWriteArrayList<>();
        Experiment e = openScenarioA(progress);
        assertEquals(3533, e.nbEvents());
        assertTrue(e.start() > 0 && e.start() < e.end(), e.toString());
        assertEquals("COMPLETED", e.traces().get(0).indexingStatus());
        // Progress was asked for on the experiment: begin first, end last, percentages never going down.
        waitFor(() -> !progress.isEmpty() && progress.get(progress.size() - 1).isEnd(), "progress end: " + progress);
        assertEquals("begin", progress.get(0).kind(), progress.toString());
        int last = -1;
        for (WorkDoneProgress p : progress) {
            if (p.percentage() != null) {
                assertTrue(p.percentage() >= last && p.percentage() <= 100, progress.toString());
                last = p.percentage();
            }
        }

        List<OutputDescriptor> outputs = Rpc.await(server.connection().tsp().outputs(new ExperimentRef(e.uuid())), T,
                "outputs");
        OutputDescriptor threads = outputs.stream().filter(o -> o.id().equals(THREAD_STATUS)).findFirst()
                .orElseThrow(() -> new AssertionError("no thread status output in " + outputs));
        assertEquals("TIME_GRAPH", threads.type());
        Recorded got = new Recorded();
        new ViewFeeder(server.connection().tsp(), T).timeGraph(e.uuid(), threads, e.start(), e.end(), 1000, got);
        // rt_high's thread (its process, above it in the tree, may bear its name but has no states).
        List<Long> rtHigh = got.tree.entries().stream()
                .filter(x -> x.label().equals("rt_high") && Boolean.TRUE.equals(x.hasData()))
                .map(TreeModel.Entry::id).toList();
        assertFalse(rtHigh.isEmpty(), "no rt_high thread in " + got.tree.entries());
        StatesModel.Row row = got.states.rows().stream().filter(r -> r.entryId() == rtHigh.get(0)).findFirst()
                .orElseThrow(() -> new AssertionError("no states for rt_high"));
        assertTrue(row.states().stream().anyMatch(s -> s.style() != null && "running".equals(s.style().parentKey())),
                "rt_high never runs: " + row);
    }

    @Test
    void executionModelOutputsMatchAnalyze() {
        initialize();
        Experiment e = openScenarioA(new ArrayList<>());
        // The reference: the command line on the same trace and model, in its own process.
        ServeBinary.Result analyze = ServeBinary.run(List.of(bin.toString(), "analyze", FIXTURE, "--model", MODEL,
                "--format", "json"));
        assertEquals(0, analyze.code(), analyze.stderr());
        JsonArray expected = JsonParser.parseString(analyze.stdout()).getAsJsonObject().getAsJsonArray("executions");
        assertTrue(expected.size() > 0, "analyze found no execution");

        ExecutionModels models = new ExecutionModels(server.connection(), T);
        JsonObject model = ExecutionModels.read(ServeBinary.repo().resolve(MODEL));
        List<WorkDoneProgress> progress = new CopyOnWriteArrayList<>();
        DerivedOutputs d = models.post(e.uuid(), "rt_high jobs", "periodic", model, progress::add);
        assertEquals("GANTT_CHART", d.comparison().type());
        waitFor(() -> !progress.isEmpty() && progress.get(progress.size() - 1).isEnd(), "progress end: " + progress);

        ViewFeeder feeder = new ViewFeeder(server.connection().tsp(), T);
        Recorded comparison = new Recorded();
        long longest = expected.get(0).getAsJsonObject().get("duration").getAsLong();
        for (var x : expected) {
            longest = Math.max(longest, x.getAsJsonObject().get("duration").getAsLong());
        }
        feeder.timeGraph(e.uuid(), d.comparison(), 0, longest, 1000, comparison);
        assertEquals(expected.size(), comparison.tree.entries().size(), "Comparison View rows");
        assertEquals(expected.size(), comparison.states.rows().size(), "Comparison View state rows");
        assertEquals(longest, comparison.tree.entries().get(0).end(), "the longest execution comes first");

        Recorded table = new Recorded();
        feeder.table(e.uuid(), d.table(), 40, table);
        assertEquals(expected.size(), table.lines.size(), "table lines, fetched in pages of 40");
        int duration = columnIndex(table.columns, "Duration");
        for (int i = 0; i < expected.size(); i++) {
            assertEquals(i, table.lines.get(i).index());
        }
        long tableSum = table.lines.stream().mapToLong(l -> Long.parseLong(l.cells().get(duration).content())).sum();
        long analyzeSum = 0;
        for (var x : expected) {
            analyzeSum += x.getAsJsonObject().get("duration").getAsLong();
        }
        assertEquals(analyzeSum, tableSum, "total duration: table vs analyze");

        Recorded perspective = new Recorded();
        feeder.xy(e.uuid(), d.timePerspective(), e.start(), e.end(), 100_000, perspective);
        XyModel.Series points = perspective.xy.series().stream().filter(s -> s.seriesName().equals("duration"))
                .findFirst().orElseThrow(() -> new AssertionError("no duration series: " + perspective.xy));
        assertEquals(expected.size(), points.xValues().size(), "Time Perspective points");

        // A bad model is refused with the field named; the good one can be removed.
        JsonObject bad = model.deepCopy();
        bad.getAsJsonArray("events").get(0).getAsJsonObject().addProperty("name", 17);
        SextantException err = assertThrows(SextantException.class,
                () -> models.post(e.uuid(), "bad", null, bad, null));
        assertEquals(400, err.status(), err.getMessage());
        assertTrue(err.detail().contains("parameters.events[0].name"), err.getMessage());
        models.delete(e.uuid(), d);
        List<OutputDescriptor> after = Rpc.await(server.connection().tsp().outputs(new ExperimentRef(e.uuid())), T,
                "outputs");
        assertTrue(after.stream().noneMatch(o -> d.comparison().configurationId().equals(o.configurationId())),
                "still listed: " + after);
    }

    /**
     * The real-time tasks table, offered with no configuration, is {@code sextant tasks --format json}: the
     * same tasks, rt_high periodic with its period and model; that model, posted as the plugin posts it,
     * finds the executions {@code sextant analyze} finds with it.
     */
    @Test
    void realTimeTasksGiveRtHighWithItsPeriodAndAModelOfItsJobs() throws IOException {
        initialize();
        // An experiment of its own: sextant keeps an experiment's models across servers, by its name.
        Experiments experiments = new Experiments(server.connection(), T);
        Experiment e = experiments.awaitIndexed(experiments.open("scenario-a tasks", List.of(FIXTURE), null).uuid());
        ServeBinary.Result cli = ServeBinary.run(List.of(bin.toString(), "tasks", FIXTURE, "--format", "json"));
        assertEquals(0, cli.code(), cli.stderr());
        List<JsonObject> reference = new ArrayList<>();
        JsonParser.parseString(cli.stdout()).getAsJsonObject().getAsJsonArray("tasks")
                .forEach(t -> reference.add(t.getAsJsonObject()));
        JsonObject rtHighRef = reference.stream().filter(t -> t.get("comm").getAsString().equals("rt_high"))
                .findFirst().orElseThrow(() -> new AssertionError("sextant tasks found no rt_high: " + cli.stdout()));

        List<OutputDescriptor> outputs = Rpc.await(server.connection().tsp().outputs(new ExperimentRef(e.uuid())), T,
                "outputs");
        OutputDescriptor table = outputs.stream().filter(o -> o.id().equals(RealTimeTask.TABLE)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + RealTimeTask.TABLE + " in " + outputs));
        assertEquals("TABLE", table.type());
        ViewFeeder feeder = new ViewFeeder(server.connection().tsp(), T);
        Recorded got = new Recorded();
        feeder.table(e.uuid(), table, 100, got);
        List<String> names = got.columns.stream().map(TableColumn::name).toList();
        List<RealTimeTask> tasks = got.lines.stream().map(l -> RealTimeTask.of(names,
                l.cells().stream().map(TableLines.Cell::content).toList())).toList();
        assertEquals(reference.stream().map(t -> t.get("comm").getAsString() + "/" + t.get("tid").getAsLong())
                .toList(), tasks.stream().map(t -> t.command() + "/" + t.tid()).toList());
        RealTimeTask rtHigh = tasks.stream().filter(t -> t.command().equals("rt_high")).findFirst().orElseThrow();
        assertEquals("periodic", rtHigh.kind());
        assertEquals(rtHighRef.get("period").getAsLong(), rtHigh.period().orElseThrow());
        assertEquals(rtHighRef.getAsJsonObject("model"), rtHigh.model());

        Path file = Files.createTempFile("rt_high-model", ".json");
        ServeBinary.Result analyze;
        try {
            Files.writeString(file, rtHigh.model().toString());
            analyze = ServeBinary.run(List.of(bin.toString(), "analyze", FIXTURE, "--model", file.toString(),
                    "--format", "json"));
        } finally {
            Files.delete(file);
        }
        assertEquals(0, analyze.code(), analyze.stderr());
        Set<Long> starts = new TreeSet<>();
        JsonParser.parseString(analyze.stdout()).getAsJsonObject().getAsJsonArray("executions")
                .forEach(x -> starts.add(x.getAsJsonObject().get("start").getAsLong()));
        assertTrue(starts.size() > 10, "rt_high has many jobs: " + starts.size());
        ExecutionModels models = new ExecutionModels(server.connection(), T);
        DerivedOutputs d = models.post(e.uuid(), "rt_high task", "its task's model", rtHigh.model(), null);
        Recorded jobs = new Recorded();
        feeder.table(e.uuid(), d.table(), 1000, jobs);
        int start = columnIndex(jobs.columns, "Start");
        assertEquals(starts, jobs.lines.stream().map(l -> Long.parseLong(l.cells().get(start).content()))
                .collect(Collectors.toCollection(TreeSet::new)), "the jobs' starts: table vs analyze");
        models.delete(e.uuid(), d);
    }

    /**
     * A model posted again under the name of the one in place, changed (the real-time task rt_high's model is
     * named like the scenario's: "rt_high job"), replaces it, though sextant keeps one model per name; one
     * refused leaves the old one in place.
     */
    @Test
    void aModelPostedUnderTheNameOfTheOneInPlaceReplacesIt() {
        initialize();
        try (Sidecar sidecar = new Sidecar(() -> new Sidecar.Settings(bin, ServeBinary.repo(), List.of(), T),
                "trace-compass-test", log::add)) {
            // An experiment of its own: sextant keeps an experiment's models across servers, by its name.
            String exp = sidecar.open("a", "scenario-a replaced", List.of(FIXTURE)).uuid();
            JsonObject model = ExecutionModels.read(ServeBinary.repo().resolve(MODEL));
            String name = model.get("name").getAsString();
            DerivedOutputs first = sidecar.postModel("a", name, model);
            JsonObject changed = model.deepCopy();
            changed.addProperty("deadline", 2_000_000);
            DerivedOutputs second = sidecar.postModel("a", name, changed);
            assertEquals(second, sidecar.model("a").orElseThrow());
            // The server's one model of that name is the changed one (its id comes from the name).
            List<JsonObject> configs = Rpc.await(sidecar.connection().tsp().outputs(new ExperimentRef(exp)), T,
                    "outputs").stream().map(OutputDescriptor::configuration).filter(c -> c != null).distinct()
                    .toList();
            assertEquals(1, configs.size(), configs.toString());
            assertEquals(2_000_000, configs.get(0).getAsJsonObject("parameters").get("deadline").getAsLong(),
                    configs.toString());
            assertEquals(first.comparison().id(), second.comparison().id());

            JsonObject bad = model.deepCopy();
            bad.addProperty("deadline", 0);
            assertThrows(SextantException.class, () -> sidecar.postModel("a", name, bad));
            DerivedOutputs kept = sidecar.model("a").orElseThrow();
            List<OutputDescriptor> after = Rpc.await(sidecar.connection().tsp().outputs(new ExperimentRef(exp)), T,
                    "outputs");
            assertTrue(after.stream().anyMatch(o -> o.id().equals(kept.comparison().id())),
                    "the one in place before the refused one is back: " + after);
            new ExecutionModels(sidecar.connection(), T).delete(exp, kept);
        }
    }

    @Test
    void selectionSentIsWhatTheServerKeepsUntilTheExperimentCloses() {
        initialize();
        Experiment e = openScenarioA(new ArrayList<>());
        TimeSync sync = server.connection().timeSync();
        var query = new SelectionQuery(e.uuid());
        CurrentRanges before = Rpc.await(server.connection().server().getSelection(query), T, "getSelection");
        assertNull(before.selection(), before.toString());

        long a = e.start() + 1000;
        long b = e.start() + 5000;
        // Dragged leftwards, sent in order; the window independently.
        assertTrue(sync.local(TimeSync.Kind.SELECTION, e.uuid(), b, a));
        assertTrue(sync.local(TimeSync.Kind.WINDOW, e.uuid(), e.start(), e.end()));
        assertFalse(sync.local(TimeSync.Kind.SELECTION, e.uuid(), a, b), "not sent twice");
        // Notifications have no answer: the request after them sees their effect (one stream, in order).
        CurrentRanges now = Rpc.await(server.connection().server().getSelection(query), T, "getSelection");
        assertEquals(new TimeRange(e.uuid(), a, b, "trace-compass-test"), now.selection());
        assertEquals(new TimeRange(e.uuid(), e.start(), e.end(), "trace-compass-test"), now.window());

        // Closing the experiment deletes it on the server and forgets its ranges here.
        new Experiments(server.connection(), T).close(e.uuid());
        assertTrue(sync.current(TimeSync.Kind.SELECTION, e.uuid()).isEmpty());
        SextantException gone = assertThrows(SextantException.class,
                () -> Rpc.await(server.connection().tsp().experiment(new ExperimentRef(e.uuid())), T, "get"));
        assertEquals(404, gone.status(), gone.getMessage());
    }

    @Test
    void shutdownAndExitLeaveNoProcess() {
        initialize();
        ProcessHandle h = server.handle();
        List<ProcessHandle> children = h.descendants().toList();
        assertEquals(0, server.stop(Duration.ofSeconds(10)), "exit code after shutdown then exit; log: " + log);
        assertFalse(h.isAlive());
        for (ProcessHandle c : children) {
            assertFalse(c.isAlive(), "child " + c.pid() + " outlived the server");
        }
        assertTrue(server.connection().isClosed());
        server = null;
    }

    private static int columnIndex(List<TableColumn> columns, String name) {
        for (int i = 0; i < columns.size(); i++) {
            if (columns.get(i).name().equals(name)) {
                return i;
            }
        }
        throw new AssertionError("no column " + name + " in " + columns);
    }

    private static void waitFor(java.util.function.BooleanSupplier done, String what) {
        Instant until = Instant.now().plusSeconds(10);
        while (!done.getAsBoolean()) {
            if (Instant.now().isAfter(until)) {
                throw new AssertionError("not within 10 s: " + what);
            }
            Rpc.sleep(Duration.ofMillis(20), what);
        }
    }

    /** A view that keeps what it was fed. */
    private static final class Recorded implements ViewSink {
        TreeModel tree;
        StatesModel states;
        XyModel xy;
        List<TableColumn> columns;
        List<TableLines.Line> lines;

        @Override
        public void timeGraph(OutputDescriptor output, TreeModel t, StatesModel s) {
            tree = t;
            states = s;
        }

        @Override
        public void xy(OutputDescriptor output, TreeModel t, XyModel x) {
            tree = t;
            xy = x;
        }

        @Override
        public void table(OutputDescriptor output, List<TableColumn> c, List<TableLines.Line> l) {
            columns = c;
            lines = l;
        }
    }
}
