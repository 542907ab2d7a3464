package io.sextant.tc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import com.google.gson.JsonParser;

/**
 * The pre-post check of models against schemas/execution-model.schema.json,
 * and against the schema the model dialog is given: the one sextant serves
 * (schemas/execution-model.viewer.schema.json, kept equal to it by a Rust
 * test), whose top-level {@code oneOf} branches use boolean subschemas.
 */
class ModelSchemaTest {

    private static final Path SCHEMAS = ServeBinary.repo().resolve("schemas");

    private static ModelSchema schema(String file) throws IOException {
        return new ModelSchema(JsonParser.parseString(Files.readString(SCHEMAS.resolve(file))).getAsJsonObject());
    }

    private static ModelSchema schema() throws IOException {
        return schema("execution-model.schema.json");
    }

    private static ModelSchema served() throws IOException {
        return schema("execution-model.viewer.schema.json");
    }

    private static List<String> problems(ModelSchema schema, String example) throws IOException {
        return schema.problems(JsonParser.parseString(Files.readString(SCHEMAS.resolve("examples/" + example))));
    }

    private static List<String> problems(String example) throws IOException {
        return problems(schema(), example);
    }

    private static List<Path> examples(boolean valid) throws IOException {
        try (Stream<Path> files = Files.list(SCHEMAS.resolve("examples"))) {
            return files.filter(p -> p.getFileName().toString().startsWith("invalid-") != valid).sorted().toList();
        }
    }

    @Test
    void everyValidExamplePasses() throws IOException {
        List<Path> valid = examples(true);
        assertTrue(valid.size() >= 5, valid.toString());
        for (Path p : valid) {
            assertEquals(List.of(), problems(p.getFileName().toString()), p.toString());
            assertEquals(List.of(), problems(served(), p.getFileName().toString()), "served schema: " + p);
        }
    }

    /** The served schema says the modes apart itself, so the dialog refuses what only the server did before. */
    @Test
    void theServedSchemaRefusesEveryInvalidExampleButARegex() throws IOException {
        for (Path p : examples(false)) {
            String name = p.getFileName().toString();
            // A regex's syntax (format "regex") is the server's to judge.
            if (!name.equals("invalid-regex.json")) {
                assertFalse(problems(served(), name).isEmpty(), name);
            }
        }
        assertEquals(List.of("/events: not allowed here"), problems(served(), "invalid-events-in-different-tids.json"));
        assertEquals(List.of("/chained: not allowed here"), problems(served(), "invalid-chained-same-tid.json"));
        assertEquals(List.of("the model: missing end"), problems(served(), "invalid-missing-end.json"));
    }

    @Test
    void aDurationIsAnIntegerOfNsOrAStringWithAUnit() throws IOException {
        for (ModelSchema s : List.of(schema(), served())) {
            for (String ok : List.of("1000000", "\"1ms\"", "\"1.5 us\"", "\"2 s\"", "\"250ns\"", "\"3µs\"")) {
                List<String> found = s.problems(JsonParser.parseString(withDeadline(ok)));
                assertEquals(List.of(), found, ok);
            }
            for (String bad : List.of("0", "-5", "1.5", "\"1 parsec\"", "\"ms\"", "\"1 ms s\"", "true")) {
                List<String> found = s.problems(JsonParser.parseString(withDeadline(bad)));
                assertEquals(1, found.size(), bad + ": " + found);
                assertTrue(found.get(0).startsWith("/deadline: "), bad + ": " + found);
            }
        }
        assertEquals(List.of("/deadline: expected \"integer\" or \"string\", found true"),
                served().problems(JsonParser.parseString(withDeadline("true"))));
        assertEquals(List.of("/deadline: \"1 parsec\" is not of the form ^[0-9]+(\\.[0-9]+)? ?(ns|us|µs|ms|s)$"),
                served().problems(JsonParser.parseString(withDeadline("\"1 parsec\""))));
    }

    private static String withDeadline(String deadline) {
        return "{\"name\": \"x\", \"events\": [{\"name\": \"a\"}], \"deadline\": " + deadline + "}";
    }

    @Test
    void theServedSchemasBranchesAreToldApart() throws IOException {
        String sameTidWithStart = "{\"name\": \"x\", \"events\": [{\"name\": \"a\"}], \"start\": {\"name\": \"a\"}}";
        assertEquals(List.of("/start: not allowed here"), served().problems(JsonParser.parseString(sameTidWithStart)));
        String differentWithEventsOnly = "{\"name\": \"x\", \"mode\": \"different_tids\", \"events\": [{\"name\": \"a\"}]}";
        assertEquals(List.of("the model: missing start", "the model: missing end", "/events: not allowed here"),
                served().problems(JsonParser.parseString(differentWithEventsOnly)));
    }

    @Test
    void shapeErrorsNameTheirPath() throws IOException {
        assertTrue(problems("invalid-unknown-key.json").stream().anyMatch(s -> s.contains("unknown member")),
                problems("invalid-unknown-key.json").toString());
        assertTrue(problems("invalid-empty-events.json").stream().anyMatch(s -> s.startsWith("/events")),
                problems("invalid-empty-events.json").toString());
        assertTrue(problems("invalid-deadline-zero.json").stream().anyMatch(s -> s.startsWith("/deadline")),
                problems("invalid-deadline-zero.json").toString());
        List<String> notAnObject = schema().problems(JsonParser.parseString("[1]"));
        assertEquals(List.of("the model: expected \"object\", found an array"), notAnObject);
        List<String> noName = schema().problems(JsonParser.parseString("{\"events\": []}"));
        assertTrue(noName.contains("the model: missing name"), noName.toString());
    }
}
