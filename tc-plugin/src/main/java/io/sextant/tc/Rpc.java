package io.sextant.tc;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import org.eclipse.lsp4j.jsonrpc.ResponseErrorException;

import io.sextant.tc.protocol.Response;

/** Waiting for an answer with a time limit, errors turned into {@link SextantException}s that say which call failed. */
public final class Rpc {

    private Rpc() {
    }

    /**
     * The result of {@code call}, named {@code what} in errors. On timeout the
     * request is cancelled, which sends {@code $/cancelRequest} so that the
     * server stops working on it.
     */
    public static <T> T await(CompletableFuture<T> call, Duration timeout, String what) {
        try {
            return call.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            call.cancel(true);
            throw new SextantException(what + ": no answer within " + timeout.toMillis() + " ms", e);
        } catch (InterruptedException e) {
            call.cancel(true);
            Thread.currentThread().interrupt();
            throw new SextantException(what + ": interrupted", e);
        } catch (CancellationException e) {
            throw new SextantException(what + ": cancelled", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof ResponseErrorException r) {
                throw SextantException.fromResponse(what, r.getResponseError(), r);
            }
            throw new SextantException(what + ": " + e.getCause(), e.getCause());
        }
    }

    /**
     * Asks {@code call} again every {@code interval} while the data is still
     * being computed (status RUNNING), as TSP clients do; the COMPLETED
     * response, or an error naming {@code what} on FAILED, CANCELLED or when
     * {@code timeout} has passed.
     */
    public static <T> Response<T> awaitCompleted(Supplier<CompletableFuture<Response<T>>> call, Duration timeout,
            Duration interval, String what) {
        Instant deadline = Instant.now().plus(timeout);
        while (true) {
            Duration left = Duration.between(Instant.now(), deadline);
            Response<T> r = await(call.get(), left.isNegative() ? Duration.ZERO : left, what);
            if (r.isCompleted()) {
                return r;
            }
            if (!r.isRunning()) {
                throw new SextantException(what + ": " + r.status() + ": " + r.statusMessage(), null);
            }
            if (Instant.now().plus(interval).isAfter(deadline)) {
                throw new SextantException(what + ": still running after " + timeout.toMillis() + " ms: "
                        + r.statusMessage(), null);
            }
            sleep(interval, what);
        }
    }

    static void sleep(Duration d, String what) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SextantException(what + ": interrupted", e);
        }
    }
}
