package io.sextant.tc.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import org.eclipse.core.runtime.IStatus;
import org.eclipse.tracecompass.analysis.os.linux.core.kernel.KernelAnalysisModule;
import org.eclipse.tracecompass.analysis.os.linux.core.model.ProcessStatus;
import org.eclipse.tracecompass.lttng2.kernel.core.trace.LttngKernelTrace;
import org.eclipse.tracecompass.statesystem.core.ITmfStateSystem;
import org.eclipse.tracecompass.statesystem.core.interval.ITmfStateInterval;
import org.eclipse.tracecompass.tmf.core.analysis.IAnalysisModule;
import org.eclipse.tracecompass.tmf.core.analysis.IAnalysisModuleHelper;
import org.eclipse.tracecompass.tmf.core.analysis.TmfAnalysisManager;
import org.eclipse.tracecompass.tmf.core.trace.TmfTraceManager;
import org.eclipse.tracecompass.tmf.ctf.core.event.CtfTmfEvent;
import org.junit.jupiter.api.Test;

/**
 * What a Trace Compass 6.2 user waits for on a kernel trace's first open: the
 * trace validated as an LTTng kernel trace (the type Trace Compass picks for
 * a CTF trace whose env says domain = "kernel", LTTng's or perf's), indexed,
 * and its "Linux Kernel" analysis (KernelAnalysisModule: the thread, CPU and
 * IRQ state system behind Control Flow and Resources) built, fully done. As
 * the workbench does on opening, the analysis is scheduled and the index built
 * at the same time; the time is until both are done.
 *
 * A benchmark, not a test: it does nothing unless {@code sextant.bench.trace}
 * names a trace, and it writes its figures as one JSON object to
 * {@code sextant.bench.out} (tests/bench/tracecompass.py reads them). One
 * trace per JVM, so that the JVM's peak resident memory (VmHWM) is the
 * trace's. The supplementary files (index, state history) go to the fresh
 * workspace Tycho makes for the run, so nothing of an earlier run is reused.
 */
class FirstOpenBench {

    @Test
    void firstOpen() throws Exception {
        String trace = System.getProperty("sextant.bench.trace", "");
        if (trace.isBlank()) {
            System.out.println("sextant.bench: sextant.bench.trace not set, no benchmark");
            return;
        }
        Path out = Path.of(System.getProperty("sextant.bench.out", "bench.json"));
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("trace", trace);
        r.put("java", System.getProperty("java.version"));
        r.put("max_heap_mb", Runtime.getRuntime().maxMemory() / (1024 * 1024));
        long[] before = memoryKb();
        r.put("baseline_rss_mb", before[0] / 1024.0);
        r.put("baseline_hwm_mb", before[1] / 1024.0);

        long cpu0 = cpuNs();
        long t0 = System.nanoTime();
        LttngKernelTrace t = new LttngKernelTrace();
        IStatus valid = t.validate(null, trace);
        r.put("validation", valid.getSeverity() == IStatus.OK ? "ok" : valid.getMessage());
        if (valid.getSeverity() != IStatus.OK) {
            r.put("refused", "LttngKernelTrace.validate: " + valid.getMessage());
            write(out, r);
            return;
        }
        t.initTrace(null, trace, CtfTmfEvent.class);
        r.put("tracer", String.valueOf(t.getEnvironment().get("tracer_name")));
        r.put("layout", t.getKernelEventLayout().getClass().getSimpleName());
        IAnalysisModuleHelper helper = TmfAnalysisManager.getAnalysisModules(t.getClass()).get(KernelAnalysisModule.ID);
        IAnalysisModule module = helper == null ? null : helper.newModule(t);
        if (!(module instanceof KernelAnalysisModule)) {
            r.put("refused", "the Linux Kernel analysis does not apply to the trace (" + helper + ")");
            write(out, r);
            t.dispose();
            return;
        }
        KernelAnalysisModule kernel = (KernelAnalysisModule) module;
        IStatus scheduled = kernel.schedule();
        t.indexTrace(true);
        long tIndex = System.nanoTime();
        boolean completed = kernel.waitForCompletion();
        long t1 = System.nanoTime();
        long cpu = cpuNs() - cpu0;
        long[] after = memoryKb();

        r.put("scheduled", scheduled.getSeverity() == IStatus.OK ? "ok" : scheduled.getMessage());
        r.put("completed", completed);
        r.put("events", t.getNbEvents());
        r.put("index_s", (tIndex - t0) / 1e9);
        r.put("wall_s", (t1 - t0) / 1e9);
        r.put("cpu_s", cpu / 1e9);
        r.put("rss_mb", after[0] / 1024.0);
        r.put("hwm_mb", after[1] / 1024.0);
        ITmfStateSystem ss = kernel.getStateSystem();
        if (ss != null) {
            // What the analysis built (read after the figures above): the
            // threads (Threads/TID, the swapper once per CPU), and their
            // status intervals by state (the value of Threads/TID itself),
            // so that a trace whose events Trace Compass does not
            // understand shows it.
            int threads = ss.optQuarkAbsolute("Threads");
            List<Integer> statuses = threads < 0 ? List.of() : ss.getSubAttributes(threads, false);
            r.put("threads", statuses.size());
            Map<String, Long> byState = new TreeMap<>();
            for (ITmfStateInterval i : ss.query2D(statuses, ss.getStartTime(), ss.getCurrentEndTime())) {
                if (!i.getStateValue().isNull()) {
                    byState.merge(ProcessStatus.getStatusFromStateValue(i.getStateValue()).name(), 1L, Long::sum);
                }
            }
            r.put("status_intervals", byState.toString());
        }
        Path supplementary = Path.of(TmfTraceManager.getSupplementaryFileDir(t));
        r.put("supplementary_dir", supplementary.toString());
        r.put("supplementary_mb", size(supplementary) / (1024.0 * 1024.0));
        write(out, r);
        kernel.dispose();
        t.dispose();
    }

    /** VmRSS and VmHWM of this JVM, in kB. */
    private static long[] memoryKb() throws IOException {
        long rss = -1;
        long hwm = -1;
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                rss = Long.parseLong(line.split("\\s+")[1]);
            } else if (line.startsWith("VmHWM:")) {
                hwm = Long.parseLong(line.split("\\s+")[1]);
            }
        }
        return new long[] { rss, hwm };
    }

    /** CPU time of this JVM in ns: the scheduler's run time of each of its threads, summed (as reopen.py counts sextant's). */
    private static long cpuNs() throws IOException {
        long total = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                try {
                    total += Long.parseLong(Files.readString(task.resolve("schedstat")).trim().split("\\s+")[0]);
                } catch (IOException e) {
                    // the thread ended meanwhile
                }
            }
        }
        return total;
    }

    private static long size(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        }
    }

    private static void write(Path out, Map<String, Object> r) throws IOException {
        StringBuilder json = new StringBuilder("{");
        for (Map.Entry<String, Object> e : r.entrySet()) {
            if (json.length() > 1) {
                json.append(", ");
            }
            json.append(quote(e.getKey())).append(": ");
            Object v = e.getValue();
            json.append(v instanceof Number || v instanceof Boolean ? v.toString() : quote(String.valueOf(v)));
        }
        json.append("}\n");
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, json, StandardCharsets.UTF_8);
        System.out.print("sextant.bench: " + json);
    }

    private static String quote(String s) {
        StringBuilder q = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                q.append('\\').append(c);
            } else if (c < 0x20) {
                q.append(String.format("\\u%04x", (int) c));
            } else {
                q.append(c);
            }
        }
        return q.append('"').toString();
    }
}
