package io.sextant.tc;

import java.util.List;
import java.util.OptionalLong;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;

/**
 * A line of sextant's "Real-time tasks" table ({@value #TABLE}, offered for
 * every experiment with no configuration: a column per key of {@code sextant
 * tasks --format json}), with what the plugin acts on: the task's thread and
 * period, and its {@code Model} column, an execution model that finds the
 * task's jobs, posted to {@code sextant.executions} as it is.
 */
public record RealTimeTask(String command, long tid, String kind, OptionalLong period, JsonObject model) {

    /** The table's output id. */
    public static final String TABLE = "sextant.tasks";
    /** The output of each task's response times at their releases, a series per task, in table order. */
    public static final String RESPONSE = "sextant.tasks.response";

    public static final String HOST = "Host";
    public static final String COMMAND = "Command";
    public static final String TID = "TID";
    public static final String KIND = "Kind";
    public static final String PERIOD = "Period";
    public static final String MODEL = "Model";

    /**
     * The task of a table line, {@code cells} in the order of {@code columns}
     * (the table's column names). A line without a model, or whose model is
     * not a JSON object, fails naming the task: there is nothing to post.
     */
    public static RealTimeTask of(List<String> columns, List<String> cells) {
        String command = cell(columns, cells, COMMAND);
        String tid = cell(columns, cells, TID);
        String what = "the real-time task " + command + " (TID " + tid + ")";
        String kind = cell(columns, cells, KIND);
        String period = cell(columns, cells, PERIOD);
        String model = cell(columns, cells, MODEL);
        JsonElement parsed;
        try {
            parsed = JsonParser.parseString(model);
        } catch (JsonParseException e) {
            throw new IllegalArgumentException(what + ": its model is not JSON: " + e.getMessage(), e);
        }
        if (!parsed.isJsonObject()) {
            throw new IllegalArgumentException(what + ": its model is not a JSON object: '" + model + "'");
        }
        try {
            return new RealTimeTask(command, Long.parseLong(tid), kind,
                    period.isEmpty() ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(period)),
                    parsed.getAsJsonObject());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + ": TID or period is not a number (period '" + period + "')", e);
        }
    }

    private static String cell(List<String> columns, List<String> cells, String name) {
        int i = columns.indexOf(name);
        if (i < 0) {
            throw new IllegalArgumentException("the real-time tasks table has no column " + name + ": " + columns);
        }
        return i < cells.size() ? cells.get(i) : "";
    }
}
