/* vips_resize's enlargement of an 8-bit image, computed in memory: the bytes libvips
 * 8.14 gives, without its affine pipeline around them.
 *
 * Why: a photo smaller than a format (a 300x199 avatar for a 256 x 256 entry, a 1-pixel
 * placeholder) was enlarged by vips_affine, whose regions, interpolator calls and
 * per-image setup cost about 6 ms for a 300x199 JPEG's family against 2 ms for
 * pillow-simd's whole render of it.
 *
 * What libvips 8.14 does (resize.c, affine.c, bicubic.cpp, templates.h, transform.c),
 * and this file repeats for scales of at least 1 on both axes (more than 1 on one):
 * - vips_resize's lanczos3 kernel enlarges with vips_affine(hscale, 0, 0, vscale), the
 *   "bicubic" (Catmull-Rom) interpolator, idx = idy = 0.5, extend copy. The output is
 *   VIPS_ROUND_INT(width x hscale) by VIPS_ROUND_INT(height x vscale).
 * - The affine inverts its matrix (det = a d - b c, ia = d / det, id = a / det) and
 *   embeds the input with 2 copied pixels on every side (window offset 1, plus 1), idx
 *   and idy made -0.5 for the embedding. Output column x of a region starting at `le` is
 *   read at ix = ia le + 0.5 + 1 in the embedded image, plus ia for each column after;
 *   row y at iy = id y + 0.5 + 1.
 * - At (ix, iy) the interpolator takes the 4 x 4 pixels from ((int) ix - 1,
 *   (int) iy - 1) and the weights of the fractional position rounded to 1/64 of a pixel
 *   ((int) (ix x 128), its low 7 bits plus one, halved: 0 to 64): Catmull-Rom weights
 *   in double, times 4096, truncated to int. Each of the 4 rows is the sum of its 4
 *   samples times the x weights, rounded ((v + 2048) >> 12); the pixel is the same sum
 *   of the 4 rows with the y weights, rounded, clipped to 0...255.
 * A row's sums (the horizontal step) depend only on the input row and the column, so
 * each input row's are computed once, into a ring of four, and each output row combines
 * four of them. A window's columns take their positions as whole rows do, accumulated
 * from column 0: libvips's thumbnail of a small photo, cropped, has the bytes of the
 * whole enlargement cropped (a 100x66 PNG filled to 256 x 256: 0 samples differ), while
 * vips_extract_area of a lazy vips_resize restarts the positions at the crop's left
 * (8,319 samples differ there, by up to 4 levels).
 * Checked against vips_resize, byte for byte, by Tests/VipsTests/EnlargeTests.swift. */
#include "Enlarge.h"
#include "ResampleKernels.h"

#include <pthread.h>
#include <stdlib.h>

#pragma STDC FP_CONTRACT OFF

enum {
  /* VIPS_TRANSFORM_SCALE, VIPS_INTERPOLATE_SHIFT */
  POSITIONS = 64,
  SHIFT = 12,
  ROUND = 1 << (SHIFT - 1),
  /* The embedding's border: the interpolator's window offset (1) and one more pixel. */
  BORDER = 2,
};

/* vips_bicubic_matrixi: the Catmull-Rom weights of each 1/64 position. */
static int weights[POSITIONS + 1][4];
static pthread_once_t weights_once = PTHREAD_ONCE_INIT;

static void prepare_weights(void) {
  for (int t = 0; t <= POSITIONS; t++) {
    /* calculate_coefficients_catmull, for (float) t / VIPS_TRANSFORM_SCALE */
    const double x = (float)t / POSITIONS;
    const double cr1 = 1. - x;
    const double cr2 = -.5 * x;
    const double cr3 = cr1 * cr2;
    const double cone = cr1 * cr3;
    const double cfou = x * cr3;
    const double cr4 = cfou - cone;
    const double ctwo = cr1 - cone + cr4;
    const double cthr = x - cfou - cr4;
    const double c[4] = {cone, ctwo, cthr, cfou};
    for (int i = 0; i < 4; i++) weights[t][i] = (int)(c[i] * (1 << SHIFT));
  }
}

/* Where one output column (or row) reads: the input indices of its 4 taps, clamped as
 * the copied border clamps them, and its weights. */
typedef struct {
  int at[4];
  const int *weight;
} Tap;

/* The taps of `count` outputs read from `start` on, libvips's position accumulated in
 * steps of `step`, in an input `length` long; with `skip` steps taken before the first. */
static void taps(Tap *out, int count, double start, double step, int length, int skip) {
  double position = start;
  for (int i = 0; i < skip; i++) position += step;
  for (int i = 0; i < count; i++) {
    const double p = position;
    const int scaled = (int)(p * POSITIONS * 2);
    const int t = ((scaled & (POSITIONS * 2 - 1)) + 1) >> 1;
    const int first = (int)p - 1 - BORDER;
    for (int k = 0; k < 4; k++) {
      const int at = first + k;
      out[i].at[k] = at < 0 ? 0 : (at >= length ? length - 1 : at);
    }
    out[i].weight = weights[t];
    position += step;
  }
}

static inline int fixed_round(int v) { return (v + ROUND) >> SHIFT; }

/* One column's horizontal sums in one input row, a sum per band into `sums`. */
static inline void column_sums(const uint8_t *row, int bands, const Tap *c, int *sums) {
  const uint8_t *p0 = row + (size_t)c->at[0] * bands, *p1 = row + (size_t)c->at[1] * bands,
                *p2 = row + (size_t)c->at[2] * bands, *p3 = row + (size_t)c->at[3] * bands;
  const int w0 = c->weight[0], w1 = c->weight[1], w2 = c->weight[2], w3 = c->weight[3];
  for (int b = 0; b < bands; b++)
    sums[b] = fixed_round(w0 * p0[b] + w1 * p1[b] + w2 * p2[b] + w3 * p3[b]);
}

/* One input row's horizontal sums at the window's columns. */
static void row_sums(const uint8_t *row, int bands, const Tap *columns, int width, int *sums) {
  for (int x = 0; x < width; x++) column_sums(row, bands, &columns[x], sums + (size_t)x * bands);
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#define HAVE_AVX2_ENLARGE 1
#include <immintrin.h>
#define AVX2 __attribute__((target("avx2")))

/* row_sums for 3 or 4 bands, a column at a time where its 4 taps are 4 neighbouring
 * pixels and a 16-byte load stays inside the row: the taps' samples paired (pixel 0 and
 * 1, 2 and 3, channel by channel) and widened to 16 bits, each pair times its two
 * weights and added by pmaddwd, the two pairs added: the same int sums as the scalar
 * loop, then the same rounding. The rest of the columns go to the scalar loop. Writes one
 * int past the last column's samples (the row has room for it). */
AVX2 static void row_sums_avx2(const uint8_t *row, int in_width, int bands, const Tap *columns,
                               int width, int *sums) {
  const __m128i pairs3 = _mm_setr_epi8(0, 3, 1, 4, 2, 5, -1, -1, 6, 9, 7, 10, 8, 11, -1, -1);
  const __m128i pairs4 = _mm_setr_epi8(0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15);
  const __m128i pairs = bands == 3 ? pairs3 : pairs4;
  const __m128i round = _mm_set1_epi32(ROUND);
  /* The last first tap whose 16 bytes lie inside the row (first x bands + 16 <= its
   * length): 3 bands read 5 1/3 pixels, 4 bands 4. */
  const int last = bands == 3 ? in_width - 6 : in_width - 4;
  unsigned long vectored = 0;
  for (int x = 0; x < width; x++) {
    const Tap *c = &columns[x];
    const int first = c->at[0];
    if (first > last || c->at[3] != first + 3) {
      column_sums(row, bands, c, sums + (size_t)x * bands);
      continue;
    }
    const __m128i taps =
        _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(row + (size_t)first * bands)), pairs);
    const short w0 = (short)c->weight[0], w1 = (short)c->weight[1], w2 = (short)c->weight[2],
                w3 = (short)c->weight[3];
    const __m128i w01 = _mm_setr_epi16(w0, w1, w0, w1, w0, w1, w0, w1);
    const __m128i w23 = _mm_setr_epi16(w2, w3, w2, w3, w2, w3, w2, w3);
    const __m128i sum =
        _mm_add_epi32(_mm_madd_epi16(_mm_cvtepu8_epi16(taps), w01),
                      _mm_madd_epi16(_mm_cvtepu8_epi16(_mm_srli_si128(taps, 8)), w23));
    _mm_storeu_si128((__m128i *)(sums + (size_t)x * bands),
                     _mm_srai_epi32(_mm_add_epi32(sum, round), SHIFT));
    vectored++;
  }
  resample_vector_work_done(vectored);
}

/* combine_rows for eight samples at a time (vpmulld, the same int arithmetic), packed
 * to bytes with saturation, which is the clip; the scalar loop does the rest. */
AVX2 static size_t combine_rows_avx2(const int *l0, const int *l1, const int *l2,
                                     const int *l3, const int *weight, uint8_t *q,
                                     size_t samples) {
  const __m256i w0 = _mm256_set1_epi32(weight[0]), w1 = _mm256_set1_epi32(weight[1]),
                w2 = _mm256_set1_epi32(weight[2]), w3 = _mm256_set1_epi32(weight[3]);
  const __m256i round = _mm256_set1_epi32(ROUND);
  size_t i = 0;
  for (; i + 8 <= samples; i += 8) {
    __m256i sum = _mm256_add_epi32(
        _mm256_mullo_epi32(w0, _mm256_loadu_si256((const __m256i *)(l0 + i))),
        _mm256_mullo_epi32(w1, _mm256_loadu_si256((const __m256i *)(l1 + i))));
    sum = _mm256_add_epi32(
        sum, _mm256_add_epi32(
                 _mm256_mullo_epi32(w2, _mm256_loadu_si256((const __m256i *)(l2 + i))),
                 _mm256_mullo_epi32(w3, _mm256_loadu_si256((const __m256i *)(l3 + i)))));
    const __m256i v = _mm256_srai_epi32(_mm256_add_epi32(sum, round), SHIFT);
    const __m128i words =
        _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    _mm_storel_epi64((__m128i *)(q + i), _mm_packus_epi16(words, words));
  }
  resample_vector_work_done(i / 8);
  return i;
}
#endif

/* One output row: the four rows' sums with the y weights, rounded and clipped. */
static void combine_rows(const int *restrict l0, const int *restrict l1, const int *restrict l2,
                         const int *restrict l3, const int *weight, uint8_t *restrict q,
                         size_t samples, int vector) {
  const int w0 = weight[0], w1 = weight[1], w2 = weight[2], w3 = weight[3];
  size_t i = 0;
#ifdef HAVE_AVX2_ENLARGE
  if (vector) i = combine_rows_avx2(l0, l1, l2, l3, weight, q, samples);
#else
  (void)vector;
#endif
  for (; i < samples; i++) {
    const int v = fixed_round(w0 * l0[i] + w1 * l1[i] + w2 * l2[i] + w3 * l3[i]);
    q[i] = (uint8_t)(v < 0 ? 0 : (v > 255 ? 255 : v));
  }
}

int bicubic_enlarge(const uint8_t *in, size_t stride, int in_width, int in_height, int bands,
                    double hscale, double vscale, int left, int top, int width, int height,
                    uint8_t *out) {
  pthread_once(&weights_once, prepare_weights);
  /* vips__transform_calc_inverse, b = c = 0 */
  const double det = hscale * vscale - 0.0 * 0.0;
  const double tmp = 1.0 / det;
  const double ia = tmp * vscale, id = tmp * hscale;
  const size_t samples = (size_t)width * bands;
  Tap *columns = malloc(sizeof(Tap) * (size_t)width);
  /* Each slot one int longer than a row: row_sums_avx2 writes one past its end. */
  const size_t slot_length = samples + 1;
  int *ring = malloc(sizeof(int) * slot_length * 4);
  if (!columns || !ring) {
    free(columns);
    free(ring);
    return -1;
  }
  /* ix = ia ox + ib oy; ix -= idx (-0.5); ix += window offset (1): then + ia a column,
   * from the row's first column (ox 0) to the window's. */
  taps(columns, width, ia * 0 + 0.5 + 1, ia, in_width, left);
  /* Counted (resample_uses_avx2), so that a test knows which path ran. */
  const int vector = resample_uses_avx2();
  int held[4] = {-1, -1, -1, -1}; /* the input row each slot of the ring holds */
  for (int y = 0; y < height; y++) {
    /* This row's iy from its own y, not accumulated: id oy - idy + 1. */
    Tap row_taps;
    taps(&row_taps, 1, id * (top + y) + 0.5 + 1, 0, in_height, 0);
    const Tap *r = &row_taps;
    const int *line[4];
    for (int k = 0; k < 4; k++) {
      const int source = r->at[k];
      int slot = -1;
      for (int s = 0; s < 4; s++)
        if (held[s] == source) slot = s;
      if (slot < 0) {
        /* The slot of a row no tap of this output row reads. */
        for (int s = 0; s < 4 && slot < 0; s++) {
          int used = 0;
          for (int j = 0; j < 4; j++) used |= held[s] == r->at[j];
          if (!used) slot = s;
        }
        int *sums = ring + (size_t)slot * slot_length;
        const uint8_t *row = in + (size_t)source * stride;
#ifdef HAVE_AVX2_ENLARGE
        if (vector && (bands == 3 || bands == 4))
          row_sums_avx2(row, in_width, bands, columns, width, sums);
        else
#endif
          row_sums(row, bands, columns, width, sums);
        held[slot] = source;
      }
      line[k] = ring + (size_t)slot * slot_length;
    }
    combine_rows(line[0], line[1], line[2], line[3], r->weight, out + (size_t)y * samples,
                 samples, vector);
  }
  free(columns);
  free(ring);
  return 0;
}
