package io.sextant.tc;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

import com.google.gson.JsonObject;

import io.sextant.tc.protocol.CreateConfiguration;
import io.sextant.tc.protocol.ExperimentRef;
import io.sextant.tc.protocol.OutputDescriptor;
import io.sextant.tc.protocol.WorkDoneProgress;

/**
 * Explaining one execution: a {@code sextant.explain} configuration naming a
 * thread and a range creates the critical path, its complement (priority
 * inversions in their own style), the related threads and the kernel
 * facilities.
 */
public final class Explanations {

    /** The configuration type, which is also the output the configuration is posted to. */
    public static final String CONFIG_TYPE = "sextant.explain";

    /** The four outputs of one explanation. */
    public record Outputs(OutputDescriptor criticalPath, OutputDescriptor complement, OutputDescriptor relations,
            OutputDescriptor facilities) {
    }

    private final SextantConnection connection;
    private final Duration timeout;

    public Explanations(SextantConnection connection, Duration timeout) {
        this.connection = connection;
        this.timeout = timeout;
    }

    /** The request for thread {@code tid} over [start, end] (ns, as the trace's times). */
    public static JsonObject threadRange(long tid, long start, long end) {
        JsonObject p = new JsonObject();
        p.addProperty("tid", tid);
        p.addProperty("start", start);
        p.addProperty("end", end);
        return p;
    }

    /** Posts {@code request} (see {@link #threadRange}) and finds its four outputs. */
    public Outputs explain(String expUUID, String name, JsonObject request, Consumer<WorkDoneProgress> progress) {
        String token = progress == null ? null : connection.client().progressToken(progress);
        OutputDescriptor created = Rpc.await(connection.tsp().createDerived(new CreateConfiguration(expUUID,
                CONFIG_TYPE, name, "explained from Trace Compass", CONFIG_TYPE, request, token)), timeout,
                "explaining " + name);
        String config = created.configurationId();
        List<OutputDescriptor> derived = Rpc.await(connection.tsp().outputs(new ExperimentRef(expUUID)), timeout,
                "tsp/outputs/list " + expUUID).stream()
                .filter(o -> CONFIG_TYPE.equals(o.parentId()) && config != null && config.equals(o.configurationId()))
                .toList();
        return new Outputs(byId(derived, "sextant.explain.critical-path", name),
                byId(derived, "sextant.explain.complement", name), byId(derived, "sextant.explain.relations", name),
                byId(derived, "sextant.explain.facilities", name));
    }

    private static OutputDescriptor byId(List<OutputDescriptor> derived, String prefix, String name) {
        return derived.stream().filter(o -> o.id().startsWith(prefix + ":")).findFirst()
                .orElseThrow(() -> new SextantException("explaining " + name + ": no " + prefix + " output among "
                        + derived.stream().map(OutputDescriptor::id).toList(), null));
    }
}
