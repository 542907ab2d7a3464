package io.sextant.tc.tests;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import org.eclipse.swt.SWT;
import org.eclipse.swt.graphics.GC;
import org.eclipse.swt.graphics.Image;
import org.eclipse.swt.graphics.ImageData;
import org.eclipse.swt.graphics.ImageLoader;
import org.eclipse.swt.graphics.Rectangle;
import org.eclipse.swt.widgets.Display;
import org.eclipse.swt.widgets.Shell;
import org.eclipse.ui.IViewPart;
import org.eclipse.ui.IWorkbenchPage;
import org.eclipse.ui.PartInitException;
import org.eclipse.ui.PlatformUI;

/** Driving the workbench from a test thread: UI calls on the UI thread, waiting while it paints, screenshots. */
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

    /** The workbench window as a PNG under target/screenshots/{name}.png. */
    static Path screenshot(String name) throws IOException {
        Path dir = Path.of(System.getProperty("sextant.out", "target"), "screenshots");
        Files.createDirectories(dir);
        Path file = dir.resolve(name + ".png");
        ui(() -> {
            Shell shell = PlatformUI.getWorkbench().getActiveWorkbenchWindow().getShell();
            shell.forceActive();
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
}
