package io.sextant.tc.tests;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

/**
 * A second client of the sidecar, on its HTTP side (what a viewer without
 * JSON-RPC uses): the sync events as server-sent events, changes posted.
 */
final class SseClient {

    /** One server-sent event. */
    record Event(String name, JsonObject data) {
    }

    private final String base;
    private final HttpClient http = HttpClient.newHttpClient();
    private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
    /** This stream's id on the server (from {@code sextant/connected}): changes posted with it do not come back here. */
    private volatile String clientId;

    SseClient(int port) {
        this.base = "http://127.0.0.1:" + port + "/tsp/api";
    }

    /** Starts reading {@code /sync/events} in the background. */
    void listen() {
        HttpRequest req = HttpRequest.newBuilder(URI.create(base + "/sync/events")).GET().build();
        http.sendAsync(req, HttpResponse.BodyHandlers.ofLines()).thenAccept(r -> {
            String[] name = { null };
            StringBuilder data = new StringBuilder();
            r.body().forEach(line -> {
                if (line.startsWith("event:")) {
                    name[0] = line.substring(6).trim();
                } else if (line.startsWith("data:")) {
                    data.append(line.substring(5).trim());
                } else if (line.isEmpty() && name[0] != null) {
                    String d = data.toString();
                    if (name[0].equals("sextant/connected") && d.startsWith("{")) {
                        clientId = JsonParser.parseString(d).getAsJsonObject().get("clientId").getAsString();
                    }
                    events.add(new Event(name[0], d.startsWith("{") ? JsonParser.parseString(d).getAsJsonObject()
                            : new JsonObject()));
                    name[0] = null;
                    data.setLength(0);
                }
            });
        });
    }

    /** The next event called {@code name} within {@code timeout}, or null. */
    Event next(String name, Duration timeout) throws InterruptedException {
        long until = System.nanoTime() + timeout.toNanos();
        while (true) {
            long left = until - System.nanoTime();
            if (left <= 0) {
                return null;
            }
            Event e = events.poll(left, TimeUnit.NANOSECONDS);
            if (e == null || e.name().equals(name)) {
                return e;
            }
        }
    }

    void postSelection(String exp, long start, long end, String source) throws Exception {
        JsonObject body = new JsonObject();
        body.addProperty("experimentUUID", exp);
        body.addProperty("start", start);
        body.addProperty("end", end);
        body.addProperty("source", source);
        String me = clientId == null ? "" : "?clientId=" + clientId;
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "/sync/selection" + me))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body.toString()))
                .build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new AssertionError("POST /sync/selection: " + r.statusCode() + " " + r.body());
        }
    }
}
