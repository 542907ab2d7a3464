package io.sextant.tc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.sextant.tc.protocol.OutputDescriptor;
import io.sextant.tc.protocol.OutputQuery;
import io.sextant.tc.protocol.StatesModel;
import io.sextant.tc.protocol.TableColumn;
import io.sextant.tc.protocol.TableLines;
import io.sextant.tc.protocol.TreeModel;
import io.sextant.tc.protocol.TspService;
import io.sextant.tc.protocol.XyModel;

/** Fetches an output's data in the order TSP clients do and hands it to a {@link ViewSink}. */
public final class ViewFeeder {

    private static final Duration POLL = Duration.ofMillis(200);

    private final TspService tsp;
    private final Duration timeout;

    public ViewFeeder(TspService tsp, Duration timeout) {
        this.tsp = tsp;
        this.timeout = timeout;
    }

    /**
     * Time graph or Gantt chart: the tree, then the states of every entry
     * with data over [start, end] at {@code nbTimes} samples (null: full
     * resolution). For a Gantt chart the times are relative to each row's start.
     */
    public void timeGraph(String exp, OutputDescriptor output, long start, long end, Integer nbTimes,
            ViewSink sink) {
        String what = "time graph " + output.id();
        TreeModel tree = Rpc.awaitCompleted(() -> tsp.timeGraphTree(OutputQuery.tree(exp, output.id(), start, end)),
                timeout, POLL, what + " tree").model();
        List<Long> items = tree.entries().stream().filter(e -> !Boolean.FALSE.equals(e.hasData()))
                .map(TreeModel.Entry::id).toList();
        StatesModel states = Rpc.awaitCompleted(
                () -> tsp.timeGraphStates(OutputQuery.data(exp, output.id(), start, end, nbTimes, items)), timeout,
                POLL, what + " states").model();
        sink.timeGraph(output, tree, states);
    }

    /** XY: the tree, then the series of the default entries (all entries with data when none is default). */
    public void xy(String exp, OutputDescriptor output, long start, long end, int nbTimes, ViewSink sink) {
        String what = "XY " + output.id();
        TreeModel tree = Rpc.awaitCompleted(() -> tsp.xyTree(OutputQuery.tree(exp, output.id(), start, end)),
                timeout, POLL, what + " tree").model();
        List<TreeModel.Entry> withData = tree.entries().stream().filter(e -> Boolean.TRUE.equals(e.hasData()))
                .toList();
        List<TreeModel.Entry> defaults = withData.stream().filter(e -> Boolean.TRUE.equals(e.isDefault())).toList();
        List<Long> items = (defaults.isEmpty() ? withData : defaults).stream().map(TreeModel.Entry::id).toList();
        XyModel xy = Rpc.awaitCompleted(() -> tsp.xy(OutputQuery.data(exp, output.id(), start, end, nbTimes, items)),
                timeout, POLL, what + " series").model();
        sink.xy(output, tree, xy);
    }

    /** Table: the columns, then every line, {@code pageSize} at a time. */
    public void table(String exp, OutputDescriptor output, int pageSize, ViewSink sink) {
        String what = "table " + output.id();
        List<TableColumn> columns = Rpc.awaitCompleted(() -> tsp.tableColumns(OutputQuery.columns(exp, output.id())),
                timeout, POLL, what + " columns").model();
        List<TableLines.Line> lines = new ArrayList<>();
        long size;
        do {
            long from = lines.size();
            TableLines page = Rpc.awaitCompleted(
                    () -> tsp.tableLines(OutputQuery.lines(exp, output.id(), from, pageSize)), timeout, POLL,
                    what + " lines from " + from).model();
            size = page.size();
            if (page.lines().isEmpty() && lines.size() < size) {
                throw new SextantException(what + ": no lines from " + from + " though the table has " + size, null);
            }
            lines.addAll(page.lines());
        } while (lines.size() < size);
        sink.table(output, columns, lines);
    }
}
