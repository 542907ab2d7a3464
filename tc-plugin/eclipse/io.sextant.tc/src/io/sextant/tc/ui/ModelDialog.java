package io.sextant.tc.ui;

import java.util.List;

import org.eclipse.jface.dialogs.IDialogConstants;
import org.eclipse.jface.dialogs.TitleAreaDialog;
import org.eclipse.swt.SWT;
import org.eclipse.swt.layout.GridData;
import org.eclipse.swt.layout.GridLayout;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Control;
import org.eclipse.swt.widgets.Label;
import org.eclipse.swt.widgets.Shell;
import org.eclipse.swt.widgets.Text;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;

import io.sextant.tc.ModelSchema;

/**
 * An execution model as JSON, checked against the schema sextant serves
 * (the configuration type {@code sextant.execution-model}) as it is typed:
 * OK is enabled only when the text is a model the schema accepts.
 */
public final class ModelDialog extends TitleAreaDialog {

    private final ModelSchema schema;
    private final List<String> members;
    private String text;
    private Text editor;
    private JsonObject model;

    public ModelDialog(Shell shell, JsonObject schema, String initial) {
        super(shell);
        this.schema = new ModelSchema(schema);
        this.members = schema.has("properties") ? List.copyOf(schema.getAsJsonObject("properties").keySet())
                : List.of();
        this.text = initial;
        setShellStyle(getShellStyle() | SWT.RESIZE);
    }

    /** The dialog's title, by which the shell is known. */
    public static final String TITLE = "sextant execution model";

    @Override
    protected void configureShell(Shell shell) {
        super.configureShell(shell);
        shell.setText(TITLE);
    }

    @Override
    protected Control createDialogArea(Composite parent) {
        Composite area = (Composite) super.createDialogArea(parent);
        setTitle(TITLE);
        Composite c = new Composite(area, SWT.NONE);
        c.setLayout(new GridLayout(1, false));
        c.setLayoutData(new GridData(SWT.FILL, SWT.FILL, true, true));
        Label help = new Label(c, SWT.WRAP);
        help.setText("Members: " + String.join(", ", members));
        help.setLayoutData(new GridData(SWT.FILL, SWT.TOP, true, false));
        editor = new Text(c, SWT.MULTI | SWT.BORDER | SWT.V_SCROLL | SWT.H_SCROLL);
        GridData gd = new GridData(SWT.FILL, SWT.FILL, true, true);
        gd.widthHint = 640;
        gd.heightHint = 360;
        editor.setLayoutData(gd);
        editor.setText(text);
        editor.addModifyListener(e -> validate());
        return area;
    }

    @Override
    protected void createButtonsForButtonBar(Composite parent) {
        super.createButtonsForButtonBar(parent);
        validate();
    }

    /** The text's problems shown in the title area; OK enabled when there are none. */
    private void validate() {
        text = editor.getText();
        List<String> problems;
        JsonObject parsed = null;
        String fits = "The model fits the schema; sextant checks it again when it is posted.";
        try {
            JsonElement e = JsonParser.parseString(text);
            try {
                problems = schema.problems(e);
            } catch (RuntimeException unreadable) {
                // A schema this check cannot read must not keep the dialog from
                // opening (validate runs inside open()): the server judges the model.
                problems = e.isJsonObject() ? List.of() : List.of("the model: expected an object");
                fits = "Not checked here (" + unreadable + "); sextant checks the model when it is posted.";
            }
            if (problems.isEmpty()) {
                parsed = e.getAsJsonObject();
            }
        } catch (JsonParseException e) {
            problems = List.of("not JSON: " + e.getMessage());
        }
        model = parsed;
        if (problems.isEmpty()) {
            setErrorMessage(null);
            setMessage(fits);
        } else {
            setErrorMessage(problems.get(0) + (problems.size() > 1 ? " (and " + (problems.size() - 1) + " more)" : ""));
        }
        if (getButton(IDialogConstants.OK_ID) != null) {
            getButton(IDialogConstants.OK_ID).setEnabled(model != null);
        }
    }

    /** Replaces the text (as if typed), for callers that fill the dialog. */
    public void setText(String json) {
        editor.setText(json);
    }

    /** The accepted model, after OK. */
    public JsonObject model() {
        return model;
    }

    /** The text as last edited (kept when sextant refuses the model, to edit it again). */
    public String text() {
        return text;
    }
}
