/* A JPEG decoded by libjpeg-turbo straight into a memory image, the pixels libvips's
 * jpegload gives for the same shrink, without libvips's loader around the decode.
 *
 * Why: libvips's jpegload reads the header a second time (the caller's probe read it
 * once), parses EXIF again, and hands the rows over through a generate function, a
 * sequential cache and regions; for the photos of a family render that was about a
 * quarter of a JPEG's decode time (owl.jpg: 2.3 ms against 0.6 ms for libjpeg alone).
 *
 * Only a clean file takes this path. The decode is libvips's (8.14, jpeg2vips.c):
 * jpeg_read_header, scale 1/shrink, libjpeg's default output colour space (RGB for
 * YCbCr, grey, CMYK for CMYK and YCCK) and its defaults otherwise (JDCT_ISLOW, fancy
 * upsampling), every row read in order, CMYK inverted (as libvips 8.14 inverts every
 * CMYK JPEG, whether or not it has an Adobe marker).
 * The first warning or error libjpeg raises (a corrupt segment, data cut short, a
 * marker out of place) stops it and returns 1: the caller then loads with libvips,
 * whose fail-on levels, messages and truncation rules stay the only ones that judge a
 * damaged file. A file libjpeg reads without a warning is one libvips reads without one,
 * to the same pixels, as long as libjpeg is handed the bytes as libvips hands them
 * (below: its Huffman decoder warns about a bad code only when its buffer runs low).
 * Tests/VipsTests/JPEGDecodeTests.swift compares every JPEG of the test corpora, byte
 * for byte and field by field.
 *
 * Metadata (ICC profile, EXIF, orientation, resolution, interpretation) is the probe's,
 * the header libvips read from the same bytes: libvips's jpegload sets the same fields
 * from the same markers. Then the size is the decode's.
 *
 * The thread's time limit (Deadline.c) is checked from libjpeg's progress monitor, which
 * it calls while it reads a multi-scan file's scans and between rows: past the deadline
 * the decode stops and returns 2.
 */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jerror.h>
#include <jpeglib.h>

#include "CVipsShim.h"

enum { DECODED = 0, DECLINED = 1, TIMED_OUT = 2 };

typedef struct {
  struct jpeg_error_mgr manager;
  struct jpeg_progress_mgr progress;
  jmp_buf escape;
  gint64 deadline; /* monotonic microseconds; 0 for none */
} Decoder;

static void on_error(j_common_ptr info) {
  Decoder *decoder = (Decoder *)info->err;
  longjmp(decoder->escape, DECLINED);
}

/* A warning (level -1) is a damaged file: libvips judges it. Trace messages pass. */
static void on_message(j_common_ptr info, int level) {
  if (level < 0) longjmp(((Decoder *)info->err)->escape, DECLINED);
}

static void on_output(j_common_ptr info) { (void)info; }

static void on_progress(j_common_ptr info) {
  Decoder *decoder = (Decoder *)info->err;
  if (decoder->deadline && g_get_monotonic_time() >= decoder->deadline)
    longjmp(decoder->escape, TIMED_OUT);
}

/* libvips's source manager (jpeg2vips.c, readjpeg_open_input): the bytes handed over
 * 4096 at a time, from the start, and a skip that fills again as often as it must. The
 * size matters, not the copy: libjpeg-turbo's Huffman decoder takes its fast path, which
 * reads a bad code as zero without a warning, only while enough bytes are left in the
 * buffer, so with the whole file in one buffer a damaged scan that libvips warns about
 * would decode here without one. */
enum { SOURCE_CHUNK = 4096 };

typedef struct {
  struct jpeg_source_mgr manager;
  const JOCTET *data;
  size_t length, position;
} Source;

static void source_init(j_decompress_ptr info) { (void)info; }

static boolean source_fill(j_decompress_ptr info) {
  Source *source = (Source *)info->src;
  static const JOCTET end[2] = {0xFF, JPEG_EOI};
  if (source->position < source->length) {
    const size_t left = source->length - source->position;
    source->manager.next_input_byte = source->data + source->position;
    source->manager.bytes_in_buffer = left < SOURCE_CHUNK ? left : SOURCE_CHUNK;
    source->position += source->manager.bytes_in_buffer;
  } else {
    /* The data ran out: a warning (which declines), as libjpeg's own source gives. */
    WARNMS(info, JWRN_JPEG_EOF);
    source->manager.next_input_byte = end;
    source->manager.bytes_in_buffer = 2;
  }
  return TRUE;
}

static void source_skip(j_decompress_ptr info, long count) {
  Source *source = (Source *)info->src;
  if (count <= 0) return;
  while (count > (long)source->manager.bytes_in_buffer) {
    count -= (long)source->manager.bytes_in_buffer;
    (void)source_fill(info);
  }
  source->manager.next_input_byte += (size_t)count;
  source->manager.bytes_in_buffer -= (size_t)count;
}

static void source_term(j_decompress_ptr info) { (void)info; }

int cvips_jpeg_decode_like(VipsImage *probe, const void *data, size_t length, int shrink,
                           VipsImage **out) {
  *out = NULL;
  if (shrink != 1 && shrink != 2 && shrink != 4 && shrink != 8) return DECLINED;
  struct jpeg_decompress_struct info;
  Decoder decoder;
  memset(&decoder, 0, sizeof decoder);
  info.err = jpeg_std_error(&decoder.manager);
  decoder.manager.error_exit = on_error;
  decoder.manager.emit_message = on_message;
  decoder.manager.output_message = on_output;
  decoder.progress.progress_monitor = on_progress;
  decoder.deadline = cvips_deadline_get();
  /* Volatile: set between setjmp and a longjmp back to it. */
  JSAMPLE *volatile pixels = NULL;
  volatile int created = 0;
  const int status = setjmp(decoder.escape);
  if (status) {
    g_free(pixels);
    if (created) jpeg_destroy_decompress(&info);
    return status;
  }
  jpeg_create_decompress(&info);
  created = 1;
  info.progress = &decoder.progress;
  Source source = {
      .manager = {.init_source = source_init,
                  .fill_input_buffer = source_fill,
                  .skip_input_data = source_skip,
                  .resync_to_restart = jpeg_resync_to_restart,
                  .term_source = source_term},
      .data = data,
      .length = length,
  };
  info.src = &source.manager;
  if (jpeg_read_header(&info, TRUE) != JPEG_HEADER_OK) longjmp(decoder.escape, DECLINED);
  info.scale_num = 1;
  info.scale_denom = (unsigned int)shrink;
  jpeg_calc_output_dimensions(&info);
  /* libvips keeps the photo's size divided by the shrink, rounded down, where libjpeg
   * rounds up: the last column and row of a decode that rounded up are left out. */
  const int width = (int)(info.image_width / (JDIMENSION)shrink),
            height = (int)(info.image_height / (JDIMENSION)shrink),
            bands = info.output_components;
  /* libvips 8.14 inverts every CMYK JPEG, Adobe marker or not (read_jpeg_header). */
  const int invert = info.out_color_space == JCS_CMYK;
  if (bands != probe->Bands || probe->BandFmt != VIPS_FORMAT_UCHAR || width <= 0 ||
      height <= 0 || (JDIMENSION)width > info.output_width ||
      (JDIMENSION)height > info.output_height)
    longjmp(decoder.escape, DECLINED);
  const size_t stride = (size_t)info.output_width * bands, packed = (size_t)width * bands;
  JSAMPLE *const buffer = g_try_malloc(stride * (size_t)info.output_height);
  if (!buffer) longjmp(decoder.escape, DECLINED);
  pixels = buffer;
  jpeg_start_decompress(&info);
  while (info.output_scanline < info.output_height) {
    JSAMPROW rows[16];
    const int count = info.rec_outbuf_height < 16 ? info.rec_outbuf_height : 16;
    for (int i = 0; i < count; i++) {
      const JDIMENSION y = info.output_scanline + (JDIMENSION)i;
      rows[i] = buffer + stride * (y < info.output_height ? y : info.output_height - 1);
    }
    const JDIMENSION first = info.output_scanline;
    const JDIMENSION read = jpeg_read_scanlines(&info, rows, (JDIMENSION)count);
    if (read == 0) longjmp(decoder.escape, DECLINED);
    if (invert)
      for (size_t i = stride * first, end = stride * (first + read); i < end; i++)
        buffer[i] = (JSAMPLE)(255 - buffer[i]);
  }
  /* As libvips, not jpeg_finish_decompress: what follows the last row (junk before the
   * EOI marker) is never read, so it raises no warning there either. */
  if (packed < stride)
    for (int y = 1; y < height; y++) memmove(buffer + packed * y, buffer + stride * y, packed);
  jpeg_destroy_decompress(&info);
  created = 0;
  pixels = NULL;
  return cvips_decoded_image(probe, buffer, width, height, out) ? DECLINED : DECODED;
}
