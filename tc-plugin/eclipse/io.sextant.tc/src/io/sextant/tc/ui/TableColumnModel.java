package io.sextant.tc.ui;

import java.util.List;

import org.eclipse.tracecompass.tmf.core.model.tree.TmfTreeDataModel;

/** A column of a sextant table, as the tree a Trace Compass table provider answers, with its TSP type. */
public final class TableColumnModel extends TmfTreeDataModel {

    /** TSP's column types; the numeric ones sort as numbers. */
    public enum Type {
        NUMBER, TIMESTAMP, DURATION, STRING;

        static Type of(String tsp) {
            for (Type t : values()) {
                if (t.name().equals(tsp)) {
                    return t;
                }
            }
            return STRING;
        }

        public boolean numeric() {
            return this != STRING;
        }
    }

    private final Type type;

    TableColumnModel(long id, String name, Type type) {
        super(id, -1, List.of(name));
        this.type = type;
    }

    public Type type() {
        return type;
    }
}
