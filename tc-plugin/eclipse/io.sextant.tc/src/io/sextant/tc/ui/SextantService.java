package io.sextant.tc.ui;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.eclipse.core.runtime.FileLocator;
import org.eclipse.core.runtime.ILog;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.Platform;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.jface.preference.IPreferenceStore;
import org.eclipse.swt.widgets.Control;
import org.eclipse.swt.widgets.Display;
import org.eclipse.tracecompass.tmf.core.signal.TmfSelectionRangeUpdatedSignal;
import org.eclipse.tracecompass.tmf.core.signal.TmfSignalHandler;
import org.eclipse.tracecompass.tmf.core.signal.TmfSignalManager;
import org.eclipse.tracecompass.tmf.core.signal.TmfTraceClosedSignal;
import org.eclipse.tracecompass.tmf.core.signal.TmfTraceOpenedSignal;
import org.eclipse.tracecompass.tmf.core.signal.TmfWindowRangeUpdatedSignal;
import org.eclipse.tracecompass.tmf.core.timestamp.TmfTimeRange;
import org.eclipse.tracecompass.tmf.core.timestamp.TmfTimestamp;
import org.eclipse.tracecompass.tmf.core.trace.ITmfTrace;
import org.eclipse.tracecompass.tmf.core.trace.TmfTraceManager;
import org.osgi.framework.Bundle;

import io.sextant.tc.Sidecar;
import io.sextant.tc.SextantProcess;
import io.sextant.tc.SignalBridge;
import io.sextant.tc.TimeSync;
import io.sextant.tc.protocol.TimeRange;

/**
 * Where Trace Compass meets the {@link Sidecar}: traces opened and closed in
 * Trace Compass are opened and closed in sextant (same paths), selection and
 * window changes go both ways through the core's {@link TimeSync} (which
 * stops the echo), and views are told when sextant's outputs change.
 */
public final class SextantService {

    private static final ILog LOG = Platform.getLog(SextantService.class);

    private final Sidecar sidecar;
    private final Map<String, ITmfTrace> traces = new ConcurrentHashMap<>();
    /** Told of a trace whose outputs changed (a model posted, an explanation made, sextant restarted). */
    private final List<Consumer<ITmfTrace>> listeners = new CopyOnWriteArrayList<>();
    private final Thread shutdownHook;

    SextantService(IPreferenceStore prefs, Bundle bundle) {
        this.sidecar = new Sidecar(() -> settings(prefs, bundle), "trace-compass",
                line -> LOG.log(new Status(IStatus.INFO, Activator.ID, "sextant: " + line)));
        sidecar.addBridge(new Bridge());
        sidecar.addRestartListener(() -> traces.values().forEach(this::fireOutputsChanged));
        // The bundle's stop ends sextant; this covers a JVM that exits without stopping bundles.
        shutdownHook = new Thread(sidecar::kill, "sextant-kill-on-exit");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
        TmfSignalManager.register(this);
        // Traces opened before the bundle started.
        TmfTraceManager.getInstance().getOpenedTraces().forEach(this::openLater);
    }

    public static SextantService get() {
        return Activator.getDefault().service();
    }

    private static Sidecar.Settings settings(IPreferenceStore prefs, Bundle bundle) {
        Path bundleDir = null;
        try {
            bundleDir = FileLocator.getBundleFileLocation(bundle).map(f -> f.toPath().getParent()).orElse(null);
        } catch (RuntimeException e) {
            // A bundle without a file location (unusual) just has no folder to look in.
        }
        Path binary = SextantProcess.locate(prefs.getString(Preferences.BINARY), System.getenv(), bundleDir);
        String options = prefs.getString(Preferences.SERVE_OPTIONS).strip();
        List<String> serveOptions = options.isEmpty() ? List.of() : Arrays.asList(options.split("\\s+"));
        // sextant opens traces under its working directory: the file system root lets it open any path
        // Trace Compass can, as the user's own process.
        return new Sidecar.Settings(binary, Path.of("/"), serveOptions,
                Duration.ofSeconds(prefs.getInt(Preferences.TIMEOUT_S)));
    }

    public Sidecar sidecar() {
        return sidecar;
    }

    /** The key a trace is known by in the sidecar: its path. */
    public static String key(ITmfTrace trace) {
        return trace.getPath();
    }

    public Optional<String> experiment(ITmfTrace trace) {
        return sidecar.experiment(key(trace));
    }

    /**
     * A view's way to follow sextant's outputs: {@code reload} runs on the UI
     * thread when the outputs of the trace it shows ({@code shown}) change,
     * until {@code control} is disposed.
     */
    public void followOutputs(Control control, Supplier<ITmfTrace> shown, Consumer<ITmfTrace> reload) {
        Consumer<ITmfTrace> l = trace -> Display.getDefault().asyncExec(() -> {
            if (!control.isDisposed() && trace.equals(shown.get())) {
                reload.accept(trace);
            }
        });
        listeners.add(l);
        control.addDisposeListener(e -> listeners.remove(l));
    }

    public void fireOutputsChanged(ITmfTrace trace) {
        listeners.forEach(l -> l.accept(trace));
    }

    /** Opens the trace in sextant in the background (indexing may take a while). */
    private void openLater(ITmfTrace trace) {
        String key = key(trace);
        if (traces.putIfAbsent(key, trace) != null) {
            return;
        }
        List<String> paths = TmfTraceManager.getTraceSet(trace).stream().map(ITmfTrace::getPath).toList();
        Job job = Job.create("sextant: opening " + trace.getName(), monitor -> {
            try {
                sidecar.open(key, trace.getName(), paths);
                fireOutputsChanged(trace);
                return Status.OK_STATUS;
            } catch (RuntimeException e) {
                return new Status(IStatus.ERROR, Activator.ID, "sextant could not open " + paths, e);
            }
        });
        job.setSystem(true);
        job.schedule();
    }

    @TmfSignalHandler
    public void traceOpened(TmfTraceOpenedSignal signal) {
        openLater(signal.getTrace());
    }

    @TmfSignalHandler
    public void traceClosed(TmfTraceClosedSignal signal) {
        String key = key(signal.getTrace());
        if (traces.remove(key) != null) {
            try {
                sidecar.close(key);
            } catch (RuntimeException e) {
                LOG.log(new Status(IStatus.WARNING, Activator.ID, "closing " + key + " in sextant", e));
            }
        }
    }

    @TmfSignalHandler
    public void selectionRangeUpdated(TmfSelectionRangeUpdatedSignal signal) {
        local(TimeSync.Kind.SELECTION, signal.getTrace(), signal.getBeginTime().toNanos(),
                signal.getEndTime().toNanos());
    }

    @TmfSignalHandler
    public void windowRangeUpdated(TmfWindowRangeUpdatedSignal signal) {
        TmfTimeRange r = signal.getCurrentRange();
        local(TimeSync.Kind.WINDOW, signal.getTrace(), r.getStartTime().toNanos(), r.getEndTime().toNanos());
    }

    /** A range changed in Trace Compass: to sextant, unless it is the one sextant just showed (no echo). */
    private void local(TimeSync.Kind kind, ITmfTrace signalled, long start, long end) {
        ITmfTrace trace = signalled != null ? signalled : TmfTraceManager.getInstance().getActiveTrace();
        if (trace == null) {
            return;
        }
        sidecar.experiment(key(trace)).ifPresent(exp -> {
            try {
                sidecar.connection().timeSync().local(kind, exp, start, end);
            } catch (RuntimeException e) {
                LOG.log(new Status(IStatus.WARNING, Activator.ID, "sending a time change to sextant", e));
            }
        });
    }

    /** Other clients' changes, shown as Trace Compass signals on the UI thread. */
    private final class Bridge implements SignalBridge {

        @Override
        public void selectionRangeUpdated(TimeRange range) {
            show(range, trace -> new TmfSelectionRangeUpdatedSignal(this, TmfTimestamp.fromNanos(range.start()),
                    TmfTimestamp.fromNanos(range.end()), trace));
        }

        @Override
        public void windowRangeUpdated(TimeRange range) {
            show(range, trace -> new TmfWindowRangeUpdatedSignal(this, new TmfTimeRange(
                    TmfTimestamp.fromNanos(range.start()), TmfTimestamp.fromNanos(range.end())), trace));
        }

        private void show(TimeRange range,
                java.util.function.Function<ITmfTrace, org.eclipse.tracecompass.tmf.core.signal.TmfSignal> signal) {
            sidecar.key(range.experimentUUID()).map(traces::get).ifPresent(trace -> Display.getDefault()
                    .asyncExec(() -> TmfSignalManager.dispatchSignal(signal.apply(trace))));
        }
    }

    void dispose() {
        TmfSignalManager.deregister(this);
        sidecar.stop();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // The JVM is already exiting: the hook runs anyway and finds nothing to kill.
        }
    }

    /** The open trace a key names. */
    public Optional<ITmfTrace> trace(String key) {
        return Optional.ofNullable(traces.get(key));
    }
}
