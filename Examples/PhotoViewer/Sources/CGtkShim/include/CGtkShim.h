// What Swift cannot call in GTK and GLib: the signal connection macros (a handler is
// cast to GCallback whatever its signature), the variadic g_object_set, and the
// hook that lets GLib's main loop run Swift's main actor. No logic lives here.
#ifndef CGTK_SHIM_H
#define CGTK_SHIM_H

#include <gtk/gtk.h>

/// g_signal_connect for a signal whose handler takes only the instance and the user
/// data (GtkWindow's "close-request").
typedef gboolean (*ViewerInstanceHandler)(gpointer instance, gpointer data);
gulong viewer_connect_instance(gpointer instance, const char *signal,
                               ViewerInstanceHandler handler, gpointer data);

/// GtkEventControllerKey's "key-pressed".
typedef gboolean (*ViewerKeyHandler)(GtkEventControllerKey *controller, guint keyval,
                                     guint keycode, GdkModifierType state, gpointer data);
gulong viewer_connect_key_pressed(GtkEventController *controller, ViewerKeyHandler handler,
                                  gpointer data);

/// A signal whose handler takes two doubles: GtkGestureDrag's "drag-begin" (start
/// point), "drag-update" and "drag-end" (offset from it), GtkEventControllerMotion's
/// "motion" (the pointer).
typedef void (*ViewerPointHandler)(gpointer instance, double x, double y, gpointer data);
gulong viewer_connect_point(gpointer instance, const char *signal, ViewerPointHandler handler,
                            gpointer data);

/// GtkEventControllerScroll's "scroll" (deltas; TRUE when handled).
typedef gboolean (*ViewerScrollHandler)(GtkEventControllerScroll *controller, double dx,
                                        double dy, gpointer data);
gulong viewer_connect_scroll(GtkEventController *controller, ViewerScrollHandler handler,
                             gpointer data);

/// GtkDrawingArea's "resize".
typedef void (*ViewerResizeHandler)(GtkDrawingArea *area, int width, int height, gpointer data);
gulong viewer_connect_resize(GtkDrawingArea *area, ViewerResizeHandler handler, gpointer data);

/// GMemoryMonitor's "low-memory-warning" on the default monitor, which lives as long
/// as the process. Returns FALSE when GIO has no memory monitor here.
typedef void (*ViewerLowMemoryHandler)(GMemoryMonitor *monitor, GMemoryMonitorWarningLevel level,
                                       gpointer data);
gboolean viewer_connect_low_memory(ViewerLowMemoryHandler handler, gpointer data);

/// Adds `css` to the display's style, above the theme (GTK 4.12 renamed the call).
void viewer_add_css(const char *css);

/// Asks for the dark variant of the theme (g_object_set is variadic).
void viewer_prefer_dark_theme(void);

/// Runs Swift's main actor (Dispatch's main queue) from GLib's main loop: a source on
/// the queue's wake-up descriptor drains the queue whenever work is enqueued, as
/// Foundation's run loop does. Call once, on the main thread, before the loop runs.
/// Returns FALSE when Dispatch gives no descriptor.
gboolean viewer_attach_main_queue(void);

#endif
