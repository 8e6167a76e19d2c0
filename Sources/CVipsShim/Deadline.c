/* The time limit on one photo's decode and pipelines, enforced with libvips's own kill
 * switch (vips_image_set_kill).
 *
 * A deadline belongs to the thread that decodes the photo (a fill's worker): the shim's
 * own strip loops (each_row, RowStrips.h) check it before each strip, and an image that
 * libvips's threadpool computes for that thread is watched from its "eval" signal, which
 * libvips sends as the pool finishes work. Past the deadline the image is killed, and
 * libvips stops at its next region (vips_region_prepare fails with "killed for image").
 * Work inside one strip, or before any image exists (a loader's sniff or header), is not
 * reached this way: Sources/Vips/AbandonableWorker.swift bounds that.
 */
#include "CVipsShim.h"

/* Monotonic microseconds (g_get_monotonic_time); 0 when this thread has no deadline. */
static _Thread_local gint64 deadline = 0;

void cvips_deadline_set(gint64 monotonic_microseconds) { deadline = monotonic_microseconds; }

gint64 cvips_deadline_get(void) { return deadline; }

int cvips_deadline_passed(void) { return deadline != 0 && g_get_monotonic_time() > deadline; }

int cvips_kill_if_deadline_passed(VipsImage *image) {
  if (!cvips_deadline_passed()) return 0;
  vips_image_set_kill(image, TRUE);
  return 1;
}

static void kill_when_late(VipsImage *image, VipsProgress *progress, gint64 *limit) {
  (void)progress;
  if (g_get_monotonic_time() > *limit) vips_image_set_kill(image, TRUE);
}

static void free_limit(gpointer limit, GClosure *closure) {
  (void)closure;
  g_free(limit);
}

void cvips_watch_deadline(VipsImage *image) {
  if (deadline == 0) return;
  /* Already late: killed before the pool starts (it checks before its first tile). */
  if (cvips_kill_if_deadline_passed(image)) return;
  gint64 *limit = g_new(gint64, 1);
  *limit = deadline;
  vips_image_set_progress(image, TRUE);
  g_signal_connect_data(image, "eval", G_CALLBACK(kill_when_late), limit, free_limit, 0);
}

void *cvips_write_to_memory_watched(VipsImage *in, size_t *size) {
  cvips_watch_deadline(in);
  return vips_image_write_to_memory(in, size);
}

VipsImage *cvips_copy_memory_watched(VipsImage *in) {
  cvips_watch_deadline(in);
  return vips_image_copy_memory(in);
}
