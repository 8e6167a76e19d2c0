/* A PNG decoded by libpng straight into a memory image, the pixels libvips's pngload
 * gives for the same bytes, without libvips's loader around the decode.
 *
 * Why: as for JPEG (JPEGDecode.c), libvips's pngload reads the header a second time and
 * hands the rows over through a generate function, a sequential cache and regions; for
 * the small PNGs of a family render that was about a fifth of the decode.
 *
 * A plain 8- or 16-bit file's image data is not read by libpng's rows but inflated by
 * libdeflate and unfiltered (PNGRows.c), once png_read_info has read every chunk before
 * it: only a stream that passes its checks (PNGRows.c says which, and the one known
 * difference); for any other, libpng reads the rows as below.
 *
 * Only a clean file takes this path. The decode is libvips's (8.14, vipspng.c, the
 * libpng loader Debian builds): the same libpng options (sRGB profiles not checked,
 * Adler-32 not checked, libvips's size and chunk limits), the same transforms (palette
 * to RGB, tRNS to alpha, grey below 8 bits to 8, 16-bit samples swapped to this
 * machine's order, interlace handled), every row read in order and, as libvips, not the
 * chunks after the last row. The first warning or error libpng raises (a CRC that
 * fails, a chunk out of place, data cut short) stops it and returns 1: the caller then
 * loads with libvips, whose fail-on levels and messages stay the only ones that judge a
 * damaged file (Tests/VipsTests/PNGDecodeTests.swift compares PngSuite, libpng's test
 * images and the fixtures, byte for byte and field by field).
 *
 * Metadata (ICC profile, text chunks, EXIF, resolution, interpretation) is the probe's,
 * the header libvips read from the same bytes: libvips's pngload sets the same fields
 * from the same chunks.
 *
 * The thread's time limit (Deadline.c) is checked after every row libpng reads (every
 * pass of an interlaced file's rows too), or by PNGRows.c before and after its one
 * inflate and every 64 rows it unfilters: past the deadline the decode stops and
 * returns 2.
 */
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

#include "CVipsShim.h"

enum { DECODED = 0, DECLINED = 1, TIMED_OUT = 2 };

typedef struct {
  jmp_buf escape;
  const png_byte *data;
  size_t length, offset;
  gint64 deadline; /* monotonic microseconds; 0 for none */
} Decoder;

static void on_error(png_structp png, png_const_charp message) {
  (void)message;
  longjmp(((Decoder *)png_get_error_ptr(png))->escape, DECLINED);
}

/* A warning is a damaged file: libvips judges it. */
static void on_warning(png_structp png, png_const_charp message) {
  (void)message;
  longjmp(((Decoder *)png_get_error_ptr(png))->escape, DECLINED);
}

static void on_read(png_structp png, png_bytep out, size_t count) {
  Decoder *decoder = png_get_io_ptr(png);
  if (count > decoder->length - decoder->offset)
    longjmp(((Decoder *)png_get_error_ptr(png))->escape, DECLINED);
  memcpy(out, decoder->data + decoder->offset, count);
  decoder->offset += count;
}

static void on_row(png_structp png, png_uint_32 row, int pass) {
  (void)row;
  (void)pass;
  Decoder *decoder = png_get_error_ptr(png);
  if (decoder->deadline && g_get_monotonic_time() >= decoder->deadline)
    longjmp(decoder->escape, TIMED_OUT);
}

int cvips_png_decode_like(VipsImage *probe, const void *data, size_t length,
                          VipsImage **out) {
  *out = NULL;
  Decoder decoder;
  memset(&decoder, 0, sizeof decoder);
  decoder.data = data;
  decoder.length = length;
  decoder.deadline = cvips_deadline_get();
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &decoder, on_error, on_warning);
  if (!png) return DECLINED;
  png_infop info = png_create_info_struct(png);
  if (!info) {
    png_destroy_read_struct(&png, NULL, NULL);
    return DECLINED;
  }
  /* Volatile: set between setjmp and a longjmp back to it. */
  png_bytep volatile pixels = NULL;
  png_bytepp volatile rows = NULL;
  const int status = setjmp(decoder.escape);
  if (status) {
    g_free(pixels);
    g_free(rows);
    png_destroy_read_struct(&png, &info, NULL);
    return status;
  }
  /* libvips's options (read_new). */
#ifdef PNG_SKIP_sRGB_CHECK_PROFILE
  png_set_option(png, PNG_SKIP_sRGB_CHECK_PROFILE, PNG_OPTION_ON);
#endif
#ifdef PNG_IGNORE_ADLER32
  png_set_option(png, PNG_IGNORE_ADLER32, PNG_OPTION_ON);
#endif
  png_set_user_limits(png, VIPS_MAX_COORD, VIPS_MAX_COORD);
  png_set_chunk_malloc_max(png, 50 * 1024 * 1024);
  png_set_chunk_cache_max(png, 100);
  png_set_read_fn(png, &decoder, on_read);
  png_set_read_status_fn(png, on_row);
  png_read_info(png, info);

  png_uint_32 width, height;
  int depth, colour, interlace;
  png_get_IHDR(png, info, &width, &height, &depth, &colour, &interlace, NULL, NULL);
  /* libvips's transforms (png2vips_header). */
  if (colour == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
  if (colour == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (depth > 8 && !vips_amiMSBfirst()) png_set_swap(png);
  (void)png_set_interlace_handling(png);
  png_read_update_info(png, info);

  const size_t stride = png_get_rowbytes(png, info);
  if ((int)width != probe->Xsize || (int)height != probe->Ysize ||
      stride != (size_t)VIPS_IMAGE_SIZEOF_LINE(probe) || probe->Coding != VIPS_CODING_NONE)
    longjmp(decoder.escape, DECLINED);
  png_bytep const buffer = g_try_malloc(stride * (size_t)height + CVIPS_PNG_ROWS_SLACK(height));
  if (!buffer) longjmp(decoder.escape, DECLINED);
  pixels = buffer;
  /* A plain 8- or 16-bit image: its data inflated and unfiltered by PNGRows.c, or (not
   * taken) read by libpng as below, from where png_read_info stopped. */
  const int plain = interlace == PNG_INTERLACE_NONE && (depth == 8 || depth == 16) &&
                    colour != PNG_COLOR_TYPE_PALETTE && !png_get_valid(png, info, PNG_INFO_tRNS);
  const int fast =
      plain ? cvips_png_rows_decode((const uint8_t *)data, length, decoder.offset, buffer, stride,
                                    height, png_get_channels(png, info) * depth / 8,
                                    depth > 8 && !vips_amiMSBfirst(), decoder.deadline)
            : CVIPS_PNG_ROWS_NOT_TAKEN;
  if (fast == CVIPS_PNG_ROWS_TIMED_OUT) longjmp(decoder.escape, TIMED_OUT);
  if (fast == CVIPS_PNG_ROWS_DONE) {
    /* Nothing more is read: as libvips, not the chunks after the last row. */
  } else if (interlace != PNG_INTERLACE_NONE) {
    png_bytepp const pointers = g_try_malloc(sizeof(png_bytep) * (size_t)height);
    if (!pointers) longjmp(decoder.escape, DECLINED);
    rows = pointers;
    for (png_uint_32 y = 0; y < height; y++) pointers[y] = buffer + stride * y;
    png_read_image(png, pointers);
  } else {
    for (png_uint_32 y = 0; y < height; y++) png_read_row(png, buffer + stride * y, NULL);
  }
  g_free(rows);
  rows = NULL;
  png_destroy_read_struct(&png, &info, NULL);
  pixels = NULL;

  return cvips_decoded_image(probe, buffer, probe->Xsize, probe->Ysize, out) ? DECLINED : DECODED;
}
