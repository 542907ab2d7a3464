package io.sextant.tc;

import java.util.List;

import io.sextant.tc.protocol.OutputDescriptor;
import io.sextant.tc.protocol.StatesModel;
import io.sextant.tc.protocol.TableColumn;
import io.sextant.tc.protocol.TableLines;
import io.sextant.tc.protocol.TreeModel;
import io.sextant.tc.protocol.XyModel;

/**
 * Where fetched data goes: the Eclipse bundle's views (Comparison View,
 * Time Perspective, executions table) implement it. Called on the thread
 * that fetched: implementations hand over to the UI thread.
 */
public interface ViewSink {

    void timeGraph(OutputDescriptor output, TreeModel tree, StatesModel states);

    void xy(OutputDescriptor output, TreeModel tree, XyModel xy);

    void table(OutputDescriptor output, List<TableColumn> columns, List<TableLines.Line> lines);
}
