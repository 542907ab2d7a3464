package io.sextant.tc.tests;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import org.eclipse.jface.action.ActionContributionItem;
import org.eclipse.jface.action.IAction;
import org.eclipse.swt.SWT;
import org.eclipse.swt.graphics.GC;
import org.eclipse.swt.graphics.Image;
import org.eclipse.swt.graphics.ImageData;
import org.eclipse.swt.graphics.ImageLoader;
import org.eclipse.swt.graphics.Point;
import org.eclipse.swt.graphics.Rectangle;
import org.eclipse.swt.widgets.Button;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Control;
import org.eclipse.swt.widgets.Display;
import org.eclipse.swt.widgets.Event;
import org.eclipse.swt.widgets.Shell;
import org.eclipse.ui.IViewPart;
import org.eclipse.ui.IWorkbenchPage;
import org.eclipse.ui.PartInitException;
import org.eclipse.ui.PlatformUI;

/**
 * Driving the workbench from a test thread: UI calls on the UI thread, waiting while it paints, finding
 * widgets, real mouse clicks through the X server, screenshots.
 */
final class Workbench {

    private Workbench() {
    }

    static Display display() {
        return PlatformUI.getWorkbench().getDisplay();
    }

    static <T> T ui(Supplier<T> s) {
        AtomicReference<T> r = new AtomicReference<>();
        AtomicReference<RuntimeException> err = new AtomicReference<>();
        display().syncExec(() -> {
            try {
                r.set(s.get());
            } catch (RuntimeException e) {
                err.set(e);
            }
        });
        if (err.get() != null) {
            throw err.get();
        }
        return r.get();
    }

    static void ui(Runnable r) {
        ui(() -> {
            r.run();
            return null;
        });
    }

    /** Waits until {@code done} holds, letting the UI thread paint; fails with {@code what} after {@code timeout}. */
    static void await(String what, Duration timeout, BooleanSupplier done) {
        Instant until = Instant.now().plus(timeout);
        while (!done.getAsBoolean()) {
            if (Instant.now().isAfter(until)) {
                throw new AssertionError("timed out after " + timeout.toSeconds() + " s waiting for " + what);
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + what, e);
            }
        }
    }

    static IWorkbenchPage page() {
        return PlatformUI.getWorkbench().getActiveWorkbenchWindow().getActivePage();
    }

    static IViewPart show(String id, String secondary) {
        return ui(() -> {
            try {
                return page().showView(id, secondary, IWorkbenchPage.VIEW_ACTIVATE);
            } catch (PartInitException e) {
                throw new IllegalStateException("opening " + id, e);
            }
        });
    }

    /** Lets queued UI work (repaints, async runnables) run for {@code ms}. */
    static void settle(long ms) {
        Instant until = Instant.now().plusMillis(ms);
        while (Instant.now().isBefore(until)) {
            ui(() -> {
                while (display().readAndDispatch()) {
                    // drain
                }
            });
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** {@code view} maximized, as a PNG under target/screenshots/{name}.png; the layout restored after. */
    static Path screenshot(String name, IViewPart view) throws IOException {
        ui(() -> {
            page().activate(view);
            page().setPartState(page().getReference(view), IWorkbenchPage.STATE_MAXIMIZED);
        });
        settle(2000);
        try {
            return screenshot(name);
        } finally {
            ui(() -> page().setPartState(page().getReference(view), IWorkbenchPage.STATE_RESTORED));
        }
    }

    /** The workbench window as a PNG under target/screenshots/{name}.png (popups over it included). */
    static Path screenshot(String name) throws IOException {
        return screenshot(name, ui(() -> {
            Shell shell = PlatformUI.getWorkbench().getActiveWorkbenchWindow().getShell();
            shell.forceActive();
            return shell;
        }));
    }

    /** {@code shell}'s area of the screen as a PNG under target/screenshots/{name}.png. */
    static Path screenshot(String name, Shell shell) throws IOException {
        Path dir = Path.of(System.getProperty("sextant.out", "target"), "screenshots");
        Files.createDirectories(dir);
        Path file = dir.resolve(name + ".png");
        ui(() -> {
            shell.redraw();
            shell.update();
            Rectangle b = shell.getBounds();
            Image image = new Image(display(), b.width, b.height);
            GC gc = new GC(display());
            try {
                gc.copyArea(image, b.x, b.y);
                ImageLoader saver = new ImageLoader();
                saver.data = new ImageData[] { image.getImageData() };
                saver.save(file.toString(), SWT.IMAGE_PNG);
            } finally {
                gc.dispose();
                image.dispose();
            }
        });
        return file;
    }

    /** The visible shell titled {@code title}, once there is one. */
    static Shell shell(String title, Duration timeout) {
        AtomicReference<Shell> found = new AtomicReference<>();
        await("a window titled '" + title + "'", timeout, () -> {
            found.set(ui(() -> Arrays.stream(display().getShells())
                    .filter(s -> !s.isDisposed() && s.isVisible() && title.equals(s.getText())).findFirst()
                    .orElse(null)));
            return found.get() != null;
        });
        return found.get();
    }

    /** The widgets of type {@code type} under {@code root} (on the UI thread). */
    static <T extends Control> List<T> find(Control root, Class<T> type) {
        return ui(() -> {
            List<T> out = new ArrayList<>();
            collect(root, type, out);
            return out;
        });
    }

    private static <T extends Control> void collect(Control c, Class<T> type, List<T> out) {
        if (type.isInstance(c)) {
            out.add(type.cast(c));
        }
        if (c instanceof Composite parent) {
            for (Control child : parent.getChildren()) {
                collect(child, type, out);
            }
        }
    }

    /** A button under {@code root} by its label. */
    static Button button(Control root, String label) {
        return find(root, Button.class).stream().filter(b -> ui(() -> label.equals(b.getText()))).findFirst()
                .orElseThrow(() -> new AssertionError("no button '" + label + "'"));
    }

    /** A real mouse click (the X server's, through SWT) at the middle of {@code control}. */
    static void click(Control control) {
        ui(() -> {
            control.getShell().forceActive();
            Rectangle b = control.getBounds();
            Point p = control.getParent().toDisplay(b.x + b.width / 2, b.y + b.height / 2);
            post(SWT.MouseMove, e -> {
                e.x = p.x;
                e.y = p.y;
            });
            post(SWT.MouseDown, e -> e.button = 1);
            post(SWT.MouseUp, e -> e.button = 1);
        });
        settle(300);
    }

    /**
     * A real double-click at the middle of {@code area}, in {@code control}'s coordinates: xdotool's, through
     * XTest as a mouse's. ({@link Display#post} makes events that GTK never pairs into a double-click: both
     * clicks arrive, as two clicks.)
     */
    static void doubleClick(Control control, Rectangle area) throws IOException, InterruptedException {
        Point p = ui(() -> {
            control.getShell().forceActive();
            return control.toDisplay(area.x + area.width / 2, area.y + area.height / 2);
        });
        List<String> command = List.of("xdotool", "mousemove", "--sync", Integer.toString(p.x),
                Integer.toString(p.y), "click", "--repeat", "2", "--delay", "80", "1");
        Process x = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(x.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!x.waitFor(30, TimeUnit.SECONDS) || x.exitValue() != 0) {
            throw new AssertionError(String.join(" ", command) + " failed (tc-plugin/verify.sh installs xdotool): "
                    + out);
        }
        settle(300);
    }

    private static void post(int type, java.util.function.Consumer<Event> fill) {
        Event e = new Event();
        e.type = type;
        fill.accept(e);
        if (!display().post(e)) {
            throw new AssertionError("the display refused the event " + type);
        }
    }

    /** The action of a view's toolbar by its text. */
    static IAction toolbarAction(IViewPart view, String text) {
        return ui(() -> Arrays.stream(view.getViewSite().getActionBars().getToolBarManager().getItems())
                .filter(ActionContributionItem.class::isInstance)
                .map(i -> ((ActionContributionItem) i).getAction()).filter(a -> text.equals(a.getText()))
                .findFirst().orElseThrow(() -> new AssertionError("no toolbar action '" + text + "'")));
    }
}
