package io.sextant.tc;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

/**
 * Checks a model against the JSON Schema sextant serves for its
 * configuration type, before it is posted, so that a dialog can name the
 * field at fault while the user edits. It covers the keywords that describe
 * a model's shape ({@code type}, {@code required}, {@code properties},
 * {@code patternProperties}, {@code additionalProperties}, {@code items}, {@code minItems},
 * {@code minLength}, {@code pattern}, {@code minimum}, {@code exclusiveMinimum}, {@code enum},
 * {@code const}, local {@code $ref}s, boolean subschemas), alternatives
 * ({@code anyOf}, and {@code oneOf} taken as "at least one": a time is an
 * integer of ns or a string with a unit, and the served schema's top-level
 * branches, same_tid or different_tids, exclude each other) and
 * {@code not}; {@code allOf} and {@code if} are left to the server, which
 * checks the whole model again when it is posted.
 */
public final class ModelSchema {

    /** The schema that accepts anything: what an unresolvable reference is taken as (the server judges it). */
    private static final JsonObject TRUE = new JsonObject();

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

    /**
     * {@code schema} with its local {@code $ref}s followed; a boolean schema
     * ({@code true} or {@code false}, as the served schema's branches use
     * for the members a mode allows or forbids) stays as it is.
     */
    private JsonElement resolve(JsonElement schema) {
        JsonElement s = schema;
        for (int depth = 0; s.isJsonObject() && s.getAsJsonObject().has("$ref") && depth < 32; depth++) {
            String ref = s.getAsJsonObject().get("$ref").getAsString();
            if (!ref.startsWith("#/")) {
                return TRUE;
            }
            JsonElement at = root;
            for (String part : ref.substring(2).split("/")) {
                at = at.isJsonObject() ? at.getAsJsonObject().get(part) : null;
                if (at == null) {
                    return TRUE;
                }
            }
            s = at;
        }
        return s;
    }

    private void check(JsonElement value, JsonElement schemaRef, String path, List<String> out) {
        JsonElement resolved = resolve(schemaRef);
        String where = path.isEmpty() ? "the model" : path;
        if (!resolved.isJsonObject()) {
            if (resolved.isJsonPrimitive() && resolved.getAsJsonPrimitive().isBoolean() && !resolved.getAsBoolean()) {
                out.add(where + ": not allowed here");
            }
            return;
        }
        JsonObject schema = resolved.getAsJsonObject();
        if (schema.has("type") && !hasType(value, schema.get("type"))) {
            out.add(where + ": expected " + schema.get("type") + ", found " + describe(value));
            return;
        }
        for (String alternatives : List.of("anyOf", "oneOf")) {
            if (schema.has(alternatives) && schema.get(alternatives).isJsonArray()) {
                checkAlternatives(value, schema.getAsJsonArray(alternatives), path, out);
            }
        }
        if (excludes(schema, value, path)) {
            out.add(where + ": has a form its schema excludes (\"not\")");
        }
        if (schema.has("const") && !schema.get("const").equals(value)) {
            out.add(where + ": must be " + schema.get("const"));
        }
        if (schema.has("enum") && !schema.getAsJsonArray("enum").contains(value)) {
            out.add(where + ": must be one of " + schema.get("enum"));
        }
        if (value.isJsonPrimitive() && value.getAsJsonPrimitive().isString()) {
            checkString(value.getAsString(), schema, where, out);
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
            if (schema.has("items") && !schema.get("items").isJsonArray()) {
                for (int i = 0; i < a.size(); i++) {
                    check(a.get(i), schema.get("items"), path + "/" + i, out);
                }
            }
        }
        if (value.isJsonObject()) {
            checkMembers(value.getAsJsonObject(), schema, path, out);
        }
    }

    private static void checkString(String s, JsonObject schema, String where, List<String> out) {
        if (schema.has("minLength") && s.length() < schema.get("minLength").getAsInt()) {
            out.add(where + ": shorter than " + schema.get("minLength") + " characters");
        }
        if (schema.has("pattern")) {
            String pattern = schema.get("pattern").getAsString();
            try {
                if (!Pattern.compile(pattern).matcher(s).find()) {
                    out.add(where + ": \"" + s + "\" is not of the form " + pattern);
                }
            } catch (PatternSyntaxException e) {
                // A JavaScript pattern Java cannot read: the server checks it when the model is posted.
            }
        }
    }

    private void checkMembers(JsonObject o, JsonObject schema, String path, List<String> out) {
        String where = path.isEmpty() ? "the model" : path;
        if (schema.has("required")) {
            for (JsonElement r : schema.getAsJsonArray("required")) {
                if (!o.has(r.getAsString())) {
                    out.add(where + ": missing " + r.getAsString());
                }
            }
        }
        JsonObject props = schema.has("properties") ? schema.getAsJsonObject("properties") : new JsonObject();
        JsonElement additional = schema.get("additionalProperties");
        boolean closed = additional != null && additional.isJsonPrimitive() && !additional.getAsBoolean();
        JsonObject patterns = schema.has("patternProperties") ? schema.getAsJsonObject("patternProperties")
                : new JsonObject();
        for (Map.Entry<String, JsonElement> e : o.entrySet()) {
            String at = path + "/" + e.getKey();
            boolean matched = false;
            for (Map.Entry<String, JsonElement> p : patterns.entrySet()) {
                if (Pattern.compile(p.getKey()).matcher(e.getKey()).find()) {
                    matched = true;
                    check(e.getValue(), p.getValue(), at, out);
                }
            }
            if (props.has(e.getKey())) {
                check(e.getValue(), props.get(e.getKey()), at, out);
            } else if (matched) {
                continue;
            } else if (closed) {
                out.add(where + ": unknown member " + e.getKey() + " (known: " + props.keySet() + ")");
            } else if (additional != null && additional.isJsonObject()) {
                check(e.getValue(), additional, at, out);
            }
        }
    }

    /**
     * {@code value} passes when one alternative accepts it. Else the problems
     * said are those of the alternative of its type that comes closest, or
     * that its type is none of theirs. Closest is the fewest problems (a
     * same_tid model with a {@code start} is told that {@code start} is not
     * allowed, not everything a different_tids model lacks), an alternative
     * whose {@code not} the value matches coming last: the value chose
     * another branch (its mode is different_tids), whose problems say more.
     */
    private void checkAlternatives(JsonElement value, JsonArray alternatives, String path, List<String> out) {
        List<String> types = new ArrayList<>();
        List<String> closest = null;
        long closestRank = Long.MAX_VALUE;
        for (JsonElement a : alternatives) {
            JsonElement alternative = resolve(a);
            List<String> own = new ArrayList<>();
            check(value, alternative, path, own);
            if (own.isEmpty()) {
                return;
            }
            JsonElement type = alternative.isJsonObject() ? alternative.getAsJsonObject().get("type") : null;
            if (type != null && !hasType(value, type)) {
                types.add(type.toString());
                continue;
            }
            long rank = own.size() + (excludes(alternative, value, path) ? Integer.MAX_VALUE : 0L);
            if (rank < closestRank) {
                closest = own;
                closestRank = rank;
            }
        }
        if (closest == null) {
            String where = path.isEmpty() ? "the model" : path;
            out.add(where + ": expected " + String.join(" or ", types) + ", found " + describe(value));
        } else {
            out.addAll(closest);
        }
    }

    /** Whether {@code schema} has a {@code not} that {@code value} matches. */
    private boolean excludes(JsonElement schema, JsonElement value, String path) {
        if (!schema.isJsonObject() || !schema.getAsJsonObject().has("not")) {
            return false;
        }
        List<String> own = new ArrayList<>();
        check(value, schema.getAsJsonObject().get("not"), path, own);
        return own.isEmpty();
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
