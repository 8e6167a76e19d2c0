/* The time limit on one photo's decode and pipelines, enforced with libvips's own kill
 * switch (vips_image_set_kill) from a watchdog thread.
 *
 * libvips checks an image's kill flag in vips_region_prepare of that image, so a kill is
 * prompt only when it reaches the images whose regions are being prepared. Work that one
 * request computes whole (a 64x64 fill of a blurred 5000x5000 PNG: its first strip needs
 * every pixel of the blur) never comes back to the image a caller holds until it is done,
 * so a kill of that image alone, or a check between its strips, waits for all of it.
 *
 * So a limit (cvips_deadline_begin) is a watch: every image made while it runs on this
 * thread (each one the Swift side wraps, and each one the shim's loops compute) is
 * recorded with every image upstream of it (libvips's own links, VipsImage.upstream:
 * an operation's inner images too), held by a weak reference. One watchdog thread waits
 * for the soonest deadline and, at it, sets the kill flag of every image of that watch;
 * libvips then fails at the next region any of its threads prepares ("killed for
 * image"). When the limit ends, the flags it set are cleared again, so an image that
 * outlives it (a caller's source image) is not left killed.
 *
 * The step before an image exists (a loader's sniff, its header) gives libvips nothing to
 * kill: Sources/Vips/AbandonableWorker.swift bounds that.
 *
 * Locks are pthread's (ThreadSanitizer sees them); GLib's own structures are used only
 * under them. Under the lock libvips is called only to set kill flags and to invalidate
 * (revive_all): neither drops an image while the operation cache is off (Vips.swift
 * sets its size to 0), so forget, which takes the lock, is never entered under it.
 */
#include "CVipsShim.h"

#include <pthread.h>
#include <time.h>

typedef struct Watch {
  gint64 deadline;   /* monotonic microseconds */
  gboolean armed;    /* in `armed` below, watched by the watchdog */
  gboolean fired;    /* its images were killed */
  int references;    /* 1 while armed, and 1 per image it holds */
  GHashTable *images; /* VipsImage * -> itself */
  struct Watch *outer; /* the limit this one runs inside, on the same thread */
  struct Watch *next;  /* the next armed watch */
} Watch;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake;
static pthread_once_t started = PTHREAD_ONCE_INIT;
static Watch *armed = NULL;

/* This thread's innermost limit; NULL for none. */
static _Thread_local Watch *current = NULL;

/* Under `lock`. */
static void release(Watch *watch) {
  if (--watch->references > 0) return;
  g_hash_table_destroy(watch->images);
  g_free(watch);
}

static void kill_all(Watch *watch, gboolean kill) {
  GHashTableIter iter;
  gpointer image;
  g_hash_table_iter_init(&iter, watch->images);
  while (g_hash_table_iter_next(&iter, &image, NULL)) vips_image_set_kill(image, kill);
}

/* Under `lock`: clears the kill flags of a watch that fired, and drops what its images
 * computed: an operation whose input was killed under it can keep the unfinished
 * buffer it was filling as though it were done (garbage, for the next read of the same
 * image). Each image is invalidated with everything downstream of it. */
static void revive_all(Watch *watch) {
  kill_all(watch, FALSE);
  GHashTableIter iter;
  gpointer image;
  g_hash_table_iter_init(&iter, watch->images);
  while (g_hash_table_iter_next(&iter, &image, NULL)) vips_image_invalidate_all(image);
}

static void *watchdog(void *unused) {
  (void)unused;
  pthread_mutex_lock(&lock);
  for (;;) {
    gint64 now = g_get_monotonic_time();
    gint64 soonest = G_MAXINT64;
    for (Watch *watch = armed; watch; watch = watch->next) {
      if (watch->fired) continue;
      if (watch->deadline <= now) {
        watch->fired = TRUE;
        kill_all(watch, TRUE);
      } else if (watch->deadline < soonest) {
        soonest = watch->deadline;
      }
    }
    if (soonest == G_MAXINT64) {
      pthread_cond_wait(&wake, &lock);
    } else {
      struct timespec until = {(time_t)(soonest / G_USEC_PER_SEC),
                               (long)(soonest % G_USEC_PER_SEC) * 1000};
      pthread_cond_timedwait(&wake, &lock, &until);
    }
  }
  return NULL;
}

static void start_watchdog(void) {
  /* g_get_monotonic_time is CLOCK_MONOTONIC on Linux; the waits use the same clock. */
  pthread_condattr_t attributes;
  pthread_condattr_init(&attributes);
  pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC);
  pthread_cond_init(&wake, &attributes);
  pthread_condattr_destroy(&attributes);
  pthread_attr_t thread;
  pthread_attr_init(&thread);
  pthread_attr_setdetachstate(&thread, PTHREAD_CREATE_DETACHED);
  pthread_t id;
  if (pthread_create(&id, &thread, watchdog, NULL) != 0)
    g_warning("cvips: no watchdog thread; time limits are checked between strips only");
  pthread_attr_destroy(&thread);
}

/* A recorded image has gone (its dispose, before its memory is freed). */
static void forget(gpointer data, GObject *image) {
  Watch *watch = data;
  pthread_mutex_lock(&lock);
  g_hash_table_remove(watch->images, image);
  release(watch);
  pthread_mutex_unlock(&lock);
}

/* Under `lock`: `image` and everything upstream of it into `watch`. Stops at images it
 * holds already (their upstream was recorded with them), and at images whose pixels are
 * already in memory or a file: they compute nothing, and may be shared with work under
 * another limit (a cached mask, MaskCache.swift), which a kill here would fail. */
static void record(Watch *watch, VipsImage *image) {
  if (image->dtype != VIPS_IMAGE_PARTIAL) return;
  if (g_hash_table_contains(watch->images, image)) return;
  g_hash_table_add(watch->images, image);
  watch->references++;
  g_object_weak_ref(G_OBJECT(image), forget, watch);
  if (watch->fired) vips_image_set_kill(image, TRUE);
  for (GSList *link = image->upstream; link; link = link->next) record(watch, link->data);
}

void *cvips_deadline_begin(gint64 deadline) {
  pthread_once(&started, start_watchdog);
  Watch *watch = g_new0(Watch, 1);
  watch->deadline = deadline;
  watch->armed = TRUE;
  watch->references = 1;
  watch->images = g_hash_table_new(g_direct_hash, g_direct_equal);
  watch->outer = current;
  pthread_mutex_lock(&lock);
  watch->next = armed;
  armed = watch;
  pthread_cond_signal(&wake);
  pthread_mutex_unlock(&lock);
  Watch *outer = current;
  current = watch;
  return outer;
}

void cvips_deadline_end(void *outer) {
  Watch *watch = current;
  if (!watch) return;
  current = outer;
  pthread_mutex_lock(&lock);
  for (Watch **link = &armed; *link; link = &(*link)->next)
    if (*link == watch) {
      *link = watch->next;
      break;
    }
  watch->armed = FALSE;
  /* The images that outlive the limit run again; those it killed failed already. */
  gboolean fired = watch->fired;
  if (fired) revive_all(watch);
  release(watch);
  pthread_mutex_unlock(&lock);
  if (fired) vips_thread_shutdown();
}

gint64 cvips_deadline_get(void) { return current ? current->deadline : 0; }

int cvips_deadline_passed(void) {
  return current != NULL && g_get_monotonic_time() > current->deadline;
}

void cvips_deadline_track(VipsImage *image) {
  if (!current || !image) return;
  pthread_mutex_lock(&lock);
  for (Watch *watch = current; watch; watch = watch->outer) record(watch, image);
  pthread_mutex_unlock(&lock);
}

int cvips_kill_if_deadline_passed(VipsImage *image) {
  if (!cvips_deadline_passed()) return 0;
  vips_image_set_kill(image, TRUE);
  return 1;
}

void *cvips_write_to_memory_watched(VipsImage *in, size_t *size) {
  cvips_deadline_track(in);
  /* Already late: libvips's pool checks the flag before its first tile. */
  cvips_kill_if_deadline_passed(in);
  return vips_image_write_to_memory(in, size);
}

VipsImage *cvips_copy_memory_watched(VipsImage *in) {
  cvips_deadline_track(in);
  cvips_kill_if_deadline_passed(in);
  VipsImage *out = vips_image_copy_memory(in);
  /* vips_image_copy_memory returns `in` itself, with a reference, when it is in memory
   * already; a new image is recorded too, for what is made from it. */
  cvips_deadline_track(out);
  return out;
}
