package io.sextant.tc.tests;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

/** The repository, the real binary cargo built, and independent answers from its command line. */
final class Sextant {

    private Sextant() {
    }

    static Path repo() {
        return Path.of(System.getProperty("sextant.repo", "../../..")).toAbsolutePath().normalize();
    }

    /** {@code $SEXTANT_BIN}, else the release build; the tests fail without one (they exist to run against it). */
    static Path binary() {
        String env = System.getenv("SEXTANT_BIN");
        Path bin = env != null && !env.isBlank() ? Path.of(env) : repo().resolve("target/release/sextant");
        if (!Files.isExecutable(bin)) {
            throw new AssertionError("no sextant binary at " + bin
                    + " (set SEXTANT_BIN or run cargo build --release -p sextant-protocol)");
        }
        return bin;
    }

    static Path fixture() {
        return repo().resolve("fixtures/scenario-a/ctf");
    }

    static Path model() {
        return repo().resolve("schemas/examples/periodic-rt_high.json");
    }

    /** {@code sextant analyze --format json} on the fixture with the scenario's model: the reference for the views. */
    static JsonObject analyze() throws IOException, InterruptedException {
        return analyze(model());
    }

    /** {@code sextant analyze --format json} on the fixture with the model in {@code model}. */
    static JsonObject analyze(Path model) throws IOException, InterruptedException {
        return run("analyze", fixture().toString(), "--model", model.toString(), "--format", "json");
    }

    /** {@code sextant tasks --format json} on the fixture: its real-time tasks. */
    static List<JsonObject> tasks() throws IOException, InterruptedException {
        List<JsonObject> tasks = new ArrayList<>();
        run("tasks", fixture().toString(), "--format", "json").getAsJsonArray("tasks")
                .forEach(t -> tasks.add(t.getAsJsonObject()));
        return tasks;
    }

    /** {@code sextant explain --longest --format json} with the scenario's model: the critical path, the complement. */
    static JsonObject explainLongest() throws IOException, InterruptedException {
        return run("explain", fixture().toString(), "--model", model().toString(), "--longest", "--format", "json");
    }

    private static JsonObject run(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(binary().toString());
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new AssertionError(String.join(" ", cmd) + " failed");
        }
        return JsonParser.parseString(out).getAsJsonObject();
    }

    /** A port free now, for the sidecar's HTTP side. */
    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
