package io.sextant.tc.ui;

import org.eclipse.ui.plugin.AbstractUIPlugin;
import org.osgi.framework.BundleContext;

/** The bundle: one {@link SextantService} while it is active, stopped with it (no sextant process outlives Eclipse). */
public final class Activator extends AbstractUIPlugin {

    public static final String ID = "io.sextant.tc";

    private static volatile Activator plugin;
    private SextantService service;

    @Override
    public void start(BundleContext context) throws Exception {
        super.start(context);
        plugin = this;
    }

    @Override
    public void stop(BundleContext context) throws Exception {
        SextantService s;
        synchronized (this) {
            s = service;
            service = null;
        }
        if (s != null) {
            s.dispose();
        }
        plugin = null;
        super.stop(context);
    }

    public static Activator getDefault() {
        Activator a = plugin;
        if (a == null) {
            throw new IllegalStateException("the sextant bundle is not active");
        }
        return a;
    }

    /** The service, created on first use. */
    public synchronized SextantService service() {
        if (service == null) {
            service = new SextantService(getPreferenceStore(), getBundle());
        }
        return service;
    }
}
