package io.sextant.tc.protocol;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.eclipse.lsp4j.jsonrpc.services.JsonRequest;
import org.eclipse.lsp4j.jsonrpc.services.JsonSegment;

import com.google.gson.JsonObject;

/**
 * The TSP methods the plugin uses, one per HTTP endpoint
 * (service/src/endpoints.rs): params are the HTTP body plus the route ids,
 * results the HTTP response body.
 */
@JsonSegment("tsp")
public interface TspService {

    @JsonRequest
    CompletableFuture<JsonObject> health();

    @JsonRequest("traces/open")
    CompletableFuture<Trace> openTrace(OpenTrace params);

    @JsonRequest("experiments/create")
    CompletableFuture<Experiment> createExperiment(CreateExperiment params);

    @JsonRequest("experiments/get")
    CompletableFuture<Experiment> experiment(ExperimentRef params);

    @JsonRequest("experiments/delete")
    CompletableFuture<Experiment> deleteExperiment(ExperimentRef params);

    @JsonRequest("outputs/list")
    CompletableFuture<List<OutputDescriptor>> outputs(ExperimentRef params);

    @JsonRequest("outputs/create")
    CompletableFuture<OutputDescriptor> createDerived(CreateConfiguration params);

    @JsonRequest("outputs/delete")
    CompletableFuture<OutputDescriptor> deleteDerived(DerivedOutputRef params);

    /** A configuration type: {@code {id, name, description, schema}}. */
    @JsonRequest("config/type")
    CompletableFuture<JsonObject> configType(ConfigTypeRef params);

    @JsonRequest("style")
    CompletableFuture<Response<StyleModel>> style(StyleQuery params);

    @JsonRequest("timeGraph/tree")
    CompletableFuture<Response<TreeModel>> timeGraphTree(OutputQuery params);

    @JsonRequest("timeGraph/states")
    CompletableFuture<Response<StatesModel>> timeGraphStates(OutputQuery params);

    /** The wake-ups of a critical path between its rows ({@code requested_timerange}: the range drawn). */
    @JsonRequest("timeGraph/arrows")
    CompletableFuture<Response<List<Arrow>>> timeGraphArrows(OutputQuery params);

    /** What a row and its state at a time are, as name → value. */
    @JsonRequest("timeGraph/tooltip")
    CompletableFuture<Response<Map<String, String>>> timeGraphTooltip(TooltipQuery params);

    @JsonRequest("xy/tree")
    CompletableFuture<Response<TreeModel>> xyTree(OutputQuery params);

    @JsonRequest("xy/xy")
    CompletableFuture<Response<XyModel>> xy(OutputQuery params);

    @JsonRequest("table/columns")
    CompletableFuture<Response<List<TableColumn>>> tableColumns(OutputQuery params);

    @JsonRequest("table/lines")
    CompletableFuture<Response<TableLines>> tableLines(OutputQuery params);
}
