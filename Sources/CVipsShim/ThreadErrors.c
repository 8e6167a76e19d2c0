/* libvips's error messages, kept for the thread that raised them.
 *
 * libvips 8.14 has one process-wide error buffer: every failing call appends its text
 * there, and reading it (vips_error_buffer_copy) clears it for all threads. Two photos
 * refused at once on two threads then read each other's text, or none: a batch render
 * told a JPEG's damaged quantisation table as "libvips gave no reason" (FailOnCommandTests)
 * and a JPEG's refusal with a TIFF's words (ErrorWordingTests).
 *
 * libvips raises every error through vips_verror (vips_error and vips_error_system call
 * it), and calls it through its PLT, so this definition, found first in the lookup order
 * (the test executable, or libImageToolEngine.so that imgtool dlopens with RTLD_GLOBAL),
 * takes them. So the imgtool launcher never loads libvips ahead of the engine
 * (Sources/imgtool/DependencyPreload.swift): relocated before the engine is there, libvips
 * would bind to its own. A message raised on a thread that libvips did not make (the thread that
 * asked for the work; a decode is computed on it, see cvips_write_to_memory_on_this_thread)
 * is kept in that thread's own list, which cvips_thread_errors_take reads.
 *
 * One raised on a libvips worker goes to the thread that ran the worker's threadpool: a
 * non-sequential loader (WebP, GIF, HEIF, JPEG XL in 8.14) decodes into a memory image
 * with vips_sink_memory, so a damaged WebP's "unable to read pixels" is raised on a
 * worker. Left in libvips's one buffer, a second WebP refused at once on another thread
 * read it (and its own refusal then had no reason), and a decode clearing its warnings
 * wiped it: a full test run once read a damaged WebP as "icc_transform failed, and
 * libvips gave no reason". vips_threadpool_run, also called by libvips through its PLT,
 * is taken here too: it runs libvips's with the worker functions wrapped, so that a
 * worker's messages are collected for that run, and hands them to the thread that
 * asked when the run ends (all its workers have exited by then) and has failed; a run
 * that succeeded drops them, as libvips dropped the failure they told. A message raised
 * on a libvips thread outside the wrapped functions (a sink's stop, run as a worker's
 * state is freed; vips_sink_disc's writing thread) goes to libvips's own buffer, as
 * before.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <string.h>

#include "CVipsShim.h"

/* As much text as libvips's own buffer holds (VIPS_MAX_ERROR in error.c): a file that
 * raises an error for each of a million directory entries fills no more, and the lines
 * past it are told as one "...". */
#define MESSAGES_LIMIT 10240

typedef void (*verror_function)(const char *domain, const char *fmt, va_list ap);

typedef void (*freeze_function)(void);

static _Thread_local int frozen = 0;

/* Lines of messages, "domain: message\n" each, as much as libvips's buffer holds; once
 * full, one "...\n" stands for the rest. */
typedef struct {
  char text[MESSAGES_LIMIT + 8];
  size_t length;
  int full;
} MessageList;

/* This thread's messages: a list of its own in thread-local storage, allocated by no
 * one. (With a GString, a CI run under ThreadSanitizer reported a new thread's string
 * as racing an ended thread's at the same address: GLib 2.74 takes a GString's struct
 * from GSlice, whose reuse of memory TSan does not see.) */
static _Thread_local MessageList own = {{0}, 0, 0};

/* The definition after this one of a libvips function, looked up once: a probe of a
 * folder of photos freezes and thaws errors for every file. */
static void *next_definition(void **cached, const char *name) {
  void *function = __atomic_load_n(cached, __ATOMIC_ACQUIRE);
  if (!function) {
    function = dlsym(RTLD_NEXT, name);
    __atomic_store_n(cached, function, __ATOMIC_RELEASE);
  }
  return function;
}

static verror_function libvips_verror(void) {
  static void *found = NULL;
  return (verror_function)next_definition(&found, "vips_verror");
}

/* vips_error_freeze and thaw bracket calls whose errors libvips means to drop (a
 * loader's probe of a file): counted for this thread too, and passed on. */
void vips_error_freeze(void) {
  static void *found = NULL;
  frozen += 1;
  freeze_function function = (freeze_function)next_definition(&found, "vips_error_freeze");
  if (function) function();
}

void vips_error_thaw(void) {
  static void *found = NULL;
  if (frozen > 0) frozen -= 1;
  freeze_function function = (freeze_function)next_definition(&found, "vips_error_thaw");
  if (function) function();
}

/* What a vips_threadpool_run was called with. */
typedef struct {
  VipsThreadStartFn start;
  VipsThreadpoolAllocateFn allocate;
  VipsThreadpoolWorkFn work;
  VipsThreadpoolProgressFn progress;
  void *a;
} RunFunctions;

/* One vips_threadpool_run: its functions and its workers' messages, kept until it
 * returns. Every access by a worker is under `lock`: libvips hands its reused workers
 * their work and waits for them on GLib semaphores, futexes ThreadSanitizer does not
 * see, so the lock is what orders a worker's reads before the run's end and free. */
typedef struct {
  pthread_mutex_t lock;
  RunFunctions functions;
  MessageList messages;
} ThreadpoolRun;

/* The run whose work this libvips worker is doing now, if any. */
static _Thread_local ThreadpoolRun *serving = NULL;

/* Appends "domain: message\n" to `list`, or "...\n" once when it is full. */
static void append_line(MessageList *list, const char *domain, const char *message) {
  if (list->full) return;
  size_t domain_length = domain ? strlen(domain) : 0;
  size_t message_length = strlen(message);
  size_t needed = (domain ? domain_length + 2 : 0) + message_length + 1;
  char *end = list->text + list->length;
  if (list->length + needed > MESSAGES_LIMIT) {
    memcpy(end, "...\n", 4);
    list->length += 4;
    list->full = 1;
  } else {
    if (domain) {
      memcpy(end, domain, domain_length);
      memcpy(end + domain_length, ": ", 2);
      end += domain_length + 2;
    }
    memcpy(end, message, message_length);
    end[message_length] = '\n';
    list->length += needed;
  }
  list->text[list->length] = '\0';
}

static void clear_list(MessageList *list) {
  list->length = 0;
  list->full = 0;
  list->text[0] = '\0';
}

static void pass_to_libvips(const char *domain, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  verror_function function = libvips_verror();
  if (function) function(domain, fmt, ap);
  va_end(ap);
}

/* A formatted message to where this thread's messages go: a run's list for a worker
 * serving one, libvips's buffer for another libvips thread, this thread's list else;
 * nothing while this thread has errors frozen. */
static void keep_message(const char *domain, const char *message) {
  if (frozen > 0) return;
  if (serving) {
    pthread_mutex_lock(&serving->lock);
    append_line(&serving->messages, domain, message);
    pthread_mutex_unlock(&serving->lock);
  } else if (vips_thread_isvips()) {
    pass_to_libvips(domain, "%s", message);
  } else {
    append_line(&own, domain, message);
  }
}

void vips_verror(const char *domain, const char *fmt, va_list ap) {
  if (frozen > 0) return;
  if (vips_thread_isvips() && !serving) {
    verror_function function = libvips_verror();
    if (function) function(domain, fmt, ap);
    return;
  }
  char *message = g_strdup_vprintf(fmt, ap);
  keep_message(domain, message);
  g_free(message);
}

/* The run's functions, read under its lock, with this worker serving the run from now
 * until the wrapper that called this ends (`serve_end`). */
static RunFunctions serve_begin(void *a, ThreadpoolRun **before) {
  ThreadpoolRun *run = a;
  pthread_mutex_lock(&run->lock);
  RunFunctions functions = run->functions;
  pthread_mutex_unlock(&run->lock);
  *before = serving;
  serving = run;
  return functions;
}

static void serve_end(ThreadpoolRun *before) { serving = before; }

/* The wrapped worker functions: the run's own, on the caller's `a`. */
static VipsThreadState *run_start(VipsImage *image, void *a) {
  ThreadpoolRun *before;
  RunFunctions run = serve_begin(a, &before);
  VipsThreadState *state = run.start(image, run.a);
  serve_end(before);
  return state;
}

static int run_allocate(VipsThreadState *state, void *a, gboolean *stop) {
  ThreadpoolRun *before;
  RunFunctions run = serve_begin(a, &before);
  int result = run.allocate(state, run.a, stop);
  serve_end(before);
  return result;
}

static int run_work(VipsThreadState *state, void *a) {
  ThreadpoolRun *before;
  RunFunctions run = serve_begin(a, &before);
  int result = run.work(state, run.a);
  serve_end(before);
  return result;
}

/* Called by libvips on the thread that called vips_threadpool_run. */
static int run_progress(void *a) {
  ThreadpoolRun *run = a;
  return run->functions.progress(run->functions.a);
}

int vips_threadpool_run(
    VipsImage *image, VipsThreadStartFn start, VipsThreadpoolAllocateFn allocate,
    VipsThreadpoolWorkFn work, VipsThreadpoolProgressFn progress, void *a) {
  typedef int (*run_function)(
      VipsImage *, VipsThreadStartFn, VipsThreadpoolAllocateFn, VipsThreadpoolWorkFn,
      VipsThreadpoolProgressFn, void *);
  static void *found = NULL;
  run_function libvips_run = (run_function)next_definition(&found, "vips_threadpool_run");
  if (!libvips_run) {
    vips_error("threadpool", "libvips's vips_threadpool_run was not found");
    return -1;
  }
  /* 10 KB of lines: on the heap, not on a stack that may be a worker's; not zeroed. */
  ThreadpoolRun *run = g_try_malloc(sizeof(ThreadpoolRun));
  if (!run) return libvips_run(image, start, allocate, work, progress, a);
  pthread_mutex_init(&run->lock, NULL);
  pthread_mutex_lock(&run->lock);
  run->functions = (RunFunctions){start, allocate, work, progress, a};
  clear_list(&run->messages);
  pthread_mutex_unlock(&run->lock);
  int result = libvips_run(
      image, start ? run_start : NULL, allocate ? run_allocate : NULL, work ? run_work : NULL,
      progress ? run_progress : NULL, run);
  /* Every worker has exited. When the run failed, its workers' lines are its reason:
   * this thread's to hand on, one at a time. When it succeeded, libvips dropped what
   * its workers raised (a tile left black, a WebP's second strip never asked for):
   * read as part of this thread's next failure, they would be another's reason. */
  pthread_mutex_lock(&run->lock);
  char *line = run->messages.text;
  while (result != 0 && *line) {
    char *end = strchr(line, '\n');
    *end = '\0';
    /* "domain: message" was made here; kept whole, as one message without a domain. */
    keep_message(NULL, line);
    line = end + 1;
  }
  pthread_mutex_unlock(&run->lock);
  pthread_mutex_destroy(&run->lock);
  g_free(run);
  return result;
}

char *cvips_thread_errors_take(void) {
  if (!own.length) return NULL;
  char *text = g_strndup(own.text, own.length);
  clear_list(&own);
  return text;
}

void cvips_thread_errors_clear(void) { clear_list(&own); }
