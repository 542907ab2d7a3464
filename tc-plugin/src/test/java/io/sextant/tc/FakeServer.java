package io.sextant.tc;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

/**
 * A scripted JSON-RPC server on piped streams that does its own LSP framing
 * (not LSP4J's), so that tests see the bytes the plugin really sends. Each
 * method answers with a scripted result; requests without a script are
 * recorded and left unanswered (for cancellation tests).
 */
final class FakeServer implements AutoCloseable {

    /** A scripted answer: the result, or an error when it is a {@link Failure}. */
    record Failure(int code, String message, JsonElement data) {
    }

    final PipedInputStream toClient = new PipedInputStream(1 << 16);
    final PipedOutputStream fromClient = new PipedOutputStream();
    private final PipedInputStream serverIn = new PipedInputStream(1 << 16);
    private final OutputStream serverOut;
    private final BlockingQueue<JsonObject> received = new LinkedBlockingQueue<>();
    private final Map<String, Function<JsonObject, Object>> scripts = new ConcurrentHashMap<>();
    private final Thread reader;

    FakeServer() throws IOException {
        serverIn.connect(fromClient);
        serverOut = new PipedOutputStream(toClient);
        reader = new Thread(this::readLoop, "fake-server");
        reader.setDaemon(true);
        reader.start();
    }

    /** Answers {@code method} with {@code answer(params)}: a JSON result, or a {@link Failure}. */
    void on(String method, Function<JsonObject, Object> answer) {
        scripts.put(method, answer);
    }

    /** The next message the client sent, within 5 s. */
    JsonObject next() throws InterruptedException {
        JsonObject m = received.poll(5, TimeUnit.SECONDS);
        if (m == null) {
            throw new AssertionError("the client sent nothing within 5 s");
        }
        return m;
    }

    /** The next message with this method, skipping others; within 5 s. */
    JsonObject next(String method) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (System.nanoTime() < deadline) {
            JsonObject m = received.poll(100, TimeUnit.MILLISECONDS);
            if (m != null && m.has("method") && m.get("method").getAsString().equals(method)) {
                return m;
            }
        }
        throw new AssertionError("the client sent no " + method + " within 5 s");
    }

    /** Nothing more arrives within {@code d}. */
    JsonObject poll(Duration d) throws InterruptedException {
        return received.poll(d.toMillis(), TimeUnit.MILLISECONDS);
    }

    void notify(String method, JsonElement params) {
        JsonObject m = new JsonObject();
        m.addProperty("jsonrpc", "2.0");
        m.addProperty("method", method);
        m.add("params", params);
        send(m);
    }

    /** Writes one frame; the Content-Length counts UTF-8 bytes. */
    synchronized void send(JsonObject message) {
        byte[] body = message.toString().getBytes(StandardCharsets.UTF_8);
        try {
            serverOut.write(("Content-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            serverOut.write(body);
            serverOut.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("writing to the client", e);
        }
    }

    private void readLoop() {
        try {
            while (true) {
                JsonObject m = readFrame(serverIn);
                if (m == null) {
                    return;
                }
                received.add(m);
                answer(m);
            }
        } catch (IOException e) {
            // The client closed its side: the test is over.
        }
    }

    private void answer(JsonObject m) {
        if (!m.has("id") || !m.has("method")) {
            return;
        }
        Function<JsonObject, Object> script = scripts.get(m.get("method").getAsString());
        if (script == null) {
            return;
        }
        JsonObject params = m.has("params") && m.get("params").isJsonObject() ? m.getAsJsonObject("params") : null;
        Object out = script.apply(params);
        JsonObject reply = new JsonObject();
        reply.addProperty("jsonrpc", "2.0");
        reply.add("id", m.get("id"));
        if (out instanceof Failure f) {
            JsonObject error = new JsonObject();
            error.addProperty("code", f.code());
            error.addProperty("message", f.message());
            if (f.data() != null) {
                error.add("data", f.data());
            }
            reply.add("error", error);
        } else {
            reply.add("result", out == null ? JsonNull.INSTANCE : (JsonElement) out);
        }
        send(reply);
    }

    /** One LSP frame: headers up to an empty line, then Content-Length bytes of JSON. */
    static JsonObject readFrame(InputStream in) throws IOException {
        int length = -1;
        while (true) {
            String header = readLine(in);
            if (header == null) {
                return null;
            }
            if (header.isEmpty()) {
                break;
            }
            int colon = header.indexOf(':');
            if (header.substring(0, colon).trim().equalsIgnoreCase("Content-Length")) {
                length = Integer.parseInt(header.substring(colon + 1).trim());
            }
        }
        if (length < 0) {
            throw new IOException("a frame without Content-Length");
        }
        byte[] body = in.readNBytes(length);
        if (body.length < length) {
            throw new IOException("frame cut short: " + body.length + " of " + length + " bytes");
        }
        return JsonParser.parseString(new String(body, StandardCharsets.UTF_8)).getAsJsonObject();
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int b = in.read(); b != -1; b = in.read()) {
            if (b == '\n') {
                String s = line.toString(StandardCharsets.US_ASCII);
                return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
            }
            line.write(b);
        }
        return null;
    }

    @Override
    public void close() throws IOException {
        serverOut.close();
        fromClient.close();
    }
}
