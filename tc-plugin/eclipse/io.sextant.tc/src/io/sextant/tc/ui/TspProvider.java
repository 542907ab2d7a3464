package io.sextant.tc.ui;

import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

import org.eclipse.tracecompass.tmf.core.dataprovider.DataProviderParameterUtils;
import org.eclipse.tracecompass.tmf.core.model.OutputElementStyle;
import org.eclipse.tracecompass.tmf.core.response.ITmfResponse;
import org.eclipse.tracecompass.tmf.core.response.TmfModelResponse;
import org.eclipse.tracecompass.tmf.core.trace.ITmfTrace;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

import io.sextant.tc.SextantException;
import io.sextant.tc.Sidecar;
import io.sextant.tc.protocol.OutputDescriptor;
import io.sextant.tc.protocol.Response;
import io.sextant.tc.protocol.TspService;

/**
 * What every sextant data provider shares: the output a request goes to
 * (looked up at each request: the trace's current model or explanation, so
 * a view keeps its provider when a new model is posted), TSP's response
 * status as Trace Compass's, and TSP styles as Trace Compass styles.
 */
abstract class TspProvider {

    /** The output and the experiment a request goes to. */
    protected record Target(String exp, OutputDescriptor output) {
    }

    /** The first and last of the times a view asks for, and how many. */
    protected record Times(long start, long end, int count) {

        static Optional<Times> of(Map<String, Object> parameters) {
            List<Long> times = DataProviderParameterUtils.extractTimeRequested(parameters);
            if (times == null || times.isEmpty()) {
                return Optional.empty();
            }
            return Optional.of(new Times(Collections.min(times), Collections.max(times), times.size()));
        }
    }

    protected final ITmfTrace trace;
    protected final SextantOutput kind;
    protected final Sidecar sidecar;

    protected TspProvider(ITmfTrace trace, SextantOutput kind, Sidecar sidecar) {
        this.trace = trace;
        this.kind = kind;
        this.sidecar = sidecar;
    }

    public String getId() {
        return kind.providerId();
    }

    protected TspService tsp() {
        return sidecar.connection().tsp();
    }

    protected Duration timeout() {
        return sidecar.timeout();
    }

    private Optional<Target> target() {
        String key = SextantService.key(trace);
        return sidecar.experiment(key).flatMap(exp -> kind.current(sidecar, key).map(o -> new Target(exp, o)));
    }

    protected static <T> TmfModelResponse<T> response(Response<?> r, T model) {
        ITmfResponse.Status status = switch (r.status()) {
            case "COMPLETED" -> ITmfResponse.Status.COMPLETED;
            case "RUNNING" -> ITmfResponse.Status.RUNNING;
            case "CANCELLED" -> ITmfResponse.Status.CANCELLED;
            default -> ITmfResponse.Status.FAILED;
        };
        return new TmfModelResponse<>(model, status, r.statusMessage() == null ? "" : r.statusMessage());
    }

    protected static <T> TmfModelResponse<T> completed(T model) {
        return new TmfModelResponse<>(model, ITmfResponse.Status.COMPLETED, "");
    }

    /**
     * {@code empty} (COMPLETED) while the trace has no such output yet;
     * else {@code fetch} on it, a failed request answered as FAILED with
     * sextant's message.
     */
    protected <T> TmfModelResponse<T> onTarget(T empty, Function<Target, TmfModelResponse<T>> fetch) {
        Optional<Target> t = target();
        if (t.isEmpty()) {
            return new TmfModelResponse<>(empty, ITmfResponse.Status.COMPLETED, "nothing from sextant yet");
        }
        try {
            return fetch.apply(t.get());
        } catch (SextantException e) {
            return new TmfModelResponse<>(empty, ITmfResponse.Status.FAILED, e.getMessage());
        }
    }

    /** TSP's style as Trace Compass's: strings stay strings, numbers become floats (heights, opacities, widths). */
    static OutputElementStyle style(String parentKey, JsonObject values) {
        Map<String, Object> out = new HashMap<>();
        if (values != null) {
            for (Map.Entry<String, JsonElement> e : values.entrySet()) {
                JsonElement x = e.getValue();
                if (x.isJsonPrimitive() && x.getAsJsonPrimitive().isNumber()) {
                    out.put(e.getKey(), x.getAsFloat());
                } else if (x.isJsonPrimitive()) {
                    out.put(e.getKey(), x.getAsString());
                }
            }
        }
        return new OutputElementStyle(parentKey, out);
    }
}
