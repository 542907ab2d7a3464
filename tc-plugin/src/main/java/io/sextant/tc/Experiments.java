package io.sextant.tc;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import io.sextant.tc.protocol.CreateExperiment;
import io.sextant.tc.protocol.Experiment;
import io.sextant.tc.protocol.ExperimentRef;
import io.sextant.tc.protocol.OpenTrace;
import io.sextant.tc.protocol.Trace;
import io.sextant.tc.protocol.WorkDoneProgress;

/** Opening the traces of a Trace Compass experiment in sextant and waiting for their index. */
public final class Experiments {

    private static final Duration POLL = Duration.ofMillis(100);

    private final SextantConnection connection;
    private final Duration timeout;

    /** {@code timeout} bounds each request and the wait for indexing. */
    public Experiments(SextantConnection connection, Duration timeout) {
        this.connection = connection;
        this.timeout = timeout;
    }

    /**
     * Opens each trace (a CTF directory or a file, as a path the server may
     * read) and an experiment over them named {@code name}; the traces are
     * named {@code name}, or {@code name/1}, {@code name/2}... when there are
     * several. Indexing progress goes to {@code progress} (may be null).
     */
    public Experiment open(String name, List<String> traceUris, Consumer<WorkDoneProgress> progress) {
        List<String> uuids = new ArrayList<>();
        for (int i = 0; i < traceUris.size(); i++) {
            String traceName = traceUris.size() == 1 ? name : name + "/" + (i + 1);
            String uri = traceUris.get(i);
            Trace t = Rpc.await(connection.tsp().openTrace(OpenTrace.of(traceName, uri, null)), timeout,
                    "tsp/traces/open " + uri);
            uuids.add(t.uuid());
        }
        String token = progress == null ? null : connection.client().progressToken(progress);
        return Rpc.await(connection.tsp().createExperiment(CreateExperiment.of(name, uuids, token)), timeout,
                "tsp/experiments/create " + name);
    }

    /** The experiment once indexed (status COMPLETED); fails if indexing fails or outlasts the timeout. */
    public Experiment awaitIndexed(String expUUID) {
        Instant deadline = Instant.now().plus(timeout);
        String what = "tsp/experiments/get " + expUUID;
        while (true) {
            Experiment e = Rpc.await(connection.tsp().experiment(new ExperimentRef(expUUID)), timeout, what);
            if (e.isIndexed()) {
                return e;
            }
            if (!e.isIndexing()) {
                throw new SextantException("indexing " + e.name() + " ended " + e.indexingStatus() + ": "
                        + e.statusMessage(), null);
            }
            if (Instant.now().isAfter(deadline)) {
                throw new SextantException("indexing " + e.name() + " still running after " + timeout.toMillis()
                        + " ms: " + e.statusMessage(), null);
            }
            Rpc.sleep(POLL, what);
        }
    }

    /**
     * The Trace Compass experiment was closed: deletes it in sextant (its
     * traces stay open for other clients) and forgets its time ranges.
     */
    public void close(String expUUID) {
        Rpc.await(connection.tsp().deleteExperiment(new ExperimentRef(expUUID)), timeout,
                "tsp/experiments/delete " + expUUID);
        connection.timeSync().forget(expUUID);
    }
}
