package io.sextant.tc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Finding the binary, draining its stderr, and stopping a server that does not answer. */
class SextantProcessTest {

    @TempDir
    Path dir;

    private Path script(String name, String body) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        return p;
    }

    @Test
    void theSettingWinsOverTheEnvironment() throws IOException {
        Path a = script("a", "true");
        Path b = script("b", "true");
        assertEquals(a, SextantProcess.locate(a.toString(), Map.of("SEXTANT_BIN", b.toString())));
        assertEquals(b, SextantProcess.locate("  ", Map.of("SEXTANT_BIN", b.toString())));
        assertEquals(b, SextantProcess.locate(null, Map.of("SEXTANT_BIN", b.toString())));
    }

    @Test
    void withoutSettingThePathThenTheBundleFolder() throws IOException {
        Path onPath = Files.createDirectories(dir.resolve("bin"));
        Path bundle = Files.createDirectories(dir.resolve("bundle"));
        Path inBundle = script("bundle/sextant", "true");
        assertEquals(inBundle, SextantProcess.locate(null, Map.of("PATH", onPath.toString()), bundle));
        Path first = script("bin/sextant", "true");
        assertEquals(first, SextantProcess.locate("", Map.of("PATH", "/nonexistent:" + onPath), bundle));
        IllegalStateException none = assertThrows(IllegalStateException.class,
                () -> SextantProcess.locate(null, Map.of("PATH", "/nonexistent"), dir));
        assertTrue(none.getMessage().contains("PATH") && none.getMessage().contains(dir.toString()),
                none.getMessage());
    }

    @Test
    void aMissingOrNonExecutableBinaryIsExplained() throws IOException {
        IllegalStateException none = assertThrows(IllegalStateException.class,
                () -> SextantProcess.locate(null, Map.of()));
        assertTrue(none.getMessage().contains("SEXTANT_BIN"), none.getMessage());
        Path plain = dir.resolve("plain");
        Files.writeString(plain, "");
        IllegalStateException notExec = assertThrows(IllegalStateException.class,
                () -> SextantProcess.locate(null, Map.of("SEXTANT_BIN", plain.toString())));
        assertTrue(notExec.getMessage().contains(plain.toString()) && notExec.getMessage().contains("SEXTANT_BIN"),
                notExec.getMessage());
        IllegalStateException missing = assertThrows(IllegalStateException.class,
                () -> SextantProcess.locate(dir.resolve("nope").toString(), Map.of()));
        assertTrue(missing.getMessage().contains("setting"), missing.getMessage());
    }

    @Test
    void argumentsAndStderrReachTheLog() throws Exception {
        Path s = script("args", "echo \"args: $*\" >&2; echo \"cwd: $(pwd)\" >&2");
        List<String> log = new CopyOnWriteArrayList<>();
        SextantProcess p = SextantProcess.start(s, dir, "test", List.of("--port", "0"), log::add);
        assertEquals(0, p.stop(Duration.ofSeconds(2)));
        Instant until = Instant.now().plusSeconds(5);
        while (log.size() < 2 && Instant.now().isBefore(until)) {
            Thread.sleep(20);
        }
        assertEquals(List.of("args: serve --stdio --port 0", "cwd: " + dir.toRealPath()), log);
    }

    @Test
    void aServerThatIgnoresShutdownIsDestroyed() throws Exception {
        // Reads nothing and never answers: shutdown times out, then exit is ignored.
        Path s = script("deaf", "exec sleep 60");
        SextantProcess p = SextantProcess.start(s, dir, "test", List.of(), line -> { });
        ProcessHandle h = p.handle();
        Instant t0 = Instant.now();
        int code = p.stop(Duration.ofMillis(300));
        assertFalse(h.isAlive(), "still running after stop");
        assertNotEquals(0, code, "destroyed, not exited");
        assertTrue(Duration.between(t0, Instant.now()).compareTo(Duration.ofSeconds(10)) < 0);
        assertTrue(p.connection().isClosed());
    }
}
