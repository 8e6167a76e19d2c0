// GTK 4 (and with it GDK, GLib, GObject and Cairo), as Debian's libgtk-4-dev installs it.
#include <gtk/gtk.h>
