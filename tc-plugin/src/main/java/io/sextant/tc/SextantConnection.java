package io.sextant.tc;

import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.eclipse.lsp4j.jsonrpc.Launcher;

import com.google.gson.JsonObject;

import io.sextant.tc.protocol.InitializeParams;
import io.sextant.tc.protocol.InitializeResult;
import io.sextant.tc.protocol.SextantServer;
import io.sextant.tc.protocol.TspService;

/**
 * A JSON-RPC session with sextant over a pair of streams (LSP framing by
 * LSP4J): the remote proxy, the plugin's endpoint and the time sync bound to
 * it, and the LSP life cycle.
 */
public final class SextantConnection {

    private final SextantServer server;
    private final ClientEndpoint client;
    private final TimeSync timeSync;
    private final Future<Void> listening;
    private final ExecutorService executor;
    private final String clientName;

    private SextantConnection(SextantServer server, ClientEndpoint client, TimeSync timeSync,
            Future<Void> listening, ExecutorService executor, String clientName) {
        this.server = server;
        this.client = client;
        this.timeSync = timeSync;
        this.listening = listening;
        this.executor = executor;
        this.clientName = clientName;
    }

    /**
     * Starts reading {@code fromServer}; nothing is sent until
     * {@link #initialize}. {@code clientName} is also the {@code source} of
     * the time changes this client sends.
     */
    public static SextantConnection open(InputStream fromServer, OutputStream toServer, String clientName) {
        // Daemon threads: a connection left open must not keep Eclipse or a test JVM alive.
        ExecutorService executor = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "sextant-jsonrpc");
            t.setDaemon(true);
            return t;
        });
        ClientEndpoint client = new ClientEndpoint();
        Launcher<SextantServer> launcher = new Launcher.Builder<SextantServer>()
                .setLocalService(client)
                .setRemoteInterface(SextantServer.class)
                .setInput(fromServer)
                .setOutput(toServer)
                .setExecutorService(executor)
                .create();
        SextantServer server = launcher.getRemoteProxy();
        TimeSync sync = new TimeSync(clientName, server);
        client.attach(sync);
        return new SextantConnection(server, client, sync, launcher.startListening(), executor, clientName);
    }

    /**
     * {@code initialize} then {@code initialized}. {@code traceRoots} are
     * directories the server lets this client open traces under.
     */
    public InitializeResult initialize(String clientVersion, List<String> traceRoots, Duration timeout) {
        InitializeParams params = new InitializeParams(ProcessHandle.current().pid(),
                new InitializeParams.ClientInfo(clientName, clientVersion), new JsonObject(),
                new InitializeParams.Options(traceRoots));
        InitializeResult result = Rpc.await(server.initialize(params), timeout, "initialize");
        server.initialized(new JsonObject());
        return result;
    }

    /**
     * {@code shutdown} then {@code exit}, as LSP requires; the server then
     * closes its output, which ends the reader.
     */
    public void shutdown(Duration timeout) {
        try {
            Rpc.await(server.shutdown(), timeout, "shutdown");
        } finally {
            server.exit();
        }
    }

    /** Stops reading and releases the threads (after {@link #shutdown} or when the server is gone). */
    public void close() {
        listening.cancel(true);
        executor.shutdownNow();
    }

    /** Whether the server closed its side (or {@link #close} was called). */
    public boolean isClosed() {
        return listening.isDone();
    }

    public SextantServer server() {
        return server;
    }

    public TspService tsp() {
        return server.tsp();
    }

    public ClientEndpoint client() {
        return client;
    }

    public TimeSync timeSync() {
        return timeSync;
    }
}
