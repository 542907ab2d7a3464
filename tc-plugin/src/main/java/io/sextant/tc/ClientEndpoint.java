package io.sextant.tc;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.logging.Logger;

import io.sextant.tc.protocol.ProgressParams;
import io.sextant.tc.protocol.SextantClient;
import io.sextant.tc.protocol.TimeRange;
import io.sextant.tc.protocol.WorkDoneProgress;

/**
 * The plugin's side of the connection: receives {@code $/progress} for the
 * tokens it handed out and the other clients' time changes, which go to the
 * {@link TimeSync}.
 */
public final class ClientEndpoint implements SextantClient {

    private static final Logger LOG = Logger.getLogger(ClientEndpoint.class.getName());

    private final Map<String, Consumer<WorkDoneProgress>> progress = new ConcurrentHashMap<>();
    private final AtomicLong nextToken = new AtomicLong();
    /** Set once the connection exists: the TimeSync sends through the connection's remote proxy. */
    private volatile TimeSync timeSync;

    void attach(TimeSync sync) {
        this.timeSync = sync;
    }

    /**
     * A fresh {@code workDoneToken} whose progress goes to {@code listener}
     * until its {@code end}.
     */
    public String progressToken(Consumer<WorkDoneProgress> listener) {
        String token = "tc-" + nextToken.incrementAndGet();
        progress.put(token, listener);
        return token;
    }

    @Override
    public void progress(ProgressParams params) {
        if (params.token() == null || params.value() == null) {
            LOG.warning(() -> "$/progress without token or value: " + params);
            return;
        }
        String token = params.token().getAsString();
        Consumer<WorkDoneProgress> listener = params.value().isEnd() ? progress.remove(token) : progress.get(token);
        if (listener != null) {
            listener.accept(params.value());
        }
    }

    @Override
    public void selectionChanged(TimeRange range) {
        TimeSync sync = timeSync;
        if (sync != null) {
            sync.remote(TimeSync.Kind.SELECTION, range);
        }
    }

    @Override
    public void windowChanged(TimeRange range) {
        TimeSync sync = timeSync;
        if (sync != null) {
            sync.remote(TimeSync.Kind.WINDOW, range);
        }
    }
}
