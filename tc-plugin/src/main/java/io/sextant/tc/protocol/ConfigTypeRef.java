package io.sextant.tc.protocol;

/** {@code tsp/config/type} params: a configuration type's id. */
public record ConfigTypeRef(String typeId) {
}
