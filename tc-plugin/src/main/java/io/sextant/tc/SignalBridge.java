package io.sextant.tc;

import io.sextant.tc.protocol.TimeRange;

/**
 * Where time changes made by other clients (a VS Code window, a script) enter
 * Trace Compass. The Eclipse bundle implements it by broadcasting
 * {@code TmfSelectionRangeUpdatedSignal} / {@code TmfWindowRangeUpdatedSignal}
 * for the trace mapped to {@code range.experimentUUID()}. Called on the
 * connection's reader thread: implementations hand over to the UI thread.
 */
public interface SignalBridge {

    void selectionRangeUpdated(TimeRange range);

    void windowRangeUpdated(TimeRange range);
}
