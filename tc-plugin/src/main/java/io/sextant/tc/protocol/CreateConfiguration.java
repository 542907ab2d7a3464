package io.sextant.tc.protocol;

import com.google.gson.JsonObject;

/**
 * {@code tsp/outputs/create} params: a configuration posted to the output
 * {@code outputId} that creates derived outputs; for sextant an execution
 * model ({@code sourceTypeId} sextant.execution-model, the model in
 * {@code parameters}).
 */
public record CreateConfiguration(String expUUID, String outputId, String name, String description,
        String sourceTypeId, JsonObject parameters, String workDoneToken) {
}
