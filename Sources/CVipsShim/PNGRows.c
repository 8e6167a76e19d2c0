/* A plain PNG's image data inflated by libdeflate and unfiltered, in place of libpng's
 * row reads.
 *
 * Why: for the PNGs of a family render, zlib's inflate and libpng's row filters (its
 * Paeth filter one byte at a time) were 15% of a render's CPU (`perf record` of the
 * centre manifest, `--jobs 1`): libdeflate inflates a whole stream about twice as fast
 * as zlib, and the filters here work a pixel at a time with SSE2.
 *
 * libpng still reads everything before the image data (png_read_info: every chunk's
 * CRC, limits, warnings): only a file it read without complaint comes here. Its image
 * data is not taken (libpng then reads the rows as before, and says what is wrong)
 * unless every IDAT chunk's CRC holds, none is longer than libpng allows (its "chunk
 * data is too large"), they hold one zlib stream that ends where they end, its Adler-32
 * holds (which libvips does not ask libpng to check), its window (32 KiB, or all of the
 * data) holds every distance, and it inflates to exactly the rows, each with a filter
 * type of 0 to 4. A file taken gives the bytes libpng gives: the same stream inflated
 * and the same filters (PNGDecodeTests and PNGRowsTests compare PngSuite, libpng's test
 * images, the fixtures and every filter at every pixel size with libvips's pngload).
 *
 * One difference is known and left: libdeflate reads a few codes that zlib refuses
 * (length symbols 286 and 287, distance symbols 30 and 31, more code lengths than the
 * header declares, an empty distance code that is used). No encoder writes them; a
 * file made with them on purpose, its Adler-32 and CRCs made to match, is decoded here
 * where zlib, so libpng and libvips, refuses it (PNGRowsTests pins one). Damage that happened to make such a
 * code would also have to keep the chunk's CRC-32 and the stream's Adler-32: left to
 * libpng.
 */

#include "CVipsShim.h"

#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>

static uint32_t big_endian_32(const uint8_t *bytes) {
  return (uint32_t)bytes[0] << 24 | (uint32_t)bytes[1] << 16 | (uint32_t)bytes[2] << 8 |
         (uint32_t)bytes[3];
}

/* The scalar filters, where SSE2 is not there. */
static int paeth_predictor(int a, int b, int c) {
  const int pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c);
  if (pa <= pb && pa <= pc) return a;
  return pb <= pc ? b : c;
}

static void unfilter_scalar(int type, uint8_t *row, const uint8_t *filtered,
                            const uint8_t *previous, size_t stride, size_t bpp) {
  switch (type) {
  case 1:
    for (size_t i = 0; i < stride; i++)
      row[i] = (uint8_t)(filtered[i] + (i >= bpp ? row[i - bpp] : 0));
    break;
  case 3:
    for (size_t i = 0; i < stride; i++)
      row[i] = (uint8_t)(filtered[i] + (((i >= bpp ? row[i - bpp] : 0) + previous[i]) >> 1));
    break;
  case 4:
    for (size_t i = 0; i < stride; i++)
      row[i] = (uint8_t)(filtered[i] + (i >= bpp ? paeth_predictor(row[i - bpp], previous[i],
                                                                   previous[i - bpp])
                                                 : previous[i]));
    break;
  }
}

#if defined(__x86_64__)
#include <emmintrin.h>

/* The SSE2 filters, a pixel of 1 to 8 bytes at a time in 16-bit lanes (the lanes past
 * the pixel compute bytes that are never stored): even one byte a pixel is faster than
 * the scalar Paeth, whose branches the data decides. */
static inline __m128i load_pixel(const uint8_t *bytes, size_t bpp) {
  if (bpp <= 4) {
    uint32_t value;
    memcpy(&value, bytes, 4);
    return _mm_cvtsi32_si128((int)value);
  }
  uint64_t value;
  memcpy(&value, bytes, 8);
  return _mm_cvtsi64_si128((long long)value);
}

static inline void store_pixel(uint8_t *bytes, __m128i pixel, size_t bpp) {
  const uint64_t value = (uint64_t)_mm_cvtsi128_si64(pixel);
  memcpy(bytes, &value, bpp);
}

static inline __m128i absolute_16(__m128i value) {
  return _mm_max_epi16(value, _mm_sub_epi16(_mm_setzero_si128(), value));
}

static inline __attribute__((always_inline)) void
unfilter_pixels(int type, uint8_t *row, const uint8_t *filtered, const uint8_t *previous,
                size_t stride, size_t bpp) {
  const __m128i zero = _mm_setzero_si128();
  __m128i a = zero, c = zero; /* left and upper left, 16-bit lanes */
  switch (type) {
  case 1:
    for (size_t i = 0; i < stride; i += bpp) {
      const __m128i out = _mm_add_epi8(load_pixel(filtered + i, bpp), a);
      store_pixel(row + i, out, bpp);
      a = out; /* bytes, here */
    }
    break;
  case 3:
    for (size_t i = 0; i < stride; i += bpp) {
      const __m128i b = _mm_unpacklo_epi8(load_pixel(previous + i, bpp), zero);
      const __m128i mean = _mm_srli_epi16(_mm_add_epi16(a, b), 1);
      const __m128i out =
          _mm_add_epi8(load_pixel(filtered + i, bpp), _mm_packus_epi16(mean, mean));
      store_pixel(row + i, out, bpp);
      a = _mm_unpacklo_epi8(out, zero);
    }
    break;
  case 4:
    for (size_t i = 0; i < stride; i += bpp) {
      const __m128i b = _mm_unpacklo_epi8(load_pixel(previous + i, bpp), zero);
      /* p = a + b - c: |p - a| = |b - c|, |p - b| = |a - c|, |p - c| = |(b - c) + (a - c)| */
      const __m128i from_b = _mm_sub_epi16(b, c), from_a = _mm_sub_epi16(a, c);
      const __m128i pa = absolute_16(from_b), pb = absolute_16(from_a);
      const __m128i pc = absolute_16(_mm_add_epi16(from_b, from_a));
      const __m128i not_a = _mm_or_si128(_mm_cmpgt_epi16(pa, pb), _mm_cmpgt_epi16(pa, pc));
      const __m128i not_b = _mm_cmpgt_epi16(pb, pc);
      const __m128i b_or_c = _mm_or_si128(_mm_and_si128(not_b, c), _mm_andnot_si128(not_b, b));
      const __m128i predicted =
          _mm_or_si128(_mm_and_si128(not_a, b_or_c), _mm_andnot_si128(not_a, a));
      const __m128i out = _mm_add_epi8(load_pixel(filtered + i, bpp),
                                       _mm_packus_epi16(predicted, predicted));
      store_pixel(row + i, out, bpp);
      a = _mm_unpacklo_epi8(out, zero);
      c = b;
    }
    break;
  }
}

#endif

/* Set by tests on their thread: the scalar filters even where SSE2 is there. */
static __thread int scalar_only;

int cvips_png_rows_set_scalar(int scalar) {
  const int before = scalar_only;
  scalar_only = scalar;
  return before;
}

/* One filtered row unfiltered (the filters of PNG's filter method 0): `filtered` (its
 * filter type byte not included) into `row`, `previous` the row above unfiltered (all
 * zeros for the first), `bpp` 1 to 8 bytes a pixel, dividing `stride`. 1 for a filter
 * type above 4. `row` may lie before `filtered` in the same buffer, as
 * cvips_png_rows_decode has it; each may be read 8 bytes past its end. */
static int unfilter_row(int type, uint8_t *row, const uint8_t *filtered,
                        const uint8_t *previous, size_t stride, size_t bpp) {
  switch (type) {
  case 0:
    memmove(row, filtered, stride);
    return 0;
  case 2:
    /* Forward, byte by byte as far as the compiler knows: `row` may lie just before
     * `filtered`. */
    for (size_t i = 0; i < stride; i++) row[i] = (uint8_t)(filtered[i] + previous[i]);
    return 0;
  case 1:
  case 3:
  case 4:
#if defined(__x86_64__)
    switch (scalar_only ? 0 : bpp) {
    case 1: unfilter_pixels(type, row, filtered, previous, stride, 1); return 0;
    case 2: unfilter_pixels(type, row, filtered, previous, stride, 2); return 0;
    case 3: unfilter_pixels(type, row, filtered, previous, stride, 3); return 0;
    case 4: unfilter_pixels(type, row, filtered, previous, stride, 4); return 0;
    case 6: unfilter_pixels(type, row, filtered, previous, stride, 6); return 0;
    case 8: unfilter_pixels(type, row, filtered, previous, stride, 8); return 0;
    default: break;
    }
#endif
    unfilter_scalar(type, row, filtered, previous, stride, bpp);
    return 0;
  default:
    return 1;
  }
}

/* The IDAT chunks from the one whose data starts at `offset`, each CRC checked, as one
 * run of bytes: the file's own when there is one chunk, else `*joined` (to be freed).
 * NULL when a chunk runs past the file, is longer than `chunk_limit` or its CRC fails,
 * or they hold more than `total_limit` bytes. */
static const uint8_t *image_data(const uint8_t *data, size_t length, size_t offset,
                                 size_t chunk_limit, size_t total_limit, size_t *size,
                                 uint8_t **joined) {
  *joined = NULL;
  if (offset < 8 || offset > length || memcmp(data + offset - 4, "IDAT", 4) != 0) return NULL;
  const size_t first = offset - 8;
  size_t position = first, total = 0, chunks = 0;
  /* The run of IDAT chunks ends at another chunk or at the end of the file. */
  while (length - position >= 8 && memcmp(data + position + 4, "IDAT", 4) == 0) {
    const size_t chunk = big_endian_32(data + position);
    if (chunk > chunk_limit || length - position - 8 < chunk + 4) return NULL;
    if (chunk > total_limit - total) return NULL;
    const uint8_t *type = data + position + 4;
    if (libdeflate_crc32(0, type, chunk + 4) != big_endian_32(type + 4 + chunk)) return NULL;
    total += chunk;
    chunks++;
    position += 12 + chunk;
  }
  *size = total;
  if (chunks == 1) return data + offset;
  uint8_t *const bytes = malloc(total ? total : 1);
  if (!bytes) return NULL;
  size_t filled = 0;
  for (position = first; chunks; chunks--) {
    const size_t chunk = big_endian_32(data + position);
    memcpy(bytes + filled, data + position + 8, chunk);
    filled += chunk;
    position += 12 + chunk;
  }
  *joined = bytes;
  return bytes;
}

int cvips_png_rows_decode(const uint8_t *data, size_t length, size_t offset, uint8_t *out,
                          size_t stride, uint32_t height, int bytes_per_pixel, int swap,
                          gint64 deadline) {
  if (bytes_per_pixel < 1 || bytes_per_pixel > 8 || stride == 0 ||
      stride % (size_t)bytes_per_pixel || height == 0 || stride > CVIPS_PNG_ROWS_LIMIT || (stride + 1) * height > CVIPS_PNG_ROWS_LIMIT)
    return CVIPS_PNG_ROWS_NOT_TAKEN;
  const size_t filtered_size = (stride + 1) * height;
  /* libpng's limit on an IDAT chunk's length (png_check_chunk_length, 1.6.39: the rows
   * and some deflate overhead, or libvips's 50 MiB chunk limit if larger), over which it
   * warns "chunk data is too large". */
  size_t idat_limit = filtered_size;
  const size_t row_factor = stride + 1 > 32566 ? 32566 : stride + 1;
  idat_limit += 6 + 5 * (idat_limit / row_factor + 1);
  const size_t chunk_limit = idat_limit > ((size_t)50 << 20) ? idat_limit : (size_t)50 << 20;
  /* All of the chunks: at most an eighth more than the rows (deflate's stored blocks add
   * 5 bytes in 65,535), so that the CRCs, the join and the inflate take a bounded time. */
  const size_t total_limit = filtered_size + filtered_size / 8 + 1024;
  size_t size = 0;
  uint8_t *joined = NULL;
  const uint8_t *const stream =
      image_data(data, length, offset, chunk_limit, total_limit, &size, &joined);
  /* A zlib header of deflate (method 8) whose window holds every distance: libdeflate
   * reads any stream with a 32 KiB window, zlib (libpng) refuses a distance past the
   * window the header declares. A window of the whole data (libpng writes the smallest
   * that is) holds every distance a valid stream can have. */
  const int window_bits = stream && size >= 2 ? (stream[0] >> 4) + 8 : 0;
  if (!stream || size < 2 || (stream[0] & 0x0f) != 8 || window_bits > 15 ||
      (window_bits < 15 && ((size_t)1 << window_bits) < filtered_size)) {
    free(joined);
    return CVIPS_PNG_ROWS_NOT_TAKEN;
  }
  if (deadline && g_get_monotonic_time() >= deadline) {
    free(joined);
    return CVIPS_PNG_ROWS_TIMED_OUT;
  }
  struct libdeflate_decompressor *const inflater = libdeflate_alloc_decompressor();
  size_t used = 0, made = 0;
  const enum libdeflate_result result =
      inflater ? libdeflate_zlib_decompress_ex(inflater, stream, size, out, filtered_size,
                                               &used, &made)
               : LIBDEFLATE_BAD_DATA;
  libdeflate_free_decompressor(inflater);
  free(joined);
  if (result != LIBDEFLATE_SUCCESS || used != size || made != filtered_size)
    return CVIPS_PNG_ROWS_NOT_TAKEN;

  uint8_t *const zeros = calloc(1, stride + 16);
  if (!zeros) return CVIPS_PNG_ROWS_NOT_TAKEN;
  int status = CVIPS_PNG_ROWS_DONE;
  for (size_t y = 0; y < height; y++) {
    if (deadline && (y & 63) == 0 && g_get_monotonic_time() >= deadline) {
      status = CVIPS_PNG_ROWS_TIMED_OUT;
      break;
    }
    /* Row y's filter byte and data at y * (stride + 1), its pixels to y * stride. */
    const uint8_t *const filtered = out + y * (stride + 1);
    uint8_t *const row = out + y * stride;
    const uint8_t *const previous = y ? row - stride : zeros;
    if (unfilter_row(filtered[0], row, filtered + 1, previous, stride, (size_t)bytes_per_pixel)) {
      status = CVIPS_PNG_ROWS_NOT_TAKEN;
      break;
    }
  }
  free(zeros);
  if (status == CVIPS_PNG_ROWS_DONE && swap) {
    const size_t count = stride * height;
    for (size_t i = 0; i + 1 < count; i += 2) {
      const uint8_t high = out[i];
      out[i] = out[i + 1];
      out[i + 1] = high;
    }
  }
  return status;
}
