package io.sextant.tc.protocol;

/** {@code tsp/traces/open} params: the HTTP body {@code {parameters: {name, uri}}}. */
public record OpenTrace(Parameters parameters, String workDoneToken) {

    public record Parameters(String name, String uri) {
    }

    public static OpenTrace of(String name, String uri, String workDoneToken) {
        return new OpenTrace(new Parameters(name, uri), workDoneToken);
    }
}
