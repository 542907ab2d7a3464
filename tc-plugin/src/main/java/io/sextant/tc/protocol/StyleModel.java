package io.sextant.tc.protocol;

import java.util.Map;

/** {@code tsp/style} result: the output's styles by key; states name one by their style's {@code parentKey}. */
public record StyleModel(Map<String, StatesModel.Style> styles) {
}
