package io.sextant.tc.protocol;

/** LSP work-done progress value: {@code kind} begin, report or end; percentage 0..100 when known. */
public record WorkDoneProgress(String kind, String title, String message, Integer percentage) {

    public boolean isEnd() {
        return "end".equals(kind);
    }
}
