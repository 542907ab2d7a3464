package io.sextant.tc.ui;

import org.eclipse.ui.IStartup;

/** Creates the service when the workbench starts, so that every trace opened is opened in sextant too. */
public final class Startup implements IStartup {

    @Override
    public void earlyStartup() {
        Activator.getDefault().service();
    }
}
