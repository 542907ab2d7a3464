package io.sextant.tc.ui;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.jface.dialogs.InputDialog;
import org.eclipse.jface.dialogs.MessageDialog;
import org.eclipse.jface.window.Window;
import org.eclipse.swt.widgets.Display;
import org.eclipse.swt.widgets.Shell;
import org.eclipse.tracecompass.tmf.core.signal.TmfSignalManager;
import org.eclipse.tracecompass.tmf.core.signal.TmfWindowRangeUpdatedSignal;
import org.eclipse.tracecompass.tmf.core.timestamp.TmfTimeRange;
import org.eclipse.tracecompass.tmf.core.timestamp.TmfTimestamp;
import org.eclipse.tracecompass.tmf.core.trace.ITmfTrace;
import org.eclipse.tracecompass.tmf.core.trace.TmfTraceManager;
import org.eclipse.ui.IWorkbenchPage;
import org.eclipse.ui.PartInitException;
import org.eclipse.ui.PlatformUI;

import com.google.gson.JsonObject;

import io.sextant.tc.Rpc;
import io.sextant.tc.SextantException;
import io.sextant.tc.Sidecar;
import io.sextant.tc.protocol.ConfigTypeRef;

/**
 * The Comparison View's actions: define a model, discover one from a thread, explain an execution; and
 * posting a model, which the real-time tasks view does with a task's own.
 */
public final class ModelActions {

    static final String MODEL_TYPE = "sextant.execution-model";

    private ModelActions() {
    }

    private static boolean noTrace(Shell shell, ITmfTrace trace) {
        if (trace == null) {
            MessageDialog.openInformation(shell, "sextant", "Open a trace first.");
            return true;
        }
        return false;
    }

    /** The schema sextant serves for execution models. */
    public static JsonObject modelSchema(Sidecar sidecar) {
        JsonObject type = Rpc.await(sidecar.connection().tsp().configType(new ConfigTypeRef(MODEL_TYPE)),
                sidecar.timeout(), "tsp/config/type " + MODEL_TYPE);
        return type.has("schema") ? type.getAsJsonObject("schema") : new JsonObject();
    }

    /** Opens the model dialog ({@code initial} JSON, or a template) and posts what it accepts. */
    public static void define(Shell shell, ITmfTrace trace, String initial) {
        if (noTrace(shell, trace)) {
            return;
        }
        Sidecar sidecar = SextantService.get().sidecar();
        JsonObject schema;
        try {
            schema = modelSchema(sidecar);
        } catch (SextantException e) {
            MessageDialog.openError(shell, "sextant", e.getMessage());
            return;
        }
        String text = initial != null ? initial
                : "{\n  \"name\": \"my job\",\n  \"mode\": \"same_tid\",\n  \"threads\": { \"process\": \"^name$\" },\n"
                        + "  \"events\": [ { \"name\": \"sched_switch\" } ]\n}\n";
        ModelDialog dialog = new ModelDialog(shell, schema, text);
        if (dialog.open() != Window.OK) {
            return;
        }
        JsonObject model = dialog.model();
        String name = model.has("name") ? model.get("name").getAsString() : "model";
        post(trace, name, model, err -> Display.getDefault().asyncExec(() -> {
            MessageDialog.openError(shell, "sextant refused the model", err);
            define(shell, trace, dialog.text());
        }));
    }

    /**
     * Posts {@code model} for {@code trace} under {@code name} (sextant keeps one model per name) in the
     * background, then shows the Comparison View.
     */
    public static void post(ITmfTrace trace, String name, JsonObject model,
            java.util.function.Consumer<String> onError) {
        Job job = Job.create("sextant: finding the executions of " + name, monitor -> {
            try {
                SextantService.get().sidecar().postModel(SextantService.key(trace), name, model);
            } catch (SextantException e) {
                onError.accept(e.getMessage());
                return Status.OK_STATUS;
            }
            SextantService.get().fireOutputsChanged(trace);
            ExecutionsAnalysis.rerun(trace);
            Display.getDefault().asyncExec(() -> show(ComparisonView.ID));
            return Status.OK_STATUS;
        });
        job.schedule();
    }

    /** Runs {@code sextant discover} on the thread and opens the model it suggests in the dialog. */
    public static void discover(Shell shell, ITmfTrace trace, Optional<Long> selectedTid) {
        if (noTrace(shell, trace)) {
            return;
        }
        Long tid = selectedTid.orElse(null);
        if (tid == null) {
            InputDialog ask = new InputDialog(shell, "sextant discover", "Thread id (TID) to find patterns in:", "",
                    s -> s.matches("\\d+") ? null : "a thread id is a number");
            if (ask.open() != Window.OK) {
                return;
            }
            tid = Long.parseLong(ask.getValue());
        }
        long chosen = tid;
        List<String> paths = TmfTraceManager.getTraceSet(trace).stream().map(ITmfTrace::getPath).toList();
        Job job = Job.create("sextant: discovering patterns of thread " + chosen, monitor -> {
            try {
                String model = discoverModel(SextantService.get().sidecar().settings().binary().toString(),
                        paths.get(0), chosen);
                Display.getDefault().asyncExec(() -> define(shell, trace, model));
                return Status.OK_STATUS;
            } catch (IOException | RuntimeException e) {
                return new Status(IStatus.ERROR, Activator.ID, "sextant discover on thread " + chosen, e);
            }
        });
        job.schedule();
    }

    /**
     * {@code sextant discover TRACE --tid N --within-job --emit-model}: the
     * model of the thread's most frequent job pattern, as JSON text.
     * (Discovery is a command of the binary, not a method of the server.)
     */
    public static String discoverModel(String binary, String tracePath, long tid) throws IOException {
        List<String> command = new ArrayList<>(List.of(binary, "discover", tracePath, "--tid", Long.toString(tid),
                "--within-job", "--emit-model"));
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", command) + " failed (exit " + p.exitValue() + ")");
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted: " + String.join(" ", command), e);
        }
        return out;
    }

    /** Explains the selected execution, then shows the complement and the facilities. */
    public static void explain(Shell shell, ITmfTrace trace, Optional<ExecutionEntryModel> selected) {
        if (noTrace(shell, trace)) {
            return;
        }
        if (selected.isEmpty()) {
            MessageDialog.openInformation(shell, "sextant", "Select an execution in the Comparison View first.");
            return;
        }
        ExecutionEntryModel x = selected.get();
        Job job = Job.create("sextant: explaining execution " + x.getName(), monitor -> {
            try {
                explainExecution(trace, "execution " + x.getName(), x.tid(), x.absoluteStart(), x.absoluteEnd());
            } catch (SextantException e) {
                return new Status(IStatus.ERROR, Activator.ID, e.getMessage(), e);
            }
            Display.getDefault().asyncExec(() -> {
                show(FacilitiesView.ID);
                show(ComplementView.ID);
            });
            return Status.OK_STATUS;
        });
        job.schedule();
    }

    /**
     * Explains thread {@code tid} over [start, end] (blocking), tells the
     * views, and brings the range into every view's window (a tenth of it
     * on each side).
     */
    public static void explainExecution(ITmfTrace trace, String name, long tid, long start, long end) {
        SextantService.get().sidecar().explain(SextantService.key(trace), name, tid, start, end);
        SextantService.get().fireOutputsChanged(trace);
        long margin = Math.max(1, (end - start) / 10);
        TmfTimeRange window = new TmfTimeRange(TmfTimestamp.fromNanos(start - margin),
                TmfTimestamp.fromNanos(end + margin));
        Display.getDefault().asyncExec(() -> TmfSignalManager.dispatchSignal(
                new TmfWindowRangeUpdatedSignal(ModelActions.class, window, trace)));
    }

    static void show(String viewId) {
        IWorkbenchPage page = PlatformUI.getWorkbench().getActiveWorkbenchWindow().getActivePage();
        try {
            page.showView(viewId);
        } catch (PartInitException e) {
            throw new IllegalStateException("opening the view " + viewId, e);
        }
    }
}
