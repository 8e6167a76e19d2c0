#include "CGtkShim.h"

#include <fcntl.h>
#include <glib-unix.h>
#include <sys/eventfd.h>

gulong viewer_connect_instance(gpointer instance, const char *signal,
                               ViewerInstanceHandler handler, gpointer data) {
  return g_signal_connect(instance, signal, G_CALLBACK(handler), data);
}

gulong viewer_connect_key_pressed(GtkEventController *controller, ViewerKeyHandler handler,
                                  gpointer data) {
  return g_signal_connect(controller, "key-pressed", G_CALLBACK(handler), data);
}

gulong viewer_connect_point(gpointer instance, const char *signal, ViewerPointHandler handler,
                            gpointer data) {
  return g_signal_connect(instance, signal, G_CALLBACK(handler), data);
}

gulong viewer_connect_scroll(GtkEventController *controller, ViewerScrollHandler handler,
                             gpointer data) {
  return g_signal_connect(controller, "scroll", G_CALLBACK(handler), data);
}

gulong viewer_connect_resize(GtkDrawingArea *area, ViewerResizeHandler handler, gpointer data) {
  return g_signal_connect(area, "resize", G_CALLBACK(handler), data);
}

gboolean viewer_connect_low_memory(ViewerLowMemoryHandler handler, gpointer data) {
  GMemoryMonitor *monitor = g_memory_monitor_dup_default();  // kept: one per process
  if (monitor == NULL) return FALSE;
  g_signal_connect(monitor, "low-memory-warning", G_CALLBACK(handler), data);
  return TRUE;
}

void viewer_add_css(const char *css) {
  GtkCssProvider *provider = gtk_css_provider_new();  // kept: the display holds it
#if GTK_CHECK_VERSION(4, 12, 0)
  gtk_css_provider_load_from_string(provider, css);
#else
  gtk_css_provider_load_from_data(provider, css, -1);
#endif
  gtk_style_context_add_provider_for_display(gdk_display_get_default(),
                                             GTK_STYLE_PROVIDER(provider),
                                             GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
}

void viewer_prefer_dark_theme(void) {
  g_object_set(gtk_settings_get_default(), "gtk-application-prefer-dark-theme", TRUE, NULL);
}

// libdispatch's interface for run loops (what swift-corelibs-foundation's CFRunLoop
// uses on Linux): an eventfd that becomes readable when the main queue has work, and
// the call that runs that work.
extern int _dispatch_get_main_queue_handle_4CF(void);
extern void _dispatch_main_queue_callback_4CF(void *message);

static gboolean viewer_main_queue_ready(gint fd, GIOCondition condition, gpointer data) {
  (void)condition;
  (void)data;
  eventfd_t count;
  (void)eventfd_read(fd, &count);  // non-blocking: clears the wake-up if it is still set
  _dispatch_main_queue_callback_4CF(NULL);
  return G_SOURCE_CONTINUE;
}

gboolean viewer_attach_main_queue(void) {
  int fd = _dispatch_get_main_queue_handle_4CF();
  if (fd < 0) return FALSE;
  int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) return FALSE;
  g_unix_fd_add(fd, G_IO_IN, viewer_main_queue_ready, NULL);
  // Work enqueued before the source existed has already rung: run it now.
  _dispatch_main_queue_callback_4CF(NULL);
  return TRUE;
}
