package io.sextant.tc.protocol;

import com.google.gson.JsonObject;

/** {@code tsp/style} params: the output and an empty {@code parameters}. */
public record StyleQuery(String expUUID, String outputId, JsonObject parameters) {

    public static StyleQuery of(String exp, String output) {
        return new StyleQuery(exp, output, new JsonObject());
    }
}
