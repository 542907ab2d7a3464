package io.sextant.tc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.OptionalLong;

import org.junit.jupiter.api.Test;

/** A line of the real-time tasks table read by column name, and the lines there is nothing to post for. */
class RealTimeTaskTest {

    private static final List<String> COLUMNS = List.of("Host", "TID", "Command", "Kind", "Period", "Jobs", "Model");

    @Test
    void aPeriodicTaskWithItsModel() {
        RealTimeTask t = RealTimeTask.of(COLUMNS, List.of("", "412", "rt_high", "periodic", "10000000", "40",
                "{\"name\":\"rt_high job\",\"threads\":{\"tids\":[412]}}"));
        assertEquals("rt_high", t.command());
        assertEquals(412, t.tid());
        assertEquals("periodic", t.kind());
        assertEquals(OptionalLong.of(10_000_000), t.period());
        assertEquals("rt_high job", t.model().get("name").getAsString());
    }

    @Test
    void aSporadicTaskHasNoPeriod() {
        RealTimeTask t = RealTimeTask.of(COLUMNS, List.of("", "7", "irq", "sporadic", "", "12", "{}"));
        assertEquals(OptionalLong.empty(), t.period());
    }

    @Test
    void aLineWithoutAModelNamesTheTask() {
        var e = assertThrows(IllegalArgumentException.class,
                () -> RealTimeTask.of(COLUMNS, List.of("", "412", "rt_high", "periodic", "10", "4", "{\"name\":")));
        assertTrue(e.getMessage().contains("rt_high (TID 412)") && e.getMessage().contains("not JSON"),
                e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> RealTimeTask.of(COLUMNS, List.of("", "412", "rt_high", "periodic", "10", "4", "[]")));
        assertTrue(e.getMessage().contains("not a JSON object"), e.getMessage());
    }

    @Test
    void aTableWithoutTheColumnSaysWhichColumnsItHas() {
        var e = assertThrows(IllegalArgumentException.class,
                () -> RealTimeTask.of(List.of("TID", "Command"), List.of("1", "a")));
        assertTrue(e.getMessage().contains("no column Kind") && e.getMessage().contains("[TID, Command]"),
                e.getMessage());
    }
}
