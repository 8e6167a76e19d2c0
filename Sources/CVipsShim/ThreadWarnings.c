/* The warnings libvips raises on one thread while a decode on that thread collects them.
 *
 * libvips reports a JPEG whose scan runs out of data ("Corrupt JPEG data: premature end
 * of data segment") as a warning, and libjpeg fills the rest of the photo with grey. Its
 * GLib warnings go to one process-wide handler, where concurrent decodes' warnings mix;
 * a decode computed on its own thread (cvips_write_to_memory_on_this_thread) raises its
 * loader's warnings on that thread, so a thread-local list is that decode's alone.
 */
#include "CVipsShim.h"

static _Thread_local GString *collected = NULL;
static _Thread_local int collecting = 0;

void cvips_thread_warnings_begin(void) {
  collecting = 1;
  if (collected) g_string_truncate(collected, 0);
}

int cvips_thread_warnings_offer(const char *message) {
  if (!collecting || !message) return 0;
  if (!collected) collected = g_string_new(NULL);
  if (collected->len) g_string_append_c(collected, '\n');
  g_string_append(collected, message);
  return 1;
}

char *cvips_thread_warnings_end(void) {
  collecting = 0;
  if (!collected || !collected->len) return NULL;
  char *text = g_strdup(collected->str);
  g_string_truncate(collected, 0);
  return text;
}
