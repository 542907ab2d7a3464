package io.sextant.tc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import com.google.gson.JsonParser;

/** The pre-post check of models against schemas/execution-model.schema.json and its examples. */
class ModelSchemaTest {

    private static final Path SCHEMAS = ServeBinary.repo().resolve("schemas");

    private static ModelSchema schema() throws IOException {
        return new ModelSchema(JsonParser.parseString(Files.readString(SCHEMAS.resolve("execution-model.schema.json")))
                .getAsJsonObject());
    }

    private static List<String> problems(String example) throws IOException {
        return schema().problems(JsonParser.parseString(Files.readString(SCHEMAS.resolve("examples/" + example))));
    }

    @Test
    void everyValidExamplePasses() throws IOException {
        try (Stream<Path> files = Files.list(SCHEMAS.resolve("examples"))) {
            List<Path> valid = files.filter(p -> !p.getFileName().toString().startsWith("invalid-")).toList();
            assertTrue(valid.size() >= 5, valid.toString());
            for (Path p : valid) {
                assertEquals(List.of(), problems(p.getFileName().toString()), p.toString());
            }
        }
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
