package io.sextant.tc;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;

import io.sextant.tc.protocol.SyncNotifications;
import io.sextant.tc.protocol.TimeRange;

/**
 * Keeps Trace Compass and sextant's other clients on the same selection and
 * visible window, per experiment.
 *
 * <p>Both directions go through one current value per experiment and kind,
 * and a change is passed on only when it differs from that value. This is
 * what stops echo: a range received from the server is shown in Trace
 * Compass, whose signal handler reports it back as a local change, which is
 * then equal to the current value and not sent again; a range we sent and
 * that comes back is equal too and not shown again.
 */
public final class TimeSync {

    /** The two synchronised ranges. */
    public enum Kind {
        SELECTION(SyncNotifications::selectionChanged, SignalBridge::selectionRangeUpdated),
        WINDOW(SyncNotifications::windowChanged, SignalBridge::windowRangeUpdated);

        private final BiConsumer<SyncNotifications, TimeRange> send;
        private final BiConsumer<SignalBridge, TimeRange> show;

        Kind(BiConsumer<SyncNotifications, TimeRange> send, BiConsumer<SignalBridge, TimeRange> show) {
            this.send = send;
            this.show = show;
        }
    }

    private final String source;
    private final SyncNotifications server;
    private final Map<Kind, Map<String, TimeRange>> current = Map.of(Kind.SELECTION, new ConcurrentHashMap<>(),
            Kind.WINDOW, new ConcurrentHashMap<>());
    private final List<SignalBridge> listeners = new CopyOnWriteArrayList<>();

    /**
     * @param source how this client names itself in the notifications' {@code source}
     * @param server where local changes are sent
     */
    public TimeSync(String source, SyncNotifications server) {
        this.source = source;
        this.server = server;
    }

    public String source() {
        return source;
    }

    public void addListener(SignalBridge listener) {
        listeners.add(listener);
    }

    public void removeListener(SignalBridge listener) {
        listeners.remove(listener);
    }

    /**
     * Trace Compass changed a range on the experiment: sends it to the server
     * unless it is already the current one. Returns whether it was sent.
     */
    public boolean local(Kind kind, String experimentUUID, long start, long end) {
        // A selection dragged leftwards arrives with start after end; the protocol wants them ordered.
        TimeRange range = new TimeRange(experimentUUID, Math.min(start, end), Math.max(start, end), source);
        if (!replaceIfDifferent(kind, range)) {
            return false;
        }
        kind.send.accept(server, range);
        return true;
    }

    /**
     * The server relayed another client's change: shows it through the
     * listeners unless it is already the current range (or our own, coming
     * back). Returns whether the listeners were told.
     */
    public boolean remote(Kind kind, TimeRange range) {
        if (source.equals(range.source()) || !replaceIfDifferent(kind, range)) {
            return false;
        }
        for (SignalBridge l : listeners) {
            kind.show.accept(l, range);
        }
        return true;
    }

    /** The experiment's current range of that kind, from either side. */
    public Optional<TimeRange> current(Kind kind, String experimentUUID) {
        return Optional.ofNullable(current.get(kind).get(experimentUUID));
    }

    /** Forgets an experiment that was closed. */
    public void forget(String experimentUUID) {
        current.values().forEach(m -> m.remove(experimentUUID));
    }

    /** Atomically makes {@code range} current; false when the same span already was. */
    private boolean replaceIfDifferent(Kind kind, TimeRange range) {
        boolean[] changed = {false};
        current.get(kind).compute(range.experimentUUID(), (exp, old) -> {
            if (range.sameSpan(old)) {
                return old;
            }
            changed[0] = true;
            return range;
        });
        return changed[0];
    }
}
