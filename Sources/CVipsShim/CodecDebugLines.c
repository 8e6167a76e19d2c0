/* Drops a codec's own debug lines from standard error, passing every other byte on.
 *
 * Debian's libjxl (0.7) prints its internal failure trace to C's stderr as it gives up on
 * damaged data, a line per stack frame ("./lib/jxl/dec_bit_reader.h:212: JXL_FAILURE:
 * Non-zero padding bits", "./lib/jxl/decode.cc:1298: invalid frame header"). It writes them
 * with an internal vfprintf, so no symbol can be interposed, and the refusal the user gets
 * already says the JPEG XL data is damaged (and keeps libvips's text). These lines are
 * libjxl's source paths: "./lib/jxl/" or "lib/jxl/" at the start of a line.
 *
 * cvips_drop_codec_debug_lines swaps glibc's `stderr` (a plain variable in glibc, which
 * its manual says a program may set) for an unbuffered stream whose writes go through a
 * line filter to file descriptor 2. What C code writes through `stderr` passes the filter
 * (GLib's warnings, the Swift runtime's fatal-error messages, which it prints with fputs
 * before it aborts); writes straight to the descriptor (the CLI's own lines, through
 * FileHandle) do not. The filter holds at most the first ten bytes of a line, until they
 * show whether it is one of libjxl's, and writes any it still holds when the process
 * exits; stdio's lock on the stream serialises the writes, so one filter state is enough.
 * Installed once, by the command line only: a library has no business with its host's
 * stderr.
 */
#define _GNU_SOURCE
#include "CVipsShim.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const prefixes[] = {"./lib/jxl/", "lib/jxl/"};
enum { PREFIX_COUNT = sizeof prefixes / sizeof prefixes[0] };

/* Whether the line's first `length` bytes could still begin one of the prefixes (1), are
 * one of them whole (2), or neither (0). */
static int prefix_match(const char *start, size_t length) {
  int result = 0;
  for (int i = 0; i < PREFIX_COUNT; i++) {
    const size_t size = strlen(prefixes[i]);
    if (length >= size) {
      if (memcmp(start, prefixes[i], size) == 0) return 2;
    } else if (memcmp(start, prefixes[i], length) == 0) {
      result = 1;
    }
  }
  return result;
}

size_t cvips_codec_debug_filter(CodecDebugFilter *filter, const char *data, size_t size,
                                char *out) {
  size_t written = 0;
  for (size_t i = 0; i < size; i++) {
    const char byte = data[i];
    if (filter->state == CODEC_DEBUG_UNDECIDED) {
      filter->held[filter->held_count++] = byte;
      const int match = byte == '\n' ? 0 : prefix_match(filter->held, filter->held_count);
      if (match == 2) {
        filter->state = CODEC_DEBUG_DROPPING;
        filter->held_count = 0;
      } else if (match == 0) {
        memcpy(out + written, filter->held, filter->held_count);
        written += filter->held_count;
        filter->held_count = 0;
        filter->state = byte == '\n' ? CODEC_DEBUG_UNDECIDED : CODEC_DEBUG_PASSING;
      }
    } else {
      if (filter->state == CODEC_DEBUG_PASSING) out[written++] = byte;
      if (byte == '\n') filter->state = CODEC_DEBUG_UNDECIDED;
    }
  }
  return written;
}

static CodecDebugFilter standard_error_filter;

/* Writes all of `data` to fd 2; gives up on an error (nowhere to write: as stderr would,
 * the bytes are dropped). */
static void write_all(const char *data, size_t length) {
  while (length > 0) {
    const ssize_t n = write(STDERR_FILENO, data, length);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    data += n;
    length -= (size_t)n;
  }
}

static ssize_t write_filtered(void *cookie, const char *data, size_t size) {
  (void)cookie;
  char out[4096 + sizeof standard_error_filter.held];
  for (size_t done = 0; done < size;) {
    const size_t chunk = size - done < 4096 ? size - done : 4096;
    write_all(out, cvips_codec_debug_filter(&standard_error_filter, data + done, chunk, out));
    done += chunk;
  }
  return (ssize_t)size;
}

/* At exit: the start of a line not yet judged (C code that wrote "lib" and no more) is
 * written as it is, as an unfiltered stderr would have. */
static void write_held_bytes(void) {
  flockfile(stderr);
  if (standard_error_filter.state == CODEC_DEBUG_UNDECIDED)
    write_all(standard_error_filter.held, standard_error_filter.held_count);
  standard_error_filter.held_count = 0;
  funlockfile(stderr);
}

static void install(void) {
  cookie_io_functions_t functions = {.read = NULL, .write = write_filtered, .seek = NULL,
                                     .close = NULL};
  FILE *filtered = fopencookie(NULL, "w", functions);
  if (!filtered) return;
  setvbuf(filtered, NULL, _IONBF, 0);
  fflush(stderr);
  stderr = filtered;
  atexit(write_held_bytes);
}

void cvips_drop_codec_debug_lines(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, install);
}
