package io.sextant.tc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

import io.sextant.tc.protocol.Arrow;
import io.sextant.tc.protocol.Experiment;
import io.sextant.tc.protocol.ExperimentRef;
import io.sextant.tc.protocol.InitializeResult;
import io.sextant.tc.protocol.OutputQuery;
import io.sextant.tc.protocol.Response;
import io.sextant.tc.protocol.TimeRange;
import io.sextant.tc.protocol.TooltipQuery;
import io.sextant.tc.protocol.WorkDoneProgress;
import io.sextant.tc.protocol.XyModel;

/** What the plugin puts on the wire and how it reads answers, against a fake server doing its own framing. */
class ConnectionTest {

    private static final Duration T = Duration.ofSeconds(5);

    private FakeServer server;
    private SextantConnection conn;

    @BeforeEach
    void connect() throws Exception {
        server = new FakeServer();
        conn = SextantConnection.open(server.toClient, server.fromClient, "trace-compass");
    }

    @AfterEach
    void close() throws Exception {
        conn.close();
        server.close();
    }

    private static JsonObject json(String s) {
        return JsonParser.parseString(s).getAsJsonObject();
    }

    @Test
    void initializeThenInitialized() throws Exception {
        server.on("initialize", p -> json("""
                {"capabilities": {"experimental": {"protocolVersion": "0.6.0",
                  "methods": ["tsp/health", "tsp/experiments/get"], "outputTypes": ["TIME_GRAPH"],
                  "configTypes": [{"id": "sextant.execution-model"}]}},
                 "serverInfo": {"name": "sextant", "version": "0.1.0"}}"""));
        InitializeResult r = conn.initialize("1.0", List.of("/traces"), T);
        assertEquals("0.6.0", r.capabilities().experimental().protocolVersion());
        assertEquals(List.of("tsp/health", "tsp/experiments/get"), r.capabilities().experimental().methods());
        assertEquals("sextant", r.serverInfo().name());

        JsonObject init = server.next();
        assertEquals("2.0", init.get("jsonrpc").getAsString());
        assertEquals("initialize", init.get("method").getAsString());
        JsonObject p = init.getAsJsonObject("params");
        assertEquals(ProcessHandle.current().pid(), p.get("processId").getAsLong());
        assertEquals("trace-compass", p.getAsJsonObject("clientInfo").get("name").getAsString());
        assertEquals(new JsonObject(), p.getAsJsonObject("capabilities"));
        assertEquals("/traces",
                p.getAsJsonObject("initializationOptions").getAsJsonArray("traceRoots").get(0).getAsString());
        JsonObject initialized = server.next();
        assertEquals("initialized", initialized.get("method").getAsString());
        assertFalse(initialized.has("id"), "initialized is a notification");
        assertEquals(new JsonObject(), initialized.getAsJsonObject("params"));
    }

    @Test
    void tspParamsAreTheBodyWithTheRouteIds() throws Exception {
        server.on("tsp/experiments/get", p -> json("""
                {"UUID": "e1", "name": "exp", "start": 1700000000123456789, "end": 1700000000999999999,
                 "nbEvents": 3533, "indexingStatus": "COMPLETED", "statusMessage": "done", "traces": []}"""));
        Experiment e = Rpc.await(conn.tsp().experiment(new ExperimentRef("e1")), T, "get");
        assertEquals("e1", e.uuid());
        assertEquals(1700000000123456789L, e.start(), "ns timestamps keep every digit");
        assertEquals(3533, e.nbEvents());
        assertTrue(e.isIndexed());
        assertEquals(json("{\"expUUID\": \"e1\"}"), server.next().getAsJsonObject("params"));

        server.on("tsp/timeGraph/states", p -> json("{\"model\": {\"rows\": []}, \"status\": \"COMPLETED\"}"));
        Rpc.await(conn.tsp().timeGraphStates(OutputQuery.data("e1", "out", 5, 10, 100, List.of(3L, 4L))), T, "s");
        JsonObject sent = server.next("tsp/timeGraph/states").getAsJsonObject("params");
        assertEquals(json("""
                {"expUUID": "e1", "outputId": "out", "parameters": {
                  "requested_timerange": {"start": 5, "end": 10, "nbTimes": 100},
                  "requested_items": [3, 4]}}"""), sent, "absent members are left out, not null");

        server.on("tsp/health", p -> json("{\"status\": \"UP\"}"));
        assertEquals("UP", Rpc.await(conn.tsp().health(), T, "health").get("status").getAsString());
        JsonObject health = server.next("tsp/health");
        assertTrue(!health.has("params") || health.get("params").isJsonNull(), "no params: " + health);
    }

    @Test
    void tooltipAndArrowsAskForAnElementAndARange() throws Exception {
        server.on("tsp/timeGraph/tooltip", p -> json("""
                {"model": {"State": "Blocked", "TID": "4611"}, "status": "COMPLETED", "statusMessage": ""}"""));
        Response<java.util.Map<String, String>> tip = Rpc.await(conn.tsp().timeGraphTooltip(
                TooltipQuery.state("e1", "out", 7, 150, 100, 80)), T, "tooltip");
        assertEquals("Blocked", tip.model().get("State"));
        assertEquals(json("""
                {"expUUID": "e1", "outputId": "out", "parameters": {"requested_times": [150],
                  "requested_items": [7],
                  "requested_element": {"elementType": "STATE", "time": 100, "duration": 80}}}"""),
                server.next("tsp/timeGraph/tooltip").getAsJsonObject("params"));

        server.on("tsp/timeGraph/arrows", p -> json("""
                {"model": [{"sourceId": 1, "targetId": 0, "start": 1700000000000000001,
                  "end": 1700000000000000001, "style": {"parentKey": "wakeup", "values": {}}}],
                 "status": "COMPLETED", "statusMessage": ""}"""));
        Response<List<Arrow>> arrows = Rpc.await(conn.tsp().timeGraphArrows(OutputQuery.tree("e1", "cp", 5, 10)), T,
                "arrows");
        assertEquals(new Arrow(1, 0, 1700000000000000001L, 1700000000000000001L, arrows.model().get(0).style()),
                arrows.model().get(0));
        assertEquals("wakeup", arrows.model().get(0).style().parentKey());
        assertEquals(json("""
                {"expUUID": "e1", "outputId": "cp", "parameters": {"requested_timerange": {"start": 5, "end": 10}}}"""),
                server.next("tsp/timeGraph/arrows").getAsJsonObject("params"));
    }

    @Test
    void framesCountUtf8Bytes() throws Exception {
        // "σ" and "−" are two and three bytes: a character count would cut the frame.
        server.on("tsp/xy/xy", p -> json("""
                {"model": {"title": "Time Perspective: σ", "series": [{"seriesId": 4, "seriesName": "mean − 1σ",
                  "xValues": [1, 2], "yValues": [0.5, 0.5], "style": {"values": {"series-type": "line"}}}]},
                 "status": "COMPLETED", "statusMessage": "ok"}"""));
        Response<XyModel> r = Rpc.await(conn.tsp().xy(OutputQuery.data("e", "p", 0, 1, 10, List.of(4L))), T, "xy");
        assertEquals("mean − 1σ", r.model().series().get(0).seriesName());
        assertEquals(List.of(0.5, 0.5), r.model().series().get(0).yValues());
    }

    @Test
    void serverErrorsKeepTitleDetailAndStatus() {
        server.on("tsp/outputs/create", p -> new FakeServer.Failure(-32602, "Bad Request",
                json("{\"title\": \"Bad Request\", \"detail\": \"parameters.events[0].name: expected a string\", \"status\": 400}")));
        ExecutionModels models = new ExecutionModels(conn, T);
        SextantException e = assertThrows(SextantException.class,
                () -> models.post("e1", "bad", null, json("{\"name\": 17}"), null));
        assertEquals(400, e.status());
        assertEquals(-32602, e.code());
        assertEquals("parameters.events[0].name: expected a string", e.detail());
        assertTrue(e.getMessage().startsWith("posting the execution model bad: Bad Request"), e.getMessage());
        assertTrue(e.getMessage().contains("parameters.events[0].name"), e.getMessage());
    }

    @Test
    void postedModelFindsItsThreeOutputs() throws Exception {
        String config = "{\"id\": \"c1\", \"name\": \"jobs\"}";
        server.on("tsp/outputs/create", p -> json("{\"id\": \"sextant.executions.comparison:c1\", \"type\": \"GANTT_CHART\", "
                + "\"parentId\": \"sextant.executions\", \"configuration\": " + config + "}"));
        server.on("tsp/outputs/list", p -> JsonParser.parseString("[" 
                + "{\"id\": \"sextant.executions\", \"type\": \"NONE\"},"
                + "{\"id\": \"x:other\", \"type\": \"GANTT_CHART\", \"parentId\": \"sextant.executions\", \"configuration\": {\"id\": \"c0\"}},"
                + "{\"id\": \"t:c1\", \"type\": \"TABLE\", \"parentId\": \"sextant.executions\", \"configuration\": " + config + "},"
                + "{\"id\": \"sextant.executions.comparison:c1\", \"type\": \"GANTT_CHART\", \"parentId\": \"sextant.executions\", \"configuration\": " + config + "},"
                + "{\"id\": \"p:c1\", \"type\": \"TREE_TIME_XY\", \"parentId\": \"sextant.executions\", \"configuration\": " + config + "}]"));
        JsonObject model = json("{\"name\": \"m\", \"mode\": \"same_tid\", \"events\": []}");
        DerivedOutputs d = new ExecutionModels(conn, T).post("e1", "jobs", "periodic", model, null);
        assertEquals("sextant.executions.comparison:c1", d.comparison().id());
        assertEquals("p:c1", d.timePerspective().id());
        assertEquals("t:c1", d.table().id());
        JsonObject sent = server.next("tsp/outputs/create").getAsJsonObject("params");
        assertEquals("e1", sent.get("expUUID").getAsString());
        assertEquals("sextant.executions", sent.get("outputId").getAsString());
        assertEquals("sextant.execution-model", sent.get("sourceTypeId").getAsString());
        assertEquals(model, sent.getAsJsonObject("parameters"));
        assertFalse(sent.has("workDoneToken"), "no token without a progress listener");
    }

    @Test
    void progressReachesTheListenerOfItsToken() throws Exception {
        List<WorkDoneProgress> seen = new CopyOnWriteArrayList<>();
        CountDownLatch ended = new CountDownLatch(1);
        String token = conn.client().progressToken(p -> {
            seen.add(p);
            if (p.isEnd()) {
                ended.countDown();
            }
        });
        server.notify("$/progress", json("{\"token\": \"other\", \"value\": {\"kind\": \"begin\", \"title\": \"x\"}}"));
        server.notify("$/progress", json("{\"token\": \"" + token + "\", \"value\": {\"kind\": \"begin\", \"title\": \"Indexing\", \"percentage\": 0}}"));
        server.notify("$/progress", json("{\"token\": \"" + token + "\", \"value\": {\"kind\": \"report\", \"percentage\": 40}}"));
        server.notify("$/progress", json("{\"token\": \"" + token + "\", \"value\": {\"kind\": \"end\"}}"));
        assertTrue(ended.await(5, TimeUnit.SECONDS), "no end reached the listener: " + seen);
        assertEquals(List.of("begin", "report", "end"), seen.stream().map(WorkDoneProgress::kind).toList());
        assertEquals(40, seen.get(1).percentage());
        // After its end the token is forgotten.
        server.notify("$/progress", json("{\"token\": \"" + token + "\", \"value\": {\"kind\": \"report\"}}"));
        server.notify("$/progress", json("{\"token\": 7, \"value\": {\"kind\": \"report\"}}"));
        Thread.sleep(200);
        assertEquals(3, seen.size());
    }

    @Test
    void timeoutCancelsTheRequest() throws Exception {
        // No script for tsp/experiments/list: the server never answers.
        var call = conn.tsp().outputs(new ExperimentRef("e1"));
        SextantException e = assertThrows(SextantException.class,
                () -> Rpc.await(call, Duration.ofMillis(200), "tsp/outputs/list e1"));
        assertTrue(e.getMessage().contains("no answer within 200 ms"), e.getMessage());
        JsonObject request = server.next("tsp/outputs/list");
        JsonObject cancel = server.next("$/cancelRequest");
        assertEquals(request.get("id").getAsString(), cancel.getAsJsonObject("params").get("id").getAsString());
    }

    @Test
    void syncNotificationsInBothDirections() throws Exception {
        List<TimeRange> shown = new CopyOnWriteArrayList<>();
        CountDownLatch got = new CountDownLatch(1);
        conn.timeSync().addListener(new SignalBridge() {
            @Override
            public void selectionRangeUpdated(TimeRange r) {
                shown.add(r);
                got.countDown();
            }

            @Override
            public void windowRangeUpdated(TimeRange r) {
                throw new AssertionError("no window change was sent: " + r);
            }
        });
        server.notify("sextant/selectionChanged",
                json("{\"experimentUUID\": \"e1\", \"start\": 100, \"end\": 200, \"source\": \"vscode\"}"));
        assertTrue(got.await(5, TimeUnit.SECONDS));
        assertEquals(new TimeRange("e1", 100, 200, "vscode"), shown.get(0));

        // Trace Compass re-broadcasts what it was told: not sent back.
        assertFalse(conn.timeSync().local(TimeSync.Kind.SELECTION, "e1", 100, 200));
        assertTrue(conn.timeSync().local(TimeSync.Kind.WINDOW, "e1", 0, 1000));
        JsonObject sent = server.next();
        assertEquals("sextant/windowChanged", sent.get("method").getAsString());
        assertFalse(sent.has("id"));
        assertEquals(json("{\"experimentUUID\": \"e1\", \"start\": 0, \"end\": 1000, \"source\": \"trace-compass\"}"),
                sent.getAsJsonObject("params"));
        assertNull(server.poll(Duration.ofMillis(200)), "only the window change was sent");
    }

    @Test
    void shutdownThenExit() throws Exception {
        server.on("shutdown", p -> null);
        conn.shutdown(T);
        assertEquals("shutdown", server.next().get("method").getAsString());
        JsonObject exit = server.next();
        assertEquals("exit", exit.get("method").getAsString());
        assertFalse(exit.has("id"), "exit is a notification");
    }
}
