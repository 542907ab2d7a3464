package io.sextant.tc.protocol;

import java.util.List;

/** A page of table lines: {@code size} is the table's whole length. */
public record TableLines(List<Long> columnIds, long lowIndex, long size, List<Line> lines) {

    public record Line(long index, List<Cell> cells) {
    }

    public record Cell(String content) {
    }
}
