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
 * is kept in that thread's own list, which cvips_thread_errors_take reads. One raised on a
 * libvips worker goes to libvips's own buffer, as before.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
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

/* This thread's messages: a buffer of its own in thread-local storage, allocated by
 * no one. (With a GString, a CI run under ThreadSanitizer reported a new thread's
 * string as racing an ended thread's at the same address: GLib 2.74 takes a GString's
 * struct from GSlice, whose reuse of memory TSan does not see.) */
static _Thread_local char lines[MESSAGES_LIMIT + 8];
static _Thread_local size_t lines_length = 0;

static void lines_append(const char *text, size_t length) {
  memcpy(lines + lines_length, text, length);
  lines_length += length;
  lines[lines_length] = '\0';
}

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

void vips_verror(const char *domain, const char *fmt, va_list ap) {
  if (frozen > 0) return;
  if (vips_thread_isvips()) {
    verror_function function = libvips_verror();
    if (function) function(domain, fmt, ap);
    return;
  }
  static const char ellipsis[] = "...\n";
  if (lines_length >= 4 && memcmp(lines + lines_length - 4, ellipsis, 4) == 0) return;
  char *message = g_strdup_vprintf(fmt, ap);
  size_t domain_length = domain ? strlen(domain) : 0;
  size_t message_length = strlen(message);
  size_t length = (domain ? domain_length + 2 : 0) + message_length + 1;
  if (lines_length + length > MESSAGES_LIMIT) {
    lines_append(ellipsis, 4);
  } else {
    if (domain) {
      lines_append(domain, domain_length);
      lines_append(": ", 2);
    }
    lines_append(message, message_length);
    lines_append("\n", 1);
  }
  g_free(message);
}

char *cvips_thread_errors_take(void) {
  if (!lines_length) return NULL;
  char *text = g_strndup(lines, lines_length);
  lines_length = 0;
  lines[0] = '\0';
  return text;
}

void cvips_thread_errors_clear(void) {
  lines_length = 0;
  lines[0] = '\0';
}
