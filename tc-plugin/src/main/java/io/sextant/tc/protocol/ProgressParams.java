package io.sextant.tc.protocol;

import com.google.gson.JsonElement;

/** {@code $/progress} params; LSP allows a string or an integer token. */
public record ProgressParams(JsonElement token, WorkDoneProgress value) {
}
