package io.sextant.tc;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;

/**
 * The real sextant binary for the integration tests: {@code $SEXTANT_BIN},
 * else the release build in the repository. Missing, it fails the tests in
 * CI (env CI set) and skips them elsewhere; a binary without
 * {@code serve --stdio} (built before the JSON-RPC transport) skips them.
 */
final class ServeBinary {

    private ServeBinary() {
    }

    static Path repo() {
        return Path.of(System.getProperty("sextant.repo", "..")).toAbsolutePath().normalize();
    }

    /** The binary, or the test is failed / skipped with the reason. */
    static Path require() {
        String env = System.getenv(SextantProcess.BINARY_ENV);
        Path bin = env != null && !env.isBlank() ? Path.of(env) : repo().resolve("target/release/sextant");
        if (!Files.isExecutable(bin)) {
            String why = "no sextant binary at " + bin + " (set " + SextantProcess.BINARY_ENV
                    + " or run cargo build --release -p sextant-protocol)";
            if (System.getenv("CI") != null) {
                fail(why);
            }
            Assumptions.abort(why);
        }
        String help = run(List.of(bin.toString(), "serve", "--help")).stdout;
        Assumptions.assumeTrue(help.contains("--stdio"),
                bin + " has no `serve --stdio` yet (built before the JSON-RPC transport): integration tests skipped");
        return bin;
    }

    record Result(int code, String stdout, String stderr) {
    }

    /** Runs a command to the end; its output in memory. */
    static Result run(List<String> command) {
        try {
            Path out = Files.createTempFile("sextant-out", ".txt");
            Path err = Files.createTempFile("sextant-err", ".txt");
            try {
                Process p = new ProcessBuilder(new ArrayList<>(command)).directory(repo().toFile())
                        .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
                if (!p.waitFor(120, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    fail(String.join(" ", command) + ": still running after 120 s");
                }
                return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                        Files.readString(err, StandardCharsets.UTF_8));
            } finally {
                Files.deleteIfExists(out);
                Files.deleteIfExists(err);
            }
        } catch (IOException e) {
            throw new AssertionError("running " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted running " + command, e);
        }
    }
}
