package io.sextant.tc;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * {@code sextant serve --stdio} as a child process, the way an editor runs a
 * language server: JSON-RPC on its stdin/stdout, its stderr (the server's
 * log) drained line by line so that it never blocks on a full pipe.
 */
public final class SextantProcess implements AutoCloseable {

    /** Environment variable naming the binary when no setting does. */
    public static final String BINARY_ENV = "SEXTANT_BIN";

    private static final Logger LOG = Logger.getLogger(SextantProcess.class.getName());

    private final Process process;
    private final SextantConnection connection;

    private SextantProcess(Process process, SextantConnection connection) {
        this.process = process;
        this.connection = connection;
    }

    /**
     * The binary to run: {@code setting} (the preference) when not blank,
     * else {@code $SEXTANT_BIN}, else {@code sextant} on the {@code PATH}.
     *
     * @throws IllegalStateException when none names an executable file
     */
    public static Path locate(String setting, Map<String, String> env) {
        return locate(setting, env, null);
    }

    /**
     * As {@link #locate(String, Map)}, then {@code sextant} in
     * {@code bundleDir} (the plugin's own folder, where a bundle that ships
     * the binary keeps it) when not null.
     */
    public static Path locate(String setting, Map<String, String> env, Path bundleDir) {
        for (var named : List.of(Map.entry("the sextant binary setting", nullToEmpty(setting)),
                Map.entry(BINARY_ENV, nullToEmpty(env.get(BINARY_ENV))))) {
            if (!named.getValue().isBlank()) {
                Path path = Path.of(named.getValue().strip());
                if (!Files.isRegularFile(path) || !Files.isExecutable(path)) {
                    throw new IllegalStateException(named.getKey() + " names " + path
                            + ", which is not an executable file");
                }
                return path;
            }
        }
        List<Path> candidates = new ArrayList<>();
        for (String dir : nullToEmpty(env.get("PATH")).split(java.io.File.pathSeparator)) {
            if (!dir.isBlank()) {
                candidates.add(Path.of(dir, "sextant"));
            }
        }
        if (bundleDir != null) {
            candidates.add(bundleDir.resolve("sextant"));
        }
        return candidates.stream().filter(p -> Files.isRegularFile(p) && Files.isExecutable(p)).findFirst()
                .orElseThrow(() -> new IllegalStateException("no sextant binary: set it in the preferences or in "
                        + BINARY_ENV + ", or put sextant on the PATH" + (bundleDir == null ? "" : " or in " + bundleDir)));
    }

    private static String nullToEmpty(String s) {
        return s == null ? "" : s;
    }

    /** Starts the server in {@code workDir} (a trace root), its stderr to java.util.logging. */
    public static SextantProcess start(Path binary, Path workDir, String clientName) {
        return start(binary, workDir, clientName, List.of(), line -> LOG.info(() -> "sextant: " + line));
    }

    /**
     * Starts the server in {@code workDir}; each line of its stderr goes to
     * {@code stderrLog}. {@code serveOptions} follow {@code serve --stdio}:
     * {@code --port N} also serves HTTP, so that a VS Code Trace Viewer can
     * join the same server and follow Trace Compass's selection.
     */
    public static SextantProcess start(Path binary, Path workDir, String clientName, List<String> serveOptions,
            Consumer<String> stderrLog) {
        List<String> command = new ArrayList<>(List.of(binary.toString(), "serve", "--stdio"));
        command.addAll(serveOptions);
        Process process;
        try {
            process = new ProcessBuilder(command).directory(workDir.toFile()).start();
        } catch (IOException e) {
            throw new UncheckedIOException("starting " + String.join(" ", command) + " in " + workDir, e);
        }
        Thread drain = new Thread(() -> drain(process, stderrLog), "sextant-stderr-" + process.pid());
        drain.setDaemon(true);
        drain.start();
        SextantConnection connection = SextantConnection.open(process.getInputStream(), process.getOutputStream(),
                clientName);
        return new SextantProcess(process, connection);
    }

    private static void drain(Process process, Consumer<String> log) {
        try (BufferedReader r = new BufferedReader(
                new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                log.accept(line);
            }
        } catch (IOException e) {
            // The pipe closes when the process ends; anything else is worth a line in the log.
            if (process.isAlive()) {
                LOG.log(Level.WARNING, "reading sextant's stderr", e);
            }
        }
    }

    public SextantConnection connection() {
        return connection;
    }

    public ProcessHandle handle() {
        return process.toHandle();
    }

    /**
     * Stops the server: {@code shutdown} then {@code exit}, waiting up to
     * {@code timeout} for it to end; destroyed if it does not (then forcibly).
     * Returns its exit code.
     */
    public int stop(Duration timeout) {
        try {
            if (process.isAlive()) {
                try {
                    connection.shutdown(timeout);
                } catch (SextantException e) {
                    // The cause is in the message; a stack trace would say nothing more.
                    LOG.warning(() -> "sextant did not shut down cleanly: " + e.getMessage());
                }
            }
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warning(() -> "sextant (pid " + process.pid() + ") still running " + timeout.toMillis()
                        + " ms after exit; destroying it");
                process.destroy();
                if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    process.destroyForcibly().waitFor();
                }
            }
            return process.exitValue();
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new SextantException("interrupted while stopping sextant (pid " + process.pid() + ")", e);
        } finally {
            connection.close();
        }
    }

    @Override
    public void close() {
        stop(Duration.ofSeconds(5));
    }
}
