package io.sextant.tc;

import org.eclipse.lsp4j.jsonrpc.messages.ResponseError;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

/**
 * A request to sextant that failed: the JSON-RPC error with sextant's
 * {@code data} ({title, detail, status}, the HTTP adapter's error body and
 * status) when the server answered, or what went wrong on the way.
 */
public final class SextantException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** JSON-RPC error code; 0 when the server did not answer. */
    private final int code;
    /** The HTTP status the same request gets over REST; 0 when unknown. */
    private final int status;
    private final String detail;

    public SextantException(String message, Throwable cause) {
        super(message, cause);
        this.code = 0;
        this.status = 0;
        this.detail = null;
    }

    private SextantException(String message, int code, int status, String detail, Throwable cause) {
        super(message, cause);
        this.code = code;
        this.status = status;
        this.detail = detail;
    }

    /** {@code what} failed with the server's error {@code error}. */
    static SextantException fromResponse(String what, ResponseError error, Throwable cause) {
        int status = 0;
        String title = null;
        String detail = null;
        if (error.getData() instanceof JsonObject data) {
            status = intOf(data.get("status"));
            title = stringOf(data.get("title"));
            detail = stringOf(data.get("detail"));
        }
        StringBuilder message = new StringBuilder(what).append(": ").append(error.getMessage())
                .append(" (JSON-RPC error ").append(error.getCode());
        if (status != 0) {
            message.append(", HTTP ").append(status);
        }
        message.append(')');
        if (detail != null && !detail.equals(error.getMessage())) {
            message.append(": ").append(title != null ? title + ": " : "").append(detail);
        }
        return new SextantException(message.toString(), error.getCode(), status, detail, cause);
    }

    private static int intOf(JsonElement e) {
        return e != null && e.isJsonPrimitive() && e.getAsJsonPrimitive().isNumber() ? e.getAsInt() : 0;
    }

    private static String stringOf(JsonElement e) {
        return e != null && e.isJsonPrimitive() ? e.getAsString() : null;
    }

    public int code() {
        return code;
    }

    public int status() {
        return status;
    }

    /** The server's explanation (e.g. which field of a model is wrong), or null. */
    public String detail() {
        return detail;
    }
}
