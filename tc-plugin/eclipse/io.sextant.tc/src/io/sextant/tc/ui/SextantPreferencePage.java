package io.sextant.tc.ui;

import org.eclipse.jface.preference.FieldEditorPreferencePage;
import org.eclipse.jface.preference.FileFieldEditor;
import org.eclipse.jface.preference.IntegerFieldEditor;
import org.eclipse.jface.preference.StringFieldEditor;
import org.eclipse.ui.IWorkbench;
import org.eclipse.ui.IWorkbenchPreferencePage;

/** Window > Preferences > sextant: the binary, the request timeout, extra serve options (applied at the next start). */
public final class SextantPreferencePage extends FieldEditorPreferencePage implements IWorkbenchPreferencePage {

    public SextantPreferencePage() {
        super(GRID);
        setDescription("The sextant server Trace Compass runs beside it. Empty binary: $SEXTANT_BIN, "
                + "then sextant on the PATH, then the one in the plugin's folder. Changes apply when sextant restarts.");
    }

    @Override
    public void init(IWorkbench workbench) {
        setPreferenceStore(Activator.getDefault().getPreferenceStore());
    }

    @Override
    protected void createFieldEditors() {
        addField(new FileFieldEditor(Preferences.BINARY, "sextant &binary:", getFieldEditorParent()));
        IntegerFieldEditor timeout = new IntegerFieldEditor(Preferences.TIMEOUT_S, "Request &timeout (s):",
                getFieldEditorParent());
        timeout.setValidRange(1, 3600);
        addField(timeout);
        addField(new StringFieldEditor(Preferences.SERVE_OPTIONS, "Extra &serve options (e.g. --port 8080):",
                getFieldEditorParent()));
    }
}
