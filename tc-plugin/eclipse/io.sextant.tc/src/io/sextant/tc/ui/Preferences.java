package io.sextant.tc.ui;

import org.eclipse.core.runtime.preferences.AbstractPreferenceInitializer;
import org.eclipse.jface.preference.IPreferenceStore;

/** The preference keys and their defaults. */
public final class Preferences extends AbstractPreferenceInitializer {

    /** Path of the sextant binary; empty: $SEXTANT_BIN, the PATH, then the bundle's own folder. */
    public static final String BINARY = "binary";
    /** Seconds to wait for an answer (and for indexing). */
    public static final String TIMEOUT_S = "timeoutSeconds";
    /** Extra options after {@code serve --stdio}, e.g. {@code --port 8080} to let a VS Code viewer join. */
    public static final String SERVE_OPTIONS = "serveOptions";

    @Override
    public void initializeDefaultPreferences() {
        IPreferenceStore store = Activator.getDefault().getPreferenceStore();
        store.setDefault(BINARY, "");
        store.setDefault(TIMEOUT_S, 120);
        store.setDefault(SERVE_OPTIONS, "");
    }
}
