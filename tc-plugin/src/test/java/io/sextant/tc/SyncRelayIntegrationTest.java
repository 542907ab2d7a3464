package io.sextant.tc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

import io.sextant.tc.protocol.Experiment;
import io.sextant.tc.protocol.TimeRange;

/**
 * The sync relay between two clients on different transports of one
 * server: the plugin on stdio, and a REST client (what a viewer without
 * JSON-RPC uses) on the HTTP side started with {@code --port 0}: server-sent
 * events from {@code /tsp/api/sync/events}, changes posted to
 * {@code /tsp/api/sync/selection} and {@code /window}.
 */
class SyncRelayIntegrationTest {

    private static final Duration T = Duration.ofSeconds(30);
    private static final String ME = "trace-compass-test";

    /** One server-sent event. */
    record Sse(String event, String data) {
    }

    private SextantProcess server;
    private final List<String> log = new CopyOnWriteArrayList<>();
    private final BlockingQueue<Sse> events = new LinkedBlockingQueue<>();
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void start() {
        server = SextantProcess.start(ServeBinary.require(), ServeBinary.repo(), ME, List.of("--port", "0"), log::add);
        server.connection().initialize("test", List.of(), T);
    }

    @AfterEach
    void stop() {
        // Null when the binary is missing and the test was skipped.
        if (server != null) {
            server.stop(Duration.ofSeconds(5));
        }
    }

    /** The HTTP base the server printed on stderr. */
    private String base() {
        Instant until = Instant.now().plus(T);
        while (Instant.now().isBefore(until)) {
            for (String line : log) {
                int at = line.indexOf("http://");
                if (at >= 0) {
                    return line.substring(at).trim();
                }
            }
            Rpc.sleep(Duration.ofMillis(20), "the HTTP address");
        }
        throw new AssertionError("no HTTP address on stderr: " + log);
    }

    /** Reads the event stream in the background: "event:" and "data:" lines, a blank line ends an event. */
    private void listen(String base) {
        HttpRequest req = HttpRequest.newBuilder(URI.create(base + "/sync/events")).GET().build();
        http.sendAsync(req, HttpResponse.BodyHandlers.ofLines()).thenAccept(r -> {
            String[] event = {null};
            StringBuilder data = new StringBuilder();
            r.body().forEach(line -> {
                if (line.startsWith("event:")) {
                    event[0] = line.substring(6).trim();
                } else if (line.startsWith("data:")) {
                    data.append(line.substring(5).trim());
                } else if (line.isEmpty() && event[0] != null) {
                    events.add(new Sse(event[0], data.toString()));
                    event[0] = null;
                    data.setLength(0);
                }
            });
        });
    }

    private Sse nextEvent() throws InterruptedException {
        Sse e = events.poll(T.toSeconds(), TimeUnit.SECONDS);
        assertNotNull(e, "no server-sent event within " + T);
        return e;
    }

    private JsonObject post(String url, String body) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), url + ": " + r.body());
        return JsonParser.parseString(r.body()).getAsJsonObject();
    }

    @Test
    void changesCrossTransportsWithoutEcho() throws Exception {
        Experiment e = new Experiments(server.connection(), T).open("relay", List.of("fixtures/scenario-a/ctf"),
                null);
        String exp = e.uuid();
        TimeSync sync = server.connection().timeSync();
        // Trace Compass's part: show what arrives, and report it back as its own signal handler would.
        List<TimeRange> shown = new CopyOnWriteArrayList<>();
        List<Boolean> echoed = new CopyOnWriteArrayList<>();
        sync.addListener(new SignalBridge() {
            @Override
            public void selectionRangeUpdated(TimeRange r) {
                shown.add(r);
                echoed.add(sync.local(TimeSync.Kind.SELECTION, r.experimentUUID(), r.start(), r.end()));
            }

            @Override
            public void windowRangeUpdated(TimeRange r) {
                shown.add(r);
                echoed.add(sync.local(TimeSync.Kind.WINDOW, r.experimentUUID(), r.start(), r.end()));
            }
        });

        String base = base();
        listen(base);
        Sse hello = nextEvent();
        assertEquals("sextant/connected", hello.event());
        long clientId = JsonParser.parseString(hello.data()).getAsJsonObject().get("clientId").getAsLong();

        // REST client → plugin.
        JsonObject current = post(base + "/sync/selection?clientId=" + clientId,
                "{\"experimentUUID\": \"" + exp + "\", \"start\": 100, \"end\": 200, \"source\": \"vscode\"}");
        assertEquals(100, current.getAsJsonObject("selection").get("start").getAsLong());
        Instant until = Instant.now().plus(T);
        while (shown.isEmpty() && Instant.now().isBefore(until)) {
            Thread.sleep(20);
        }
        assertEquals(List.of(new TimeRange(exp, 100, 200, "vscode")), shown);
        assertEquals(List.of(false), echoed, "the re-broadcast selection was not sent back");

        // Plugin → REST client: the first event after the hello is this change, not an echo of 100-200.
        assertTrue(sync.local(TimeSync.Kind.WINDOW, exp, 0, 5000));
        Sse window = nextEvent();
        assertEquals("sextant/windowChanged", window.event());
        assertEquals(JsonParser.parseString("{\"experimentUUID\": \"" + exp
                + "\", \"start\": 0, \"end\": 5000, \"source\": \"" + ME + "\"}"), JsonParser.parseString(window.data()));
        assertTrue(sync.local(TimeSync.Kind.SELECTION, exp, 300, 400));
        Sse selection = nextEvent();
        assertEquals("sextant/selectionChanged", selection.event());
        assertEquals(300, JsonParser.parseString(selection.data()).getAsJsonObject().get("start").getAsLong());
        assertEquals(1, shown.size(), "the plugin's own changes did not come back to it: " + shown);
    }
}
