package io.sextant.tc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import java.util.logging.Level;
import java.util.logging.Logger;

import org.eclipse.lsp4j.jsonrpc.Launcher;
import org.eclipse.lsp4j.jsonrpc.MessageConsumer;
import org.eclipse.lsp4j.jsonrpc.RemoteEndpoint;
import org.eclipse.lsp4j.jsonrpc.ResponseErrorException;
import org.eclipse.lsp4j.jsonrpc.json.MessageJsonHandler;
import org.eclipse.lsp4j.jsonrpc.messages.Message;
import org.eclipse.lsp4j.jsonrpc.services.JsonNotification;
import org.eclipse.lsp4j.jsonrpc.services.JsonRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestWatcher;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.JsonPrimitive;

/**
 * The LSP life cycle of the real {@code sextant serve --stdio}, driven by
 * LSP4J's own {@link Launcher} through a generic interface declared here
 * (none of the plugin's classes: a client nobody on this project wrote).
 * Every message both ways is recorded as it was on the wire, and a failing
 * test prints the exchange and the server's stderr.
 */
class LifecycleIntegrationTest {

    /** Time limit of anything that should happen promptly. */
    private static final long T = 60;
    /** Lines of the generated ftrace trace: long enough to index that it can be caught at it. */
    private static final int BIG_LINES = 300_000;

    /** The server, as JSON in and out. */
    public interface Remote {
        @JsonRequest
        CompletableFuture<JsonObject> initialize(JsonObject params);

        @JsonNotification
        void initialized(JsonObject params);

        /** LSP4J's way of a request without params: it sends {@code "params": null}. */
        @JsonRequest
        CompletableFuture<JsonElement> shutdown();

        @JsonNotification
        void exit();

        @JsonRequest("tsp/health")
        CompletableFuture<JsonObject> health(JsonObject params);

        @JsonRequest("tsp/traces/open")
        CompletableFuture<JsonObject> openTrace(JsonObject params);
    }

    /** What the server sends us: progress (kept), and the sync notifications (ignored). */
    public static final class Client {
        final List<JsonObject> progress = new CopyOnWriteArrayList<>();

        @JsonNotification("$/progress")
        public void progress(JsonObject params) {
            progress.add(params);
        }

        @JsonNotification("sextant/selectionChanged")
        public void selectionChanged(JsonObject params) {
        }

        @JsonNotification("sextant/windowChanged")
        public void windowChanged(JsonObject params) {
        }
    }

    /** One message as it was on the wire; {@code message} is LSP4J's, null for raw frames. */
    record Entry(String direction, Message message, JsonElement json) {
        boolean out() {
            return direction.startsWith("->");
        }

        JsonObject object() {
            return json.isJsonObject() ? json.getAsJsonObject() : new JsonObject();
        }

        @Override
        public String toString() {
            return direction + " " + json;
        }
    }

    /** One {@code sextant serve --stdio} with an LSP4J client on its pipes. */
    final class Session {
        final Process process;
        final Path stderr;
        final Remote remote;
        final Client client = new Client();
        final RemoteEndpoint endpoint;
        final List<Entry> exchange = new CopyOnWriteArrayList<>();
        private final ExecutorService executor = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "lsp4j-lifecycle");
            t.setDaemon(true);
            return t;
        });
        private final OutputStream stdin;
        /** The server's stderr, read before the temporary directory goes. */
        private String log;
        private MessageJsonHandler handler;
        /** The text of the message the reader thread is parsing, for the wrapper that then sees it. */
        private final ThreadLocal<String> parsed = new ThreadLocal<>();

        Session(String... options) throws IOException {
            List<String> command = new ArrayList<>(List.of(bin.toString(), "serve", "--stdio"));
            command.addAll(List.of(options));
            stderr = Files.createTempFile(tmp, "stderr", ".txt");
            process = new ProcessBuilder(command).directory(ServeBinary.repo().toFile())
                    .redirectError(stderr.toFile()).start();
            stdin = process.getOutputStream();
            Launcher.Builder<Remote> builder = new Launcher.Builder<>() {
                @Override
                protected MessageJsonHandler createJsonHandler() {
                    handler = new MessageJsonHandler(getSupportedMethods()) {
                        @Override
                        public Message parseMessage(Reader input) {
                            String text = read(input);
                            parsed.set(text);
                            return super.parseMessage(new StringReader(text));
                        }
                    };
                    return handler;
                }
            };
            Launcher<Remote> launcher = builder.setLocalService(client).setRemoteInterface(Remote.class)
                    .setInput(process.getInputStream()).setOutput(stdin).setExecutorService(executor)
                    .wrapMessages(this::recording).create();
            remote = launcher.getRemoteProxy();
            endpoint = launcher.getRemoteEndpoint();
            launcher.startListening();
        }

        /** Records each message: ours as LSP4J serializes it, the server's as it was read. */
        private MessageConsumer recording(MessageConsumer next) {
            boolean incoming = next instanceof RemoteEndpoint;
            return message -> {
                if (incoming) {
                    String text = parsed.get();
                    parsed.remove();
                    exchange.add(new Entry("<-", message,
                            JsonParser.parseString(text != null ? text : handler.serialize(message))));
                } else {
                    exchange.add(new Entry("->", message, JsonParser.parseString(handler.serialize(message))));
                }
                next.consume(message);
            };
        }

        /** A frame LSP4J cannot produce, written as it is (nothing else writes meanwhile). */
        void sendRaw(String json) throws IOException {
            byte[] body = json.getBytes(StandardCharsets.UTF_8);
            exchange.add(new Entry("-> raw", null, JsonParser.parseString(json)));
            stdin.write(("Content-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            stdin.write(body);
            stdin.flush();
        }

        JsonObject initializeWith(JsonObject params) {
            JsonObject r = await(remote.initialize(params), "initialize");
            remote.initialized(new JsonObject());
            return r;
        }

        JsonObject initialize(Long processId, Path... roots) {
            JsonObject p = new JsonObject();
            p.add("processId", processId == null ? JsonNull.INSTANCE : new JsonPrimitive(processId));
            p.add("capabilities", new JsonObject());
            JsonObject options = new JsonObject();
            JsonArray r = new JsonArray();
            for (Path root : roots) {
                r.add(root.toString());
            }
            options.add("traceRoots", r);
            p.add("initializationOptions", options);
            return initializeWith(p);
        }

        void alive() {
            assertEquals("UP", await(remote.health(new JsonObject()), "health").get("status").getAsString(),
                    "tsp/health");
        }

        /** The exit code, the process having ended within {@code seconds}. */
        int exitCode(long seconds) throws InterruptedException {
            if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
                fail("sextant still running " + seconds + " s later");
            }
            return process.exitValue();
        }

        /** The first recorded message that matches, waiting up to {@link #T} seconds for it. */
        Entry waitFor(String what, Predicate<Entry> matches) throws InterruptedException {
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(T);
            while (true) {
                Optional<Entry> e = exchange.stream().filter(matches).findFirst();
                if (e.isPresent()) {
                    return e.get();
                }
                if (System.nanoTime() > until) {
                    fail("not within " + T + " s: " + what);
                }
                Thread.sleep(10);
            }
        }

        /** The id of the first request we sent with this method. */
        JsonElement idOf(String method) {
            return exchange.stream().filter(e -> e.out() && method.equals(str(e.object(), "method")))
                    .map(e -> e.object().get("id")).findFirst()
                    .orElseThrow(() -> new AssertionError("no " + method + " request sent"));
        }

        /** The server's answer to request {@code id}. */
        JsonObject answerTo(JsonElement id) throws InterruptedException {
            return waitFor("the answer to request " + id,
                    e -> !e.out() && id.equals(e.object().get("id")) && !e.object().has("method")).object();
        }

        /** {@code $/progress} params for {@code token}, in the order received. */
        List<JsonObject> progress(String token) {
            return client.progress.stream().filter(p -> token.equals(str(p, "token"))).toList();
        }

        String report() {
            StringBuilder b = new StringBuilder("exchange with " + bin + " (" + exchange.size() + " messages):\n");
            for (Entry e : exchange) {
                String s = e.toString();
                b.append("  ").append(s.length() > 2000 ? s.substring(0, 2000) + "..." : s).append('\n');
            }
            String err = log != null ? log : readLog();
            b.append("stderr:\n").append(err.length() > 8000 ? "..." + err.substring(err.length() - 8000) : err);
            return b.toString();
        }

        private String readLog() {
            try {
                return Files.readString(stderr, StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "unreadable: " + e;
            }
        }

        void destroy() {
            List<ProcessHandle> children = process.toHandle().descendants().toList();
            process.destroy();
            try {
                if (!process.waitFor(5, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    process.waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
            children.forEach(ProcessHandle::destroyForcibly);
            executor.shutdownNow();
            log = readLog();
        }
    }

    @TempDir
    Path tmp;

    private Path bin;
    private final List<Session> sessions = new ArrayList<>();
    private final List<Process> others = new ArrayList<>();

    /** On a failure: what was said, both ways, in each session. */
    @RegisterExtension
    final TestWatcher printer = new TestWatcher() {
        @Override
        public void testFailed(ExtensionContext context, Throwable cause) {
            for (Session s : sessions) {
                System.err.println(context.getDisplayName() + ": " + s.report());
            }
        }
    };

    private Session start(String... options) throws IOException {
        if (bin == null) {
            bin = ServeBinary.require();
        }
        Session s = new Session(options);
        sessions.add(s);
        return s;
    }

    /** LSP4J's logger of unmatched answers, quietened for raw frames (kept here: levels live with the logger). */
    private final Logger quiet = Logger.getLogger(RemoteEndpoint.class.getName());
    private final Level quietLevel = quiet.getLevel();

    @AfterEach
    void cleanUp() {
        quiet.setLevel(quietLevel);
        for (Session s : sessions) {
            s.destroy();
            assertFalse(s.process.isAlive(), "sextant " + s.process.pid() + " left behind");
        }
        for (Process p : others) {
            p.destroyForcibly();
        }
    }

    // ----- 1. initialize, initialized, shutdown, exit -----

    @Test
    void shutdownThenExitEndsWithCode0() throws Exception {
        Session s = start();
        JsonObject init = s.initialize(null);
        assertEquals("sextant", init.getAsJsonObject("serverInfo").get("name").getAsString(), init.toString());
        assertTrue(init.getAsJsonObject("capabilities").getAsJsonObject("experimental").has("methods"),
                init.toString());
        s.alive();
        JsonElement answer = await(s.remote.shutdown(), "shutdown");
        assertTrue(answer == null || answer.isJsonNull(), "shutdown answered " + answer);
        s.remote.exit();
        assertEquals(0, s.exitCode(10), "exit code after shutdown then exit");
    }

    @Test
    void exitWithoutShutdownEndsWithCode1() throws Exception {
        Session s = start();
        s.initialize(null);
        s.alive();
        s.remote.exit();
        assertEquals(1, s.exitCode(10), "exit code after exit without shutdown");
    }

    // ----- 2. shutdown's params: absent, null, {} -----

    enum ShutdownParams {
        ABSENT, NULL, EMPTY
    }

    @ParameterizedTest
    @EnumSource(ShutdownParams.class)
    void shutdownTakesAbsentNullOrEmptyParams(ShutdownParams form) throws Exception {
        Session s = start();
        s.initialize(null);
        JsonElement id;
        switch (form) {
            case NULL -> {
                // LSP4J's own request without params.
                await(s.remote.shutdown(), "shutdown");
                id = s.idOf("shutdown");
            }
            case EMPTY -> {
                await(s.endpoint.request("shutdown", new JsonObject()), "shutdown {}");
                id = s.idOf("shutdown");
            }
            default -> {
                // LSP4J always writes params (null when there are none): this one goes raw. LSP4J
                // then sees an answer to a request it did not send: not worth its warning here.
                quiet.setLevel(Level.SEVERE);
                id = new JsonPrimitive("raw-shutdown");
                s.sendRaw("{\"jsonrpc\":\"2.0\",\"id\":\"raw-shutdown\",\"method\":\"shutdown\"}");
            }
        }
        // What went out is the form under test.
        JsonObject sent = s.exchange.stream().filter(e -> e.out() && id.equals(e.object().get("id")))
                .map(Entry::object).findFirst().orElseThrow();
        switch (form) {
            case ABSENT -> assertFalse(sent.has("params"), sent.toString());
            case NULL -> assertTrue(sent.has("params") && sent.get("params").isJsonNull(), sent.toString());
            case EMPTY -> assertEquals(new JsonObject(), sent.get("params"), sent.toString());
        }
        // Answered with a result that is null, no error.
        JsonObject answer = s.answerTo(id);
        assertFalse(answer.has("error"), answer.toString());
        assertTrue(answer.has("result") && answer.get("result").isJsonNull(), answer.toString());
        s.remote.exit();
        assertEquals(0, s.exitCode(10), "exit after a shutdown with params " + form);
    }

    // ----- 3. the processId given in initialize -----

    @Test
    void theDeathOfTheClientProcessEndsTheServer() throws Exception {
        Process parent = new ProcessBuilder("sleep", "30").start();
        others.add(parent);
        Session s = start();
        s.initialize(parent.pid());
        s.alive();
        // Alive while the process lives (stdin stays open throughout).
        Thread.sleep(500);
        assertTrue(s.process.isAlive(), "sextant ended while the processId's process lived");
        parent.destroyForcibly();
        assertTrue(parent.waitFor(10, TimeUnit.SECONDS), "sleep not killed");
        long t0 = System.nanoTime();
        int code = s.exitCode(10);
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        System.out.println("sextant exited " + took.toMillis() + " ms after the processId's process died");
        assertTrue(took.compareTo(Duration.ofSeconds(2)) <= 0,
                "exited " + took.toMillis() + " ms after the death of its client (1 s promised, 2 s allowed)");
        assertEquals(1, code, "exit code when the client dies without shutdown");
    }

    // ----- 4. cancellation -----

    @Test
    void cancellingARequestAnswersRequestCancelled() throws Exception {
        Path trace = bigTrace("cancel.txt");
        Session s = start("--no-store");
        s.initialize(null, tmp);
        CompletableFuture<JsonObject> open = s.remote.openTrace(openParams(trace, "cancel-me"));
        // The request is at work: its progress has begun reporting.
        s.waitFor("a progress report for cancel-me", e -> isProgress(e, "cancel-me", "report"));
        assertFalse(open.isDone(), "the open answered before it could be cancelled: " + open);
        JsonElement id = s.idOf("tsp/traces/open");
        // (cancel's own answer is no proof: the server's answer may complete the future first)
        open.cancel(true);
        // LSP4J sent $/cancelRequest for that id; the server answered the request RequestCancelled.
        Entry cancel = s.waitFor("$/cancelRequest sent",
                e -> e.out() && "$/cancelRequest".equals(str(e.object(), "method")));
        assertEquals(id, cancel.object().getAsJsonObject("params").get("id"), cancel.toString());
        JsonObject answer = s.answerTo(id);
        assertFalse(answer.has("result"), answer.toString());
        assertEquals(-32800, answer.getAsJsonObject("error").get("code").getAsInt(), answer.toString());
        // Its progress ended too, and the session goes on.
        s.waitFor("progress end for cancel-me", e -> isProgress(e, "cancel-me", "end"));
        assertTrue(open.isCompletedExceptionally(), open.toString());
        s.alive();
    }

    // ----- 5. $/progress -----

    @Test
    void aWorkDoneTokenGetsProgressBeginReportsEnd() throws Exception {
        Path trace = bigTrace("progress.txt");
        Session s = start("--no-store");
        s.initialize(null, tmp);
        long t0 = System.nanoTime();
        JsonObject opened = await(s.remote.openTrace(openParams(trace, "open-1")), "tsp/traces/open");
        System.out.println(BIG_LINES + " lines indexed in " + (System.nanoTime() - t0) / 1_000_000 + " ms");
        // With a token, the answer waits for the indexing.
        assertEquals("COMPLETED", str(opened, "indexingStatus"), opened.toString());
        assertEquals(BIG_LINES, opened.get("nbEvents").getAsLong(), opened.toString());
        s.waitFor("progress end for open-1", e -> isProgress(e, "open-1", "end"));
        List<JsonObject> seen = s.progress("open-1");
        List<String> kinds = seen.stream().map(p -> str(p.getAsJsonObject("value"), "kind")).toList();
        assertEquals("begin", kinds.get(0), kinds.toString());
        assertEquals("end", kinds.get(kinds.size() - 1), kinds.toString());
        assertTrue(kinds.size() >= 3, "no report between begin and end: " + kinds);
        List<Integer> percents = new ArrayList<>();
        for (JsonObject p : seen.subList(1, seen.size() - 1)) {
            JsonObject v = p.getAsJsonObject("value");
            assertEquals("report", str(v, "kind"), seen.toString());
            percents.add(v.get("percentage").getAsInt());
        }
        for (int i = 0; i < percents.size(); i++) {
            int p = percents.get(i);
            assertTrue(p >= 0 && p <= 100 && (i == 0 || p > percents.get(i - 1)), "percentages " + percents);
        }
        System.out.println("progress of open-1: " + kinds + " " + percents);
        assertEquals(seen.size(), s.client.progress.size(), "progress for another token: " + s.client.progress);
    }

    // ----- 6. the indexing budget -----

    @Test
    void pastTheIndexingBudgetAnOpenIsRefusedWithRetryAfter() throws Exception {
        Path big = bigTrace("big.txt");
        Path small = tmp.resolve("small.txt");
        writeTrace(small, 100);
        Session s = start("--no-store", "--max-indexing", "1");
        s.initialize(null, tmp);
        CompletableFuture<JsonObject> first = s.remote.openTrace(openParams(big, "first"));
        s.waitFor("a progress report for the first open", e -> isProgress(e, "first", "report"));
        assertFalse(first.isDone(), "the first trace was indexed before the second open: " + first);
        // The second, while the first is indexing: busy, retry later.
        CompletableFuture<JsonObject> second = s.remote.openTrace(openParams(small, null));
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> second.get(T, TimeUnit.SECONDS), "the second open was not refused");
        assertTrue(e.getCause() instanceof ResponseErrorException, e.toString());
        JsonObject answer = s.answerTo(s.exchange.stream()
                .filter(x -> x.out() && "tsp/traces/open".equals(str(x.object(), "method")))
                .map(x -> x.object().get("id")).skip(1).findFirst().orElseThrow());
        JsonObject error = answer.getAsJsonObject("error");
        assertNotNull(error, answer.toString());
        assertEquals(-32053, error.get("code").getAsInt(), answer.toString());
        JsonElement retry = error.getAsJsonObject("data").get("retryAfter");
        assertTrue(retry != null && retry.isJsonPrimitive() && retry.getAsJsonPrimitive().isNumber(),
                "retryAfter: " + answer);
        // The first goes on; once it is indexed the second is taken.
        assertEquals("COMPLETED", str(await(first, "first open"), "indexingStatus"));
        JsonObject again = await(s.remote.openTrace(openParams(small, null)), "second open, again");
        assertEquals("small.txt", str(again, "name"), again.toString());
    }

    // ----- helpers -----

    private static boolean isProgress(Entry e, String token, String kind) {
        JsonObject o = e.object();
        if (e.out() || !"$/progress".equals(str(o, "method"))) {
            return false;
        }
        JsonObject p = o.getAsJsonObject("params");
        return token.equals(str(p, "token")) && kind.equals(str(p.getAsJsonObject("value"), "kind"));
    }

    private static JsonObject openParams(Path trace, String token) {
        JsonObject parameters = new JsonObject();
        parameters.addProperty("uri", trace.toString());
        JsonObject p = new JsonObject();
        p.add("parameters", parameters);
        if (token != null) {
            p.addProperty("workDoneToken", token);
        }
        return p;
    }

    private static String str(JsonObject o, String member) {
        JsonElement e = o == null ? null : o.get(member);
        return e != null && e.isJsonPrimitive() ? e.getAsString() : null;
    }

    private static <X> X await(CompletableFuture<X> f, String what) {
        try {
            return f.get(T, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError(what + " failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new AssertionError(what + ": no answer within " + T + " s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(what + ": interrupted", e);
        }
    }

    private static String read(Reader r) {
        try {
            StringBuilder b = new StringBuilder();
            char[] buf = new char[8192];
            for (int n; (n = r.read(buf)) > 0;) {
                b.append(buf, 0, n);
            }
            return b.toString();
        } catch (IOException e) {
            throw new IllegalStateException("reading a message", e);
        }
    }

    /** A generated ftrace trace of {@link #BIG_LINES} sched_switch lines (protocol/tests/common big_trace). */
    private Path bigTrace(String name) throws IOException {
        Path p = tmp.resolve(name);
        writeTrace(p, BIG_LINES);
        return p;
    }

    /** protocol/tests/common big_trace's lines, written without String.format (seconds, not tens of them). */
    private static void writeTrace(Path path, int lines) throws IOException {
        try (BufferedWriter out = Files.newBufferedWriter(path, StandardCharsets.UTF_8)) {
            out.write("# tracer: nop\n");
            int[] pid = {4600, 4601};
            StringBuilder b = new StringBuilder(256);
            for (int i = 0; i < lines; i++) {
                int cpu = i % 2;
                int k = (i * 7) % 8;
                int np = 4600 + k;
                String pc = "w" + (pid[cpu] - 4600);
                String nc = "w" + k;
                // t = 1000 s + i µs, as "%12.6f"
                long micros = 1_000_000_000L + i;
                String t = (micros / 1_000_000) + "." + pad(Long.toString(micros % 1_000_000), 6, '0');
                b.setLength(0);
                b.append(pad(pc, 16, ' ')).append('-').append(pid[cpu]).append(' ') // %-5d: 4 digits + 1
                        .append(" [00").append(cpu).append("] d..2. ").append(pad(t, 12, ' '))
                        .append(": sched_switch: prev_comm=").append(pc).append(" prev_pid=").append(pid[cpu])
                        .append(" prev_prio=120 prev_state=").append(i % 3 == 0 ? "S" : "R")
                        .append(" ==> next_comm=").append(nc).append(" next_pid=").append(np)
                        .append(" next_prio=120\n");
                out.append(b);
                pid[cpu] = np;
            }
        }
    }

    private static String pad(String s, int width, char with) {
        return s.length() >= width ? s : String.valueOf(with).repeat(width - s.length()) + s;
    }
}
