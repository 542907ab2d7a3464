package io.sextant.tc;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.logging.Logger;

import com.google.gson.JsonObject;

import io.sextant.tc.protocol.Experiment;

/**
 * The one sextant server of a Trace Compass session and what the session
 * opened in it. Started on first use; when the process dies it is started
 * again and the experiments and execution models open before are opened
 * and posted again (experiment UUIDs are derived from their names, so they
 * stay the same), up to {@link #MAX_QUICK_RESTARTS} times in a row when each
 * dies within {@link #QUICK} of its start. Keys are the caller's names for
 * what it opened (Trace Compass: the trace's path).
 */
public final class Sidecar implements AutoCloseable {

    /** How the process is started; read again at each start, so a changed preference applies on restart. */
    public record Settings(Path binary, Path workDir, List<String> serveOptions, Duration timeout) {
    }

    /** Restarts given up after this many processes in a row died within {@link #QUICK}. */
    public static final int MAX_QUICK_RESTARTS = 3;
    static final Duration QUICK = Duration.ofSeconds(10);

    private static final Logger LOG = Logger.getLogger(Sidecar.class.getName());

    private record Opened(String name, List<String> paths, String expUUID) {
    }

    private record Posted(String name, JsonObject model, DerivedOutputs outputs) {
    }

    private final Supplier<Settings> settings;
    private final String clientName;
    private final Consumer<String> stderrLog;
    private final List<SignalBridge> bridges = new CopyOnWriteArrayList<>();
    private final List<Runnable> restartListeners = new CopyOnWriteArrayList<>();
    private final Map<String, Opened> opened = new ConcurrentHashMap<>();
    private final Map<String, Posted> models = new ConcurrentHashMap<>();
    private final Map<String, Explanations.Outputs> explanations = new ConcurrentHashMap<>();

    private SextantProcess process;
    private Instant startedAt;
    private int quickDeaths;
    private boolean stopped;

    public Sidecar(Supplier<Settings> settings, String clientName, Consumer<String> stderrLog) {
        this.settings = settings;
        this.clientName = clientName;
        this.stderrLog = stderrLog;
    }

    /** Other clients' time changes go to {@code bridge}, on this and every later process. */
    public void addBridge(SignalBridge bridge) {
        bridges.add(bridge);
        SextantProcess p = current();
        if (p != null) {
            p.connection().timeSync().addListener(bridge);
        }
    }

    /** Called (on a background thread) once a dead process was replaced and its state restored. */
    public void addRestartListener(Runnable listener) {
        restartListeners.add(listener);
    }

    /** The live connection, starting the process when there is none. */
    public synchronized SextantConnection connection() {
        if (stopped) {
            throw new SextantException("sextant was stopped", null);
        }
        if (process == null) {
            Settings s = settings.get();
            SextantProcess p = SextantProcess.start(s.binary(), s.workDir(), clientName, s.serveOptions(), stderrLog);
            p.connection().initialize("0.1.0", List.of(), s.timeout());
            bridges.forEach(p.connection().timeSync()::addListener);
            process = p;
            startedAt = Instant.now();
            p.handle().onExit().thenRunAsync(() -> died(p));
        }
        return process.connection();
    }

    public Duration timeout() {
        return settings.get().timeout();
    }

    /** The settings the next start would use (the binary, for running its other commands). */
    public Settings settings() {
        return settings.get();
    }

    public synchronized OptionalLong pid() {
        return process == null ? OptionalLong.empty() : OptionalLong.of(process.handle().pid());
    }

    private synchronized SextantProcess current() {
        return process;
    }

    private void died(SextantProcess p) {
        synchronized (this) {
            if (stopped || p != process) {
                return;
            }
            process = null;
            boolean quick = Duration.between(startedAt, Instant.now()).compareTo(QUICK) < 0;
            quickDeaths = quick ? quickDeaths + 1 : 0;
            if (quickDeaths > MAX_QUICK_RESTARTS) {
                LOG.severe(() -> "sextant died " + quickDeaths + " times within " + QUICK.toSeconds()
                        + " s of starting; not restarting it until it is used again");
                p.connection().close();
                return;
            }
        }
        p.connection().close();
        LOG.warning(() -> "sextant (pid " + p.handle().pid() + ") died; restarting it");
        try {
            restore();
        } catch (RuntimeException e) {
            LOG.severe(() -> "restarting sextant: " + e.getMessage());
            return;
        }
        restartListeners.forEach(Runnable::run);
    }

    /** A new process with what the old one had open. */
    private void restore() {
        SextantConnection c = connection();
        Duration t = timeout();
        explanations.clear();
        for (Map.Entry<String, Opened> e : opened.entrySet()) {
            Opened o = e.getValue();
            Experiments experiments = new Experiments(c, t);
            experiments.awaitIndexed(experiments.open(o.name(), o.paths(), null).uuid());
            Posted m = models.get(e.getKey());
            if (m != null) {
                models.put(e.getKey(), new Posted(m.name(), m.model(),
                        new ExecutionModels(c, t).post(o.expUUID(), m.name(), "", m.model(), null)));
            }
        }
    }

    /** Opens {@code paths} as the experiment {@code name} under {@code key} and waits for its index. */
    public Experiment open(String key, String name, List<String> paths) {
        Experiments experiments = new Experiments(connection(), timeout());
        Experiment e = experiments.awaitIndexed(experiments.open(name, paths, null).uuid());
        opened.put(key, new Opened(name, List.copyOf(paths), e.uuid()));
        return e;
    }

    /** Closes what {@code key} opened (nothing when it opened nothing). */
    public void close(String key) {
        Opened o = opened.remove(key);
        models.remove(key);
        explanations.remove(key);
        if (o != null && current() != null) {
            new Experiments(connection(), timeout()).close(o.expUUID());
        }
    }

    public Optional<String> experiment(String key) {
        return Optional.ofNullable(opened.get(key)).map(Opened::expUUID);
    }

    public Optional<String> key(String expUUID) {
        return opened.entrySet().stream().filter(e -> e.getValue().expUUID().equals(expUUID))
                .map(Map.Entry::getKey).findFirst();
    }

    private String requireExperiment(String key) {
        return experiment(key).orElseThrow(() -> new SextantException(key + " is not open in sextant", null));
    }

    /**
     * Posts an execution model on {@code key}'s experiment; it replaces the one posted before. The old one is
     * deleted after the new one is in, so that a refused model leaves it in place; but sextant refuses a
     * second model under a name it has (409), so one of the same name (a model edited in the dialog and
     * posted again) is deleted first, and posted back if the new one is refused.
     */
    public DerivedOutputs postModel(String key, String name, JsonObject model) {
        String exp = requireExperiment(key);
        ExecutionModels m = new ExecutionModels(connection(), timeout());
        Posted old = models.get(key);
        if (old != null && old.name().equals(name)) {
            m.delete(exp, old.outputs());
            models.remove(key);
            DerivedOutputs outputs;
            try {
                outputs = m.post(exp, name, "defined in Trace Compass", model, null);
            } catch (SextantException refused) {
                try {
                    models.put(key, new Posted(name, old.model(),
                            m.post(exp, name, "defined in Trace Compass", old.model(), null)));
                } catch (SextantException alsoRefused) {
                    refused.addSuppressed(alsoRefused);
                }
                throw refused;
            }
            models.put(key, new Posted(name, model, outputs));
            return outputs;
        }
        DerivedOutputs outputs = m.post(exp, name, "defined in Trace Compass", model, null);
        models.put(key, new Posted(name, model, outputs));
        if (old != null) {
            m.delete(exp, old.outputs());
        }
        return outputs;
    }

    public Optional<DerivedOutputs> model(String key) {
        return Optional.ofNullable(models.get(key)).map(Posted::outputs);
    }

    /** Explains thread {@code tid} over [start, end] on {@code key}'s experiment; it replaces the one before. */
    public Explanations.Outputs explain(String key, String name, long tid, long start, long end) {
        Explanations.Outputs out = new Explanations(connection(), timeout()).explain(requireExperiment(key), name,
                Explanations.threadRange(tid, start, end), null);
        explanations.put(key, out);
        return out;
    }

    public Optional<Explanations.Outputs> explanation(String key) {
        return Optional.ofNullable(explanations.get(key));
    }

    /** Stops the process for good (Eclipse is closing). */
    public void stop() {
        SextantProcess p;
        synchronized (this) {
            stopped = true;
            p = process;
            process = null;
        }
        if (p != null) {
            p.stop(Duration.ofSeconds(5));
        }
    }

    /** Last resort when the JVM exits without stopping the bundle: no orphan is left. */
    public void kill() {
        SextantProcess p = current();
        if (p != null) {
            p.handle().destroyForcibly();
        }
    }

    @Override
    public void close() {
        stop();
    }
}
