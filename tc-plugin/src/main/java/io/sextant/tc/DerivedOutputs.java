package io.sextant.tc;

import io.sextant.tc.protocol.OutputDescriptor;

/** The three outputs sextant derives from one execution model. */
public record DerivedOutputs(OutputDescriptor comparison, OutputDescriptor timePerspective,
        OutputDescriptor table) {
}
