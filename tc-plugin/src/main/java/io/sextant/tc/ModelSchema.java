package io.sextant.tc;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

/**
 * Checks a model against the JSON Schema sextant serves for its
 * configuration type, before it is posted, so that a dialog can name the
 * field at fault while the user edits. It covers the keywords that describe
 * a model's shape ({@code type}, {@code required}, {@code properties},
 * {@code patternProperties}, {@code additionalProperties}, {@code items}, {@code minItems},
 * {@code minLength}, {@code minimum}, {@code exclusiveMinimum}, {@code enum},
 * {@code const}, local {@code $ref}s) and alternatives ({@code anyOf}, and
 * {@code oneOf}, whose alternatives are of distinct types: a time is an
 * integer of ns or a string with a unit); {@code allOf} and {@code if} are
 * left to the server, which checks the whole model again when it is posted.
 */
public final class ModelSchema {

    private final JsonObject root;

    public ModelSchema(JsonObject schema) {
        this.root = schema;
    }

    /** What is wrong with {@code value}, each naming its path ({@code /events/0/name}); empty when nothing is. */
    public List<String> problems(JsonElement value) {
        List<String> out = new ArrayList<>();
        check(value, root, "", out);
        return out;
    }

    private JsonObject resolve(JsonObject schema) {
        JsonObject s = schema;
        for (int depth = 0; s.has("$ref") && depth < 32; depth++) {
            String ref = s.get("$ref").getAsString();
            if (!ref.startsWith("#/")) {
                return new JsonObject();
            }
            JsonElement at = root;
            for (String part : ref.substring(2).split("/")) {
                at = at.isJsonObject() ? at.getAsJsonObject().get(part) : null;
                if (at == null) {
                    return new JsonObject();
                }
            }
            s = at.getAsJsonObject();
        }
        return s;
    }

    private void check(JsonElement value, JsonObject schemaRef, String path, List<String> out) {
        JsonObject schema = resolve(schemaRef);
        String where = path.isEmpty() ? "the model" : path;
        if (schema.has("type") && !hasType(value, schema.get("type"))) {
            out.add(where + ": expected " + schema.get("type") + ", found " + describe(value));
            return;
        }
        for (String alternatives : List.of("anyOf", "oneOf")) {
            if (schema.has(alternatives)) {
                checkAlternatives(value, schema.getAsJsonArray(alternatives), path, out);
            }
        }
        if (schema.has("const") && !schema.get("const").equals(value)) {
            out.add(where + ": must be " + schema.get("const"));
        }
        if (schema.has("enum") && !schema.getAsJsonArray("enum").contains(value)) {
            out.add(where + ": must be one of " + schema.get("enum"));
        }
        if (value.isJsonPrimitive() && value.getAsJsonPrimitive().isString() && schema.has("minLength")
                && value.getAsString().length() < schema.get("minLength").getAsInt()) {
            out.add(where + ": shorter than " + schema.get("minLength") + " characters");
        }
        if (value.isJsonPrimitive() && value.getAsJsonPrimitive().isNumber()) {
            double v = value.getAsDouble();
            if (schema.has("minimum") && v < schema.get("minimum").getAsDouble()) {
                out.add(where + ": less than " + schema.get("minimum"));
            }
            if (schema.has("exclusiveMinimum") && v <= schema.get("exclusiveMinimum").getAsDouble()) {
                out.add(where + ": must be more than " + schema.get("exclusiveMinimum"));
            }
        }
        if (value.isJsonArray()) {
            JsonArray a = value.getAsJsonArray();
            if (schema.has("minItems") && a.size() < schema.get("minItems").getAsInt()) {
                out.add(where + ": fewer than " + schema.get("minItems") + " items");
            }
            if (schema.has("items") && schema.get("items").isJsonObject()) {
                for (int i = 0; i < a.size(); i++) {
                    check(a.get(i), schema.getAsJsonObject("items"), path + "/" + i, out);
                }
            }
        }
        if (value.isJsonObject()) {
            JsonObject o = value.getAsJsonObject();
            if (schema.has("required")) {
                for (JsonElement r : schema.getAsJsonArray("required")) {
                    if (!o.has(r.getAsString())) {
                        out.add(where + ": missing " + r.getAsString());
                    }
                }
            }
            JsonObject props = schema.has("properties") ? schema.getAsJsonObject("properties") : new JsonObject();
            boolean closed = schema.has("additionalProperties") && schema.get("additionalProperties").isJsonPrimitive()
                    && !schema.get("additionalProperties").getAsBoolean();
            JsonObject patterns = schema.has("patternProperties") ? schema.getAsJsonObject("patternProperties")
                    : new JsonObject();
            for (Map.Entry<String, JsonElement> e : o.entrySet()) {
                String at = path + "/" + e.getKey();
                boolean matched = false;
                for (Map.Entry<String, JsonElement> p : patterns.entrySet()) {
                    if (java.util.regex.Pattern.compile(p.getKey()).matcher(e.getKey()).find()) {
                        matched = true;
                        check(e.getValue(), p.getValue().getAsJsonObject(), at, out);
                    }
                }
                if (props.has(e.getKey())) {
                    check(e.getValue(), props.getAsJsonObject(e.getKey()), at, out);
                } else if (matched) {
                    continue;
                } else if (closed) {
                    out.add(where + ": unknown member " + e.getKey() + " (known: " + props.keySet() + ")");
                } else if (schema.has("additionalProperties") && schema.get("additionalProperties").isJsonObject()) {
                    check(e.getValue(), schema.getAsJsonObject("additionalProperties"), at, out);
                }
            }
        }
    }

    /**
     * {@code value} passes when one alternative accepts it; else the problems
     * said are those of the alternatives of its type, or that its type is
     * none of theirs.
     */
    private void checkAlternatives(JsonElement value, JsonArray alternatives, String path, List<String> out) {
        List<String> types = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        for (JsonElement a : alternatives) {
            JsonObject alternative = resolve(a.getAsJsonObject());
            List<String> own = new ArrayList<>();
            check(value, alternative, path, own);
            if (own.isEmpty()) {
                return;
            }
            if (alternative.has("type") && !hasType(value, alternative.get("type"))) {
                types.add(alternative.get("type").toString());
            } else {
                problems.addAll(own);
            }
        }
        if (problems.isEmpty()) {
            String where = path.isEmpty() ? "the model" : path;
            out.add(where + ": expected " + String.join(" or ", types) + ", found " + describe(value));
        } else {
            out.addAll(problems);
        }
    }

    private static boolean hasType(JsonElement v, JsonElement type) {
        if (type.isJsonArray()) {
            for (JsonElement t : type.getAsJsonArray()) {
                if (hasType(v, t)) {
                    return true;
                }
            }
            return false;
        }
        return switch (type.getAsString()) {
            case "object" -> v.isJsonObject();
            case "array" -> v.isJsonArray();
            case "string" -> v.isJsonPrimitive() && v.getAsJsonPrimitive().isString();
            case "boolean" -> v.isJsonPrimitive() && v.getAsJsonPrimitive().isBoolean();
            case "number" -> v.isJsonPrimitive() && v.getAsJsonPrimitive().isNumber();
            case "integer" -> v.isJsonPrimitive() && v.getAsJsonPrimitive().isNumber()
                    && v.getAsDouble() == Math.rint(v.getAsDouble());
            case "null" -> v.isJsonNull();
            default -> true;
        };
    }

    private static String describe(JsonElement v) {
        if (v.isJsonObject()) {
            return "an object";
        }
        if (v.isJsonArray()) {
            return "an array";
        }
        return v.toString();
    }
}
