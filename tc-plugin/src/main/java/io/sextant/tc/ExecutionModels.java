package io.sextant.tc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;

import io.sextant.tc.protocol.CreateConfiguration;
import io.sextant.tc.protocol.DerivedOutputRef;
import io.sextant.tc.protocol.ExperimentRef;
import io.sextant.tc.protocol.OutputDescriptor;
import io.sextant.tc.protocol.WorkDoneProgress;

/**
 * Execution models as TSP configurations: posting one to the executions
 * output creates the Comparison View (GANTT_CHART), the Time Perspective
 * (TREE_TIME_XY) and the executions table (TABLE).
 */
public final class ExecutionModels {

    /** The output that takes models and parents the derived ones. */
    public static final String PARENT_OUTPUT = "sextant.executions";
    /** The configuration type of execution models (schemas/execution-model.schema.json). */
    public static final String CONFIG_TYPE = "sextant.execution-model";

    private final SextantConnection connection;
    private final Duration timeout;

    public ExecutionModels(SextantConnection connection, Duration timeout) {
        this.connection = connection;
        this.timeout = timeout;
    }

    /** A model file as JSON, with the file named in errors. */
    public static JsonObject read(Path file) {
        try {
            return JsonParser.parseString(Files.readString(file)).getAsJsonObject();
        } catch (IOException e) {
            throw new UncheckedIOException("reading the execution model " + file, e);
        } catch (JsonParseException | IllegalStateException e) {
            throw new IllegalArgumentException("the execution model " + file + " is not a JSON object: "
                    + e.getMessage(), e);
        }
    }

    /**
     * Posts {@code model} under {@code name} on the experiment and finds its
     * derived outputs. The server finds the executions before it answers;
     * progress goes to {@code progress} (may be null). A bad model fails
     * with the server's detail, which names the field.
     */
    public DerivedOutputs post(String expUUID, String name, String description, JsonObject model,
            Consumer<WorkDoneProgress> progress) {
        String token = progress == null ? null : connection.client().progressToken(progress);
        OutputDescriptor created = Rpc.await(connection.tsp().createDerived(new CreateConfiguration(expUUID,
                PARENT_OUTPUT, name, description, CONFIG_TYPE, model, token)), timeout,
                "posting the execution model " + name);
        String config = created.configurationId();
        if (config == null) {
            throw new SextantException("posting the execution model " + name
                    + ": the created output " + created.id() + " has no configuration", null);
        }
        List<OutputDescriptor> all = Rpc.await(connection.tsp().outputs(new ExperimentRef(expUUID)), timeout,
                "tsp/outputs/list " + expUUID);
        List<OutputDescriptor> derived = all.stream()
                .filter(o -> PARENT_OUTPUT.equals(o.parentId()) && config.equals(o.configurationId()))
                .toList();
        return new DerivedOutputs(ofType(derived, "GANTT_CHART", name), ofType(derived, "TREE_TIME_XY", name),
                ofType(derived, "TABLE", name));
    }

    /** Removes the model's outputs (all three go with any one of them). */
    public void delete(String expUUID, DerivedOutputs outputs) {
        Rpc.await(connection.tsp().deleteDerived(new DerivedOutputRef(expUUID, PARENT_OUTPUT,
                outputs.comparison().id())), timeout, "tsp/outputs/delete " + outputs.comparison().id());
    }

    private static OutputDescriptor ofType(List<OutputDescriptor> derived, String type, String name) {
        return derived.stream().filter(o -> type.equals(o.type())).findFirst()
                .orElseThrow(() -> new SextantException("the execution model " + name + " has no " + type
                        + " output among " + derived.stream().map(OutputDescriptor::id).toList(), null));
    }
}
