package io.sextant.tc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.sextant.tc.TimeSync.Kind;
import io.sextant.tc.protocol.SyncNotifications;
import io.sextant.tc.protocol.TimeRange;

class TimeSyncTest {

    /** What went to the server and what went to Trace Compass, in order, as "kind exp start-end". */
    private final List<String> sent = new ArrayList<>();
    private final List<String> shown = new ArrayList<>();
    private TimeSync sync;

    @BeforeEach
    void setUp() {
        sync = new TimeSync("tc", new SyncNotifications() {
            @Override
            public void selectionChanged(TimeRange r) {
                sent.add("selection " + r.experimentUUID() + " " + r.start() + "-" + r.end() + " " + r.source());
            }

            @Override
            public void windowChanged(TimeRange r) {
                sent.add("window " + r.experimentUUID() + " " + r.start() + "-" + r.end() + " " + r.source());
            }
        });
        sync.addListener(new SignalBridge() {
            @Override
            public void selectionRangeUpdated(TimeRange r) {
                shown.add("selection " + r.experimentUUID() + " " + r.start() + "-" + r.end());
                // Trace Compass's signal comes back to the plugin as a local change, synchronously.
                sync.local(Kind.SELECTION, r.experimentUUID(), r.start(), r.end());
            }

            @Override
            public void windowRangeUpdated(TimeRange r) {
                shown.add("window " + r.experimentUUID() + " " + r.start() + "-" + r.end());
                sync.local(Kind.WINDOW, r.experimentUUID(), r.start(), r.end());
            }
        });
    }

    @Test
    void localChangesAreSentOnceWithOurSource() {
        assertTrue(sync.local(Kind.SELECTION, "a", 1, 2));
        assertFalse(sync.local(Kind.SELECTION, "a", 1, 2), "the same selection again is not news");
        assertTrue(sync.local(Kind.SELECTION, "a", 1, 3));
        assertEquals(List.of("selection a 1-2 tc", "selection a 1-3 tc"), sent);
        assertEquals(List.of(), shown);
    }

    @Test
    void aBackwardsSelectionIsSentInOrder() {
        assertTrue(sync.local(Kind.SELECTION, "a", 9, 4));
        assertFalse(sync.local(Kind.SELECTION, "a", 4, 9), "the same range dragged the other way");
        assertEquals(List.of("selection a 4-9 tc"), sent);
    }

    @Test
    void remoteChangesAreShownButNotEchoed() {
        assertTrue(sync.remote(Kind.SELECTION, new TimeRange("a", 10, 20, "vscode")));
        assertEquals(List.of("selection a 10-20"), shown);
        assertEquals(List.of(), sent, "the re-broadcast signal was not sent back");
        assertFalse(sync.remote(Kind.SELECTION, new TimeRange("a", 10, 20, "script")), "already showing it");
        assertEquals(1, shown.size());
        assertEquals(Optional.of(new TimeRange("a", 10, 20, "vscode")), sync.current(Kind.SELECTION, "a"));
    }

    @Test
    void ourOwnChangeComingBackIsIgnored() {
        sync.local(Kind.SELECTION, "a", 1, 2);
        assertFalse(sync.remote(Kind.SELECTION, new TimeRange("a", 1, 2, "tc")));
        // Even a different span tagged with our source is a stale echo, not another client's change.
        assertFalse(sync.remote(Kind.SELECTION, new TimeRange("a", 5, 6, "tc")));
        assertEquals(List.of(), shown);
        assertEquals(Optional.of(new TimeRange("a", 1, 2, "tc")), sync.current(Kind.SELECTION, "a"));
    }

    @Test
    void afterARemoteChangeTheOldLocalRangeIsNewsAgain() {
        sync.local(Kind.SELECTION, "a", 1, 2);
        sync.remote(Kind.SELECTION, new TimeRange("a", 3, 4, "vscode"));
        assertTrue(sync.local(Kind.SELECTION, "a", 1, 2));
        assertEquals(List.of("selection a 1-2 tc", "selection a 1-2 tc"), sent);
    }

    @Test
    void experimentsAndKindsAreIndependent() {
        sync.local(Kind.SELECTION, "a", 1, 2);
        assertTrue(sync.local(Kind.SELECTION, "b", 1, 2), "the same span on another experiment");
        assertTrue(sync.local(Kind.WINDOW, "a", 1, 2), "the same span as a window");
        assertTrue(sync.remote(Kind.WINDOW, new TimeRange("b", 7, 8, "vscode")));
        assertEquals(List.of("selection a 1-2 tc", "selection b 1-2 tc", "window a 1-2 tc"), sent);
        assertEquals(List.of("window b 7-8"), shown);
        assertEquals(Optional.of(new TimeRange("a", 1, 2, "tc")), sync.current(Kind.SELECTION, "a"));
        assertEquals(Optional.of(new TimeRange("b", 7, 8, "vscode")), sync.current(Kind.WINDOW, "b"));
        assertEquals(Optional.empty(), sync.current(Kind.WINDOW, "c"));

        sync.forget("a");
        assertEquals(Optional.empty(), sync.current(Kind.SELECTION, "a"));
        assertEquals(Optional.empty(), sync.current(Kind.WINDOW, "a"));
        assertTrue(sync.current(Kind.SELECTION, "b").isPresent());
        assertTrue(sync.local(Kind.SELECTION, "a", 1, 2), "a forgotten experiment starts afresh");
    }

    @Test
    void removedListenersAreNotTold() {
        SyncNotifications none = new SyncNotifications() {
            @Override
            public void selectionChanged(TimeRange r) {
            }

            @Override
            public void windowChanged(TimeRange r) {
            }
        };
        TimeSync s = new TimeSync("tc", none);
        List<TimeRange> seen = new ArrayList<>();
        SignalBridge l = new SignalBridge() {
            @Override
            public void selectionRangeUpdated(TimeRange r) {
                seen.add(r);
            }

            @Override
            public void windowRangeUpdated(TimeRange r) {
                seen.add(r);
            }
        };
        s.addListener(l);
        s.remote(Kind.SELECTION, new TimeRange("a", 1, 2, "x"));
        s.removeListener(l);
        s.remote(Kind.SELECTION, new TimeRange("a", 3, 4, "x"));
        assertEquals(List.of(new TimeRange("a", 1, 2, "x")), seen);
    }
}
