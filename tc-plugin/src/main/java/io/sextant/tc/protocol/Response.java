package io.sextant.tc.protocol;

/**
 * TSP data response: the model with the analysis status (RUNNING,
 * COMPLETED, FAILED, CANCELLED). On RUNNING clients ask again.
 */
public record Response<T>(T model, String status, String statusMessage) {

    public boolean isRunning() {
        return "RUNNING".equals(status);
    }

    public boolean isCompleted() {
        return "COMPLETED".equals(status);
    }
}
