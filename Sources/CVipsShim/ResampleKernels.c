/* AVX2 kernels of Resample.c's passes (pillow-simd's scheme: 8-bit samples widened to 16
 * bits, 16-bit fixed-point coefficients, _mm256_madd_epi16 multiplying and adding two
 * taps of several samples at once). Only these functions are built for AVX2 (their
 * `target` attribute), so the rest of the shim stays baseline x86-64, and Resample.c
 * calls them only when the processor has AVX2 (resample_uses_avx2): its scalar loops are
 * the fallback, and the reference the kernels equal byte for byte. No ifunc resolver is
 * involved (a sanitizer's runtime is not up when one runs). */
#include "ResampleKernels.h"
#include "CVipsShim.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* No fused multiply-add in the float kernels: libvips multiplies and adds separately
 * (and "fma" is not among the target features below, so none can be emitted). */
#pragma STDC FP_CONTRACT OFF

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#define HAVE_AVX2_KERNELS 1
#include <immintrin.h>
#define AVX2 __attribute__((target("avx2")))
#endif

static int processor_has_avx2;
static pthread_once_t processor_checked = PTHREAD_ONCE_INIT;
static _Thread_local int scalar_on_this_thread;

static void check_processor(void) {
#ifdef HAVE_AVX2_KERNELS
  __builtin_cpu_init();
  processor_has_avx2 = __builtin_cpu_supports("avx2");
#endif
}

/* Whether the kernels run for the calling thread now, without counting a choice. */
static int vector_now(void) {
  if (scalar_on_this_thread) return 0;
  pthread_once(&processor_checked, check_processor);
  return processor_has_avx2;
}

/* The choices resample_uses_avx2 made on this thread: tests check that the path they
 * compare really ran (the kernels on one side, the scalar loops on the other). */
static _Thread_local unsigned long vector_choices, scalar_choices;

int resample_uses_avx2(void) {
  const int vector = vector_now();
  if (vector) {
    vector_choices++;
  } else {
    scalar_choices++;
  }
  return vector;
}

/* Units of work the hand-written vector loops did on this thread (a loop's own unit: 8
 * pixels, a column): a choice of the kernels is not proof that they ran. */
static _Thread_local unsigned long vector_work;

void resample_vector_work_done(unsigned long units) { vector_work += units; }

unsigned long cvips_resample_vector_work(void) { return vector_work; }

void cvips_resample_choices(unsigned long *vector, unsigned long *scalar) {
  *vector = vector_choices;
  *scalar = scalar_choices;
}

int cvips_resample_set_scalar(int scalar) {
  const int previous = scalar_on_this_thread;
  scalar_on_this_thread = scalar != 0;
  return previous;
}

int cvips_resample_uses_vector_kernels(void) { return vector_now(); }

int cvips_resample_has_vector_kernels(void) {
  pthread_once(&processor_checked, check_processor);
  return processor_has_avx2;
}

int16_t *avx2_horizontal_table(const int *coefficients, int points, int phases, int *groups) {
  *groups = (points + 3) / 4;
  const int perPhase = *groups * 16;
  int16_t *table = calloc((size_t)perPhase * phases, sizeof(int16_t));
  if (!table) return NULL;
  for (int phase = 0; phase < phases; phase++) {
    const int *c = coefficients + phase * points;
    int16_t *t = table + phase * perPhase;
    for (int i = 0; i < points; i++) {
      if (c[i] < INT16_MIN || c[i] > INT16_MAX) {
        free(table);
        return NULL;
      }
      /* Tap i of its group of 4: taps 0 and 1 pair in the low 128 bits, 2 and 3 in the
       * high, each pair repeated for the 4 bands. */
      const int group = i / 4, tap = i % 4;
      int16_t *lanes = t + group * 16 + (tap / 2) * 8 + tap % 2;
      for (int band = 0; band < 4; band++) lanes[band * 2] = (int16_t)c[i];
    }
  }
  return table;
}

#ifdef HAVE_AVX2_KERNELS

/* Rounds the fixed-point sums (x 4096) to bytes: libvips's (sum + 2048) >> 12, clipped. */
AVX2 static inline __m256i fixed_to_bytes_32(__m256i a, __m256i b, __m256i c, __m256i d) {
  const __m256i half = _mm256_set1_epi32(1 << 11);
  a = _mm256_srai_epi32(_mm256_add_epi32(a, half), 12);
  b = _mm256_srai_epi32(_mm256_add_epi32(b, half), 12);
  c = _mm256_srai_epi32(_mm256_add_epi32(c, half), 12);
  d = _mm256_srai_epi32(_mm256_add_epi32(d, half), 12);
  /* a, b: samples 0-3 | 8-11 and 4-7 | 12-15 (unpacklo/hi's lanes): packs puts them in
   * order within each 128-bit lane; packus then interleaves the two halves' lanes. */
  const __m256i low = _mm256_packs_epi32(a, b);   /* 0..7 | 8..15 */
  const __m256i high = _mm256_packs_epi32(c, d);  /* 16..23 | 24..31 */
  const __m256i bytes = _mm256_packus_epi16(low, high); /* 0..7 16..23 | 8..15 24..31 */
  return _mm256_permute4x64_epi64(bytes, _MM_SHUFFLE(3, 1, 2, 0));
}

/* Two taps of 16 samples: the samples of rows a and b widened and interleaved, times the
 * pair of coefficients, added to the two accumulators (samples 0-3 | 8-11, 4-7 | 12-15). */
AVX2 static inline void madd_16(const uint8_t *a, const uint8_t *b, __m256i pair, __m256i *low,
                                __m256i *high) {
  const __m256i wa = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)a));
  const __m256i wb = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)b));
  *low = _mm256_add_epi32(*low, _mm256_madd_epi16(_mm256_unpacklo_epi16(wa, wb), pair));
  *high = _mm256_add_epi32(*high, _mm256_madd_epi16(_mm256_unpackhi_epi16(wa, wb), pair));
}

static inline uint8_t clip_fixed(int sum) {
  const int v = (sum + (1 << 11)) >> 12;
  return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

AVX2 void avx2_reduce_rows_u8(const uint8_t *const *rows, const int *coefficients, int points,
                              uint8_t *out, int samples) {
  const int pairs = (points + 1) / 2;
  __m256i packed[32];
  const uint8_t *a[32], *b[32];
  if (pairs > 32) {
    /* Kernels this long (a box shrink leaves at most about 25 taps) go scalar. */
    for (int z = 0; z < samples; z++) {
      int sum = 0;
      for (int i = 0; i < points; i++) sum += coefficients[i] * rows[i][z];
      out[z] = clip_fixed(sum);
    }
    return;
  }
  for (int k = 0; k < pairs; k++) {
    const int i = 2 * k;
    const int second = i + 1 < points ? coefficients[i + 1] : 0;
    packed[k] = _mm256_set1_epi32((int)(((uint32_t)(uint16_t)second << 16) |
                                        (uint16_t)coefficients[i]));
    a[k] = rows[i];
    b[k] = i + 1 < points ? rows[i + 1] : rows[i];
  }
  int z = 0;
  for (; z + 32 <= samples; z += 32) {
    __m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0;
    for (int k = 0; k < pairs; k++) {
      madd_16(a[k] + z, b[k] + z, packed[k], &s0, &s1);
      madd_16(a[k] + z + 16, b[k] + z + 16, packed[k], &s2, &s3);
    }
    _mm256_storeu_si256((__m256i *)(out + z), fixed_to_bytes_32(s0, s1, s2, s3));
  }
  if (z + 16 <= samples) {
    __m256i s0 = _mm256_setzero_si256(), s1 = s0;
    for (int k = 0; k < pairs; k++) madd_16(a[k] + z, b[k] + z, packed[k], &s0, &s1);
    const __m256i bytes = fixed_to_bytes_32(s0, s1, s0, s1);
    _mm_storeu_si128((__m128i *)(out + z), _mm256_castsi256_si128(bytes));
    z += 16;
  }
  for (; z < samples; z++) {
    int sum = 0;
    for (int i = 0; i < points; i++) sum += coefficients[i] * rows[i][z];
    out[z] = clip_fixed(sum);
  }
}

/* (sum + factor / 2) / factor of 8 sums: a float division, exact here (the dividend is
 * below 2^24, and the quotient, below 257, is at least 1 / factor from any integer it is
 * not, more than the division's rounding error while factor is below 2^15). */
AVX2 static inline __m256i box_means(__m256i sums, __m256i half, __m256 factor) {
  const __m256 quotient = _mm256_div_ps(_mm256_cvtepi32_ps(_mm256_add_epi32(sums, half)), factor);
  return _mm256_cvttps_epi32(quotient);
}

AVX2 void avx2_shrink_rows_u8(const uint8_t *const *rows, int factor, uint8_t *out,
                              int samples) {
  const __m256i half = _mm256_set1_epi32(factor / 2);
  const __m256 divisor = _mm256_set1_ps((float)factor);
  int z = 0;
  for (; z + 16 <= samples; z += 16) {
    /* 16-bit sums: at most 255 x 257 = 65535. */
    __m256i sum = _mm256_setzero_si256();
    for (int k = 0; k < factor; k++)
      sum = _mm256_add_epi16(sum,
                             _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(rows[k] + z))));
    const __m256i low = box_means(_mm256_cvtepu16_epi32(_mm256_castsi256_si128(sum)), half, divisor);
    const __m256i high =
        box_means(_mm256_cvtepu16_epi32(_mm256_extracti128_si256(sum, 1)), half, divisor);
    /* Means are at most 255: pack to 16 bits (lanes 0-3 low, 4-7 high, 8-11 low...). */
    const __m256i words = _mm256_permute4x64_epi64(_mm256_packus_epi32(low, high),
                                                   _MM_SHUFFLE(3, 1, 2, 0));
    const __m128i bytes =
        _mm_packus_epi16(_mm256_castsi256_si128(words), _mm256_extracti128_si256(words, 1));
    _mm_storeu_si128((__m128i *)(out + z), bytes);
  }
  for (; z < samples; z++) {
    uint32_t sum = 0;
    for (int k = 0; k < factor; k++) sum += rows[k][z];
    out[z] = (uint8_t)((sum + (uint32_t)factor / 2) / (uint32_t)factor);
  }
}

/* Bytes of a group of 4 pixels of `bands` bands (loaded twice, into both 128-bit lanes)
 * to 16-bit lanes: pixels 0 and 1 interleaved band by band (b0 of pixel 0, b0 of pixel
 * 1, b1 of pixel 0...) in the low lane, pixels 2 and 3 in the high; missing bands 0. */
AVX2 static inline __m256i group_spread(int bands) {
  int8_t mask[32];
  for (int half = 0; half < 2; half++)
    for (int band = 0; band < 4; band++)
      for (int tap = 0; tap < 2; tap++) {
        int8_t *lane = mask + half * 16 + band * 4 + tap * 2;
        lane[0] = band < bands ? (int8_t)((half * 2 + tap) * bands + band) : -1;
        lane[1] = -1;
      }
  return _mm256_loadu_si256((const __m256i *)mask);
}

/* The 4 bands' sums of one output pixel: its taps' groups of 4 pixels from `p` on
 * (4 x bands bytes apart), times the table's coefficients. */
AVX2 static inline __m128i convolve_pixel(const uint8_t *p, int groupBytes, const int16_t *c,
                                          int groups, __m256i spread) {
  __m256i sum = _mm256_setzero_si256();
  for (int g = 0; g < groups; g++) {
    const __m256i pixels =
        _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(p + g * groupBytes)));
    const __m256i taps = _mm256_loadu_si256((const __m256i *)(c + g * 16));
    sum = _mm256_add_epi32(sum, _mm256_madd_epi16(_mm256_shuffle_epi8(pixels, spread), taps));
  }
  return _mm_add_epi32(_mm256_castsi256_si128(sum), _mm256_extracti128_si256(sum, 1));
}

AVX2 static inline __m128i finish_fixed(__m128i sums) {
  const __m128i v = _mm_srai_epi32(_mm_add_epi32(sums, _mm_set1_epi32(1 << 11)), 12);
  const __m128i words = _mm_packs_epi32(v, v);
  return _mm_packus_epi16(words, words);
}

AVX2 static inline __m128i finish_box(__m128i sums, int box) {
  const __m128 q = _mm_div_ps(_mm_cvtepi32_ps(_mm_add_epi32(sums, _mm_set1_epi32(box / 2))),
                              _mm_set1_ps((float)box));
  const __m128i v = _mm_cvttps_epi32(q);
  const __m128i words = _mm_packs_epi32(v, v);
  return _mm_packus_epi16(words, words);
}

/* One output pixel: read in place where its taps are inside the row and the group loads
 * inside the bytes that can be read, else from a copy of its taps with the edge
 * extended (the padding taps 0). Stores its `bands` bytes, 4 at once where the row has
 * room (the next pixels overwrite the extra ones). */
#define CONVOLVE_ROW(BANDS, FINISH)                                                        \
  for (int x = 0; x < count; x++) {                                                        \
    const int start = starts[x];                                                           \
    const int16_t *c = kernel->table + phases[x] * perPhase;                               \
    __m128i sums;                                                                          \
    if (start >= 0 && start + points <= width &&                                           \
        (start - first) * (BANDS) + lastLoad <= readable) {                                \
      sums = convolve_pixel(row + (start - first) * (BANDS), 4 * (BANDS), c, groups, spread); \
    } else {                                                                               \
      for (int t = 0; t < groups * 4; t++) {                                               \
        const int column = start + t < 0 ? 0 : start + t >= width ? width - 1 : start + t;   \
        for (int b = 0; b < (BANDS); b++)                                                  \
          edge[t * (BANDS) + b] = t < points ? row[(column - first) * (BANDS) + b] : 0;    \
      }                                                                                    \
      sums = convolve_pixel(edge, 4 * (BANDS), c, groups, spread);                         \
    }                                                                                      \
    const uint32_t bytes = (uint32_t)_mm_cvtsi128_si32(FINISH);                            \
    uint8_t *q = out + x * (BANDS);                                                        \
    if ((x + 1) * (BANDS) + 4 - (BANDS) <= count * (BANDS))                                \
      memcpy(q, &bytes, 4);                                                                \
    else                                                                                   \
      memcpy(q, &bytes, (BANDS));                                                          \
  }

/* A zeroed buffer for one pixel's taps copied with the edge extended (a group's load
 * reaches 16 bytes from its first tap). */
static uint8_t *edge_taps(int groups, int bands) {
  uint8_t *edge = calloc(1, (size_t)groups * 4 * bands + 16);
  if (!edge) abort();
  return edge;
}

AVX2 void avx2_convolve_row(const uint8_t *row, int first, int width, size_t readable,
                            const int *starts, const int *phases, const HorizontalKernel *kernel,
                            int points, int box, uint8_t *out, int count) {
  const int bands = kernel->bands, groups = kernel->groups, perPhase = groups * 16;
  /* The bytes the last group's load reaches past a pixel's first tap. */
  const size_t lastLoad = (size_t)(groups - 1) * 4 * bands + 16;
  const __m256i spread = group_spread(bands);
  uint8_t *edge = edge_taps(groups, bands);
  if (box) {
    switch (bands) {
    case 1: CONVOLVE_ROW(1, finish_box(sums, box)) break;
    case 2: CONVOLVE_ROW(2, finish_box(sums, box)) break;
    case 3: CONVOLVE_ROW(3, finish_box(sums, box)) break;
    default: CONVOLVE_ROW(4, finish_box(sums, box)) break;
    }
  } else {
    switch (bands) {
    case 1: CONVOLVE_ROW(1, finish_fixed(sums)) break;
    case 2: CONVOLVE_ROW(2, finish_fixed(sums)) break;
    case 3: CONVOLVE_ROW(3, finish_fixed(sums)) break;
    default: CONVOLVE_ROW(4, finish_fixed(sums)) break;
    }
  }
  free(edge);
}

/* convolve_pixel for the same output pixel of two rows `rowBytes` apart: each group's
 * coefficients loaded once for both. Inlined with `groups` a constant where it is a
 * common one (the loop unrolled), else as it comes. */
AVX2 static inline __attribute__((always_inline)) void convolve_pixel_2(
    const uint8_t *p, size_t rowBytes, int groupBytes, const int16_t *c, int groups,
    __m256i spread, __m128i *first, __m128i *second) {
  __m256i sum0 = _mm256_setzero_si256(), sum1 = sum0;
  for (int g = 0; g < groups; g++) {
    const __m256i taps = _mm256_loadu_si256((const __m256i *)(c + g * 16));
    const __m256i pixels0 =
        _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(p + g * groupBytes)));
    const __m256i pixels1 = _mm256_broadcastsi128_si256(
        _mm_loadu_si128((const __m128i *)(p + rowBytes + g * groupBytes)));
    sum0 = _mm256_add_epi32(sum0, _mm256_madd_epi16(_mm256_shuffle_epi8(pixels0, spread), taps));
    sum1 = _mm256_add_epi32(sum1, _mm256_madd_epi16(_mm256_shuffle_epi8(pixels1, spread), taps));
  }
  *first = _mm_add_epi32(_mm256_castsi256_si128(sum0), _mm256_extracti128_si256(sum0, 1));
  *second = _mm_add_epi32(_mm256_castsi256_si128(sum1), _mm256_extracti128_si256(sum1, 1));
}

/* CONVOLVE_ROW for two rows at once (`row` and the one `rowBytes` after it, whose output
 * row is `outBytes` after the first's): a pixel whose taps and loads lie inside both
 * rows is convolved in place for both, with one pass over its coefficients; others (the
 * edges) row by row from a copy with the edge extended, as CONVOLVE_ROW does. */
#define CONVOLVE_ROWS_2(BANDS, GROUPS, FINISH0, FINISH1)                                   \
  for (int x = 0; x < count; x++) {                                                        \
    const int start = starts[x];                                                           \
    const int16_t *c = kernel->table + phases[x] * perPhase;                               \
    __m128i sums0, sums1;                                                                  \
    if (start >= 0 && start + points <= width &&                                           \
        (start - first) * (BANDS) + lastLoad + rowBytes <= readable) {                     \
      convolve_pixel_2(row + (start - first) * (BANDS), rowBytes, 4 * (BANDS), c, GROUPS,  \
                       spread, &sums0, &sums1);                                            \
    } else {                                                                               \
      for (int r = 0; r < 2; r++) {                                                        \
        const uint8_t *source = row + r * rowBytes;                                        \
        for (int t = 0; t < groups * 4; t++) {                                             \
          const int column = start + t < 0 ? 0 : start + t >= width ? width - 1 : start + t; \
          for (int b = 0; b < (BANDS); b++)                                                \
            edge[t * (BANDS) + b] = t < points ? source[(column - first) * (BANDS) + b] : 0; \
        }                                                                                  \
        const __m128i sums = convolve_pixel(edge, 4 * (BANDS), c, groups, spread);         \
        if (r == 0)                                                                        \
          sums0 = sums;                                                                    \
        else                                                                               \
          sums1 = sums;                                                                    \
      }                                                                                    \
    }                                                                                      \
    const uint32_t bytes0 = (uint32_t)_mm_cvtsi128_si32(FINISH0);                          \
    const uint32_t bytes1 = (uint32_t)_mm_cvtsi128_si32(FINISH1);                          \
    uint8_t *q = out + x * (BANDS);                                                        \
    if ((x + 1) * (BANDS) + 4 - (BANDS) <= count * (BANDS)) {                              \
      memcpy(q, &bytes0, 4);                                                               \
      memcpy(q + outBytes, &bytes1, 4);                                                    \
    } else {                                                                               \
      memcpy(q, &bytes0, (BANDS));                                                         \
      memcpy(q + outBytes, &bytes1, (BANDS));                                              \
    }                                                                                      \
  }

#define CONVOLVE_ROWS_2_BANDS(GROUPS, FINISH0, FINISH1)                                    \
  switch (bands) {                                                                         \
  case 1: CONVOLVE_ROWS_2(1, GROUPS, FINISH0, FINISH1) break;                              \
  case 2: CONVOLVE_ROWS_2(2, GROUPS, FINISH0, FINISH1) break;                              \
  case 3: CONVOLVE_ROWS_2(3, GROUPS, FINISH0, FINISH1) break;                              \
  default: CONVOLVE_ROWS_2(4, GROUPS, FINISH0, FINISH1) break;                             \
  }

AVX2 void avx2_convolve_rows_2(const uint8_t *row, size_t rowBytes, int first, int width,
                               size_t readable, const int *starts, const int *phases,
                               const HorizontalKernel *kernel, int points, int box,
                               uint8_t *out, size_t outBytes, int count) {
  const int bands = kernel->bands, groups = kernel->groups, perPhase = groups * 16;
  const size_t lastLoad = (size_t)(groups - 1) * 4 * bands + 16;
  const __m256i spread = group_spread(bands);
  uint8_t *edge = edge_taps(groups, bands);
  /* A box shrink by 2 to 4 is one group; Lanczos 3 reducing by up to about 2.2, two to
   * four. */
  if (box && groups == 1) {
    CONVOLVE_ROWS_2_BANDS(1, finish_box(sums0, box), finish_box(sums1, box))
  } else if (box) {
    CONVOLVE_ROWS_2_BANDS(groups, finish_box(sums0, box), finish_box(sums1, box))
  } else if (groups == 2) {
    CONVOLVE_ROWS_2_BANDS(2, finish_fixed(sums0), finish_fixed(sums1))
  } else if (groups == 3) {
    CONVOLVE_ROWS_2_BANDS(3, finish_fixed(sums0), finish_fixed(sums1))
  } else if (groups == 4) {
    CONVOLVE_ROWS_2_BANDS(4, finish_fixed(sums0), finish_fixed(sums1))
  } else {
    CONVOLVE_ROWS_2_BANDS(groups, finish_fixed(sums0), finish_fixed(sums1))
  }
  free(edge);
}

AVX2 void avx2_reduce_rows_float(const float *const *rows, const double *weights, int points,
                                 float *out, int samples) {
  int z = 0;
  for (; z + 16 <= samples; z += 16) {
    __m256d s0 = _mm256_setzero_pd(), s1 = s0, s2 = s0, s3 = s0;
    for (int i = 0; i < points; i++) {
      const __m256d w = _mm256_set1_pd(weights[i]);
      const float *r = rows[i] + z;
      s0 = _mm256_add_pd(s0, _mm256_mul_pd(w, _mm256_cvtps_pd(_mm_loadu_ps(r))));
      s1 = _mm256_add_pd(s1, _mm256_mul_pd(w, _mm256_cvtps_pd(_mm_loadu_ps(r + 4))));
      s2 = _mm256_add_pd(s2, _mm256_mul_pd(w, _mm256_cvtps_pd(_mm_loadu_ps(r + 8))));
      s3 = _mm256_add_pd(s3, _mm256_mul_pd(w, _mm256_cvtps_pd(_mm_loadu_ps(r + 12))));
    }
    _mm_storeu_ps(out + z, _mm256_cvtpd_ps(s0));
    _mm_storeu_ps(out + z + 4, _mm256_cvtpd_ps(s1));
    _mm_storeu_ps(out + z + 8, _mm256_cvtpd_ps(s2));
    _mm_storeu_ps(out + z + 12, _mm256_cvtpd_ps(s3));
  }
  for (; z + 4 <= samples; z += 4) {
    __m256d s = _mm256_setzero_pd();
    for (int i = 0; i < points; i++)
      s = _mm256_add_pd(
          s, _mm256_mul_pd(_mm256_set1_pd(weights[i]), _mm256_cvtps_pd(_mm_loadu_ps(rows[i] + z))));
    _mm_storeu_ps(out + z, _mm256_cvtpd_ps(s));
  }
  for (; z < samples; z++) {
    double sum = 0;
    for (int i = 0; i < points; i++) sum += weights[i] * rows[i][z];
    out[z] = (float)sum;
  }
}

/* vips_premultiply of 8 samples (2 RGBA pixels or 4 grey-alpha ones): each colour
 * sample times its pixel's alpha / 255 (the float of `fractions`), alpha times 1, in
 * float as the scalar loop multiplies. */
AVX2 static inline __m256 premultiply_8(const uint8_t *in, int bands, const float *fractions) {
  const __m128i bytes = _mm_loadl_epi64((const __m128i *)in);
  const __m128i alphaOf2 = _mm_setr_epi8(1, 1, 3, 3, 5, 5, 7, 7, -1, -1, -1, -1, -1, -1, -1, -1);
  __m256 gathered;
  if (bands == 4) {
    const __m128 pair = _mm_setr_ps(fractions[in[3]], fractions[in[7]], 0, 0);
    gathered = _mm256_permutevar8x32_ps(_mm256_castps128_ps256(pair),
                                        _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1));
  } else {
    const __m256i alphas = _mm256_cvtepu8_epi32(_mm_shuffle_epi8(bytes, alphaOf2));
    gathered = _mm256_i32gather_ps(fractions, alphas, 4);
  }
  const __m256 one = _mm256_set1_ps(1);
  const __m256 scale = bands == 4 ? _mm256_blend_ps(gathered, one, 0x88)
                                  : _mm256_blend_ps(gathered, one, 0xaa);
  return _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(bytes)), scale);
}

static void premultiply_tail(const uint8_t *in, float *out, double *sum, int from, int samples,
                             int bands, const float *fractions) {
  for (int p = from; p < samples; p += bands) {
    const float scale = fractions[in[p + bands - 1]];
    for (int b = 0; b < bands; b++) {
      const float v = b == bands - 1 ? in[p + b] : in[p + b] * scale;
      if (out) out[p + b] = v;
      if (sum) sum[p + b] += v;
    }
  }
}

AVX2 void avx2_premultiply_row(const uint8_t *in, float *out, int samples, int bands,
                               const float *fractions) {
  int z = 0;
  for (; z + 8 <= samples; z += 8) _mm256_storeu_ps(out + z, premultiply_8(in + z, bands, fractions));
  premultiply_tail(in, out, NULL, z, samples, bands, fractions);
}

AVX2 void avx2_premultiply_box(const uint8_t *const *rows, int factor, int samples, int bands,
                               const float *fractions, float *out) {
  const __m256d divisor = _mm256_set1_pd((double)factor);
  int z = 0;
  for (; z + 8 <= samples; z += 8) {
    /* The box's sums in registers, row after row in order (as the scalar loop adds). */
    __m256d low = _mm256_setzero_pd(), high = low;
    for (int k = 0; k < factor; k++) {
      const __m256 v = premultiply_8(rows[k] + z, bands, fractions);
      low = _mm256_add_pd(low, _mm256_cvtps_pd(_mm256_castps256_ps128(v)));
      high = _mm256_add_pd(high, _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)));
    }
    _mm_storeu_ps(out + z, _mm256_cvtpd_ps(_mm256_div_pd(low, divisor)));
    _mm_storeu_ps(out + z + 4, _mm256_cvtpd_ps(_mm256_div_pd(high, divisor)));
  }
  for (; z < samples; z += bands) {
    double sum[4] = {0, 0, 0, 0};
    for (int k = 0; k < factor; k++) {
      const uint8_t *p = rows[k] + z;
      const float scale = fractions[p[bands - 1]];
      for (int b = 0; b < bands; b++) sum[b] += b == bands - 1 ? (float)p[b] : p[b] * scale;
    }
    for (int b = 0; b < bands; b++) out[z + b] = (float)(sum[b] / factor);
  }
}

AVX2 void avx2_premultiply_accumulate(double *sum, const uint8_t *in, int samples, int bands,
                                      const float *fractions) {
  int z = 0;
  for (; z + 8 <= samples; z += 8) {
    const __m256 v = premultiply_8(in + z, bands, fractions);
    _mm256_storeu_pd(sum + z, _mm256_add_pd(_mm256_loadu_pd(sum + z),
                                            _mm256_cvtps_pd(_mm256_castps256_ps128(v))));
    _mm256_storeu_pd(sum + z + 4, _mm256_add_pd(_mm256_loadu_pd(sum + z + 4),
                                                _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1))));
  }
  premultiply_tail(in, NULL, sum, z, samples, bands, fractions);
}

/* One output pixel of the float horizontal reduce read in place: its bands' sums side by
 * side (4 lanes, the ones past `bands` unused), each in the scalar loop's order. */
#define FLOAT_TAP(SUM, P, C, I)                                                            \
  SUM = _mm256_add_pd(SUM, _mm256_mul_pd(_mm256_set1_pd((C)[I]),                           \
                                         _mm256_cvtps_pd(_mm_loadu_ps((P) + (I) * bands))))

/* Stores pixel x of a row of `count`: 4 floats at once where the row has room (the next
 * pixels overwrite the extra ones). */
AVX2 static inline void store_float_pixel(float *row, int x, int count, __m256d sum, int bands) {
  float *q = row + x * bands;
  const __m128 v = _mm256_cvtpd_ps(sum);
  if (x * bands + 4 <= count * bands)
    _mm_storeu_ps(q, v);
  else {
    float lanes[4];
    _mm_storeu_ps(lanes, v);
    memcpy(q, lanes, sizeof(float) * (size_t)bands);
  }
}

AVX2 void avx2_reduce_columns_float(const float *row, int first, int width, size_t readable,
                                    const int *starts, const int *phases, const double *tables,
                                    int points, int bands, float *out, int count) {
  /* Whether pixel x reads in place: its taps inside the row, its last 4-float load inside
   * what may be read. */
#define IN_PLACE(X)                                                                        \
  (starts[X] >= 0 && starts[X] + points <= width &&                                        \
   (size_t)(starts[X] - first + points - 1) * bands + 4 <= readable)
  int x = 0;
  for (; x + 4 <= count; x += 4) {
    if (!(IN_PLACE(x) && IN_PLACE(x + 1) && IN_PLACE(x + 2) && IN_PLACE(x + 3))) break;
    /* Four pixels' chains of additions side by side. */
    const float *p0 = row + (starts[x] - first) * bands, *p1 = row + (starts[x + 1] - first) * bands;
    const float *p2 = row + (starts[x + 2] - first) * bands, *p3 = row + (starts[x + 3] - first) * bands;
    const double *c0 = tables + phases[x] * points, *c1 = tables + phases[x + 1] * points;
    const double *c2 = tables + phases[x + 2] * points, *c3 = tables + phases[x + 3] * points;
    __m256d s0 = _mm256_setzero_pd(), s1 = s0, s2 = s0, s3 = s0;
    for (int i = 0; i < points; i++) {
      FLOAT_TAP(s0, p0, c0, i);
      FLOAT_TAP(s1, p1, c1, i);
      FLOAT_TAP(s2, p2, c2, i);
      FLOAT_TAP(s3, p3, c3, i);
    }
    store_float_pixel(out, x, count, s0, bands);
    store_float_pixel(out, x + 1, count, s1, bands);
    store_float_pixel(out, x + 2, count, s2, bands);
    store_float_pixel(out, x + 3, count, s3, bands);
  }
  for (; x < count; x++) {
    const double *c = tables + phases[x] * points;
    const int start = starts[x];
    if (IN_PLACE(x)) {
      const float *p = row + (start - first) * bands;
      __m256d sum = _mm256_setzero_pd();
      for (int i = 0; i < points; i++) FLOAT_TAP(sum, p, c, i);
      store_float_pixel(out, x, count, sum, bands);
      continue;
    }
    for (int b = 0; b < bands; b++) {
      double sum = 0;
      for (int i = 0; i < points; i++) {
        const int column = start + i < 0 ? 0 : start + i >= width ? width - 1 : start + i;
        sum += c[i] * row[(column - first) * bands + b];
      }
      out[x * bands + b] = (float)sum;
    }
  }
#undef IN_PLACE
}

AVX2 void avx2_shrink_columns_float(const float *row, int first, int width, size_t readable,
                                    int lo, int count, int box, int bands, float *out) {
  const __m256d divisor = _mm256_set1_pd((double)box);
#define BOX_IN_PLACE(X)                                                                    \
  ((lo + (X)) * box + box <= width &&                                                      \
   (size_t)((lo + (X)) * box + box - 1 - first) * bands + 4 <= readable)
#define BOX_TAP(SUM, P, K) SUM = _mm256_add_pd(SUM, _mm256_cvtps_pd(_mm_loadu_ps((P) + (K) * bands)))
  int o = 0;
  for (; o + 2 <= count && BOX_IN_PLACE(o + 1); o += 2) {
    const float *p0 = row + ((lo + o) * box - first) * bands, *p1 = p0 + box * bands;
    __m256d s0 = _mm256_setzero_pd(), s1 = s0;
    for (int k = 0; k < box; k++) {
      BOX_TAP(s0, p0, k);
      BOX_TAP(s1, p1, k);
    }
    store_float_pixel(out, o, count, _mm256_div_pd(s0, divisor), bands);
    store_float_pixel(out, o + 1, count, _mm256_div_pd(s1, divisor), bands);
  }
  for (; o < count; o++) {
    const int x = lo + o;
    if (BOX_IN_PLACE(o)) {
      const float *p = row + (x * box - first) * bands;
      __m256d sum = _mm256_setzero_pd();
      for (int k = 0; k < box; k++) BOX_TAP(sum, p, k);
      store_float_pixel(out, o, count, _mm256_div_pd(sum, divisor), bands);
      continue;
    }
    for (int b = 0; b < bands; b++) {
      double sum = 0;
      for (int k = 0; k < box; k++) {
        const int column = x * box + k >= width ? width - 1 : x * box + k;
        sum += row[(column - first) * bands + b];
      }
      out[o * bands + b] = (float)(sum / box);
    }
  }
#undef BOX_TAP
#undef BOX_IN_PLACE
}

AVX2 void avx2_unpremultiply_row(const float *p, uint8_t *q, int samples, int bands) {
  const __m256i alphaOf4 = _mm256_setr_epi32(3, 3, 3, 3, 7, 7, 7, 7);
  const __m256i alphaOf2 = _mm256_setr_epi32(1, 1, 3, 3, 5, 5, 7, 7);
  const __m256 one = _mm256_set1_ps(1), faint = _mm256_set1_ps(0.01f);
  const __m256 zero = _mm256_setzero_ps(), top = _mm256_set1_ps(255);
  const __m256d numerator = _mm256_set1_pd(255.0);
  const __m256 sign = _mm256_set1_ps(-0.0f);
  int z = 0;
  for (; z + 8 <= samples; z += 8) {
    const __m256 v = _mm256_loadu_ps(p + z);
    const __m256 alpha = _mm256_permutevar8x32_ps(v, bands == 4 ? alphaOf4 : alphaOf2);
    /* (float)(255.0 / alpha), in double as the scalar loop divides; 0 under 0.01. */
    const __m128 low = _mm256_cvtpd_ps(
        _mm256_div_pd(numerator, _mm256_cvtps_pd(_mm256_castps256_ps128(alpha))));
    const __m128 high = _mm256_cvtpd_ps(
        _mm256_div_pd(numerator, _mm256_cvtps_pd(_mm256_extractf128_ps(alpha, 1))));
    __m256 factor = _mm256_set_m128(high, low);
    const __m256 isFaint = _mm256_cmp_ps(_mm256_andnot_ps(sign, alpha), faint, _CMP_LT_OQ);
    factor = _mm256_andnot_ps(isFaint, factor);
    /* Alpha itself is kept (times 1), then clipped as the colour is. */
    factor = bands == 4 ? _mm256_blend_ps(factor, one, 0x88) : _mm256_blend_ps(factor, one, 0xaa);
    const __m256 clipped = _mm256_min_ps(_mm256_max_ps(_mm256_mul_ps(factor, v), zero), top);
    const __m256i ints = _mm256_cvttps_epi32(clipped);
    const __m128i words =
        _mm_packus_epi32(_mm256_castsi256_si128(ints), _mm256_extracti128_si256(ints, 1));
    _mm_storel_epi64((__m128i *)(q + z), _mm_packus_epi16(words, words));
  }
  for (; z < samples; z += bands) {
    const float alpha = p[z + bands - 1];
    const float factor = (alpha < 0 ? -alpha : alpha) < 0.01f ? 0 : (float)(255.0 / alpha);
    for (int b = 0; b < bands - 1; b++) {
      const double v = (double)(factor * p[z + b]);
      q[z + b] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
    }
    const double a = (double)(alpha < 0 ? 0 : alpha > 255 ? 255 : alpha);
    q[z + bands - 1] = (uint8_t)a;
  }
}

AVX2 void avx2_accumulate_float(double *sum, const float *row, int samples) {
  int z = 0;
  for (; z + 8 <= samples; z += 8) {
    _mm256_storeu_pd(sum + z, _mm256_add_pd(_mm256_loadu_pd(sum + z),
                                            _mm256_cvtps_pd(_mm_loadu_ps(row + z))));
    _mm256_storeu_pd(sum + z + 4, _mm256_add_pd(_mm256_loadu_pd(sum + z + 4),
                                                _mm256_cvtps_pd(_mm_loadu_ps(row + z + 4))));
  }
  for (; z < samples; z++) sum[z] += row[z];
}

AVX2 void avx2_box_mean_float(const double *sum, int factor, float *out, int samples) {
  const __m256d divisor = _mm256_set1_pd((double)factor);
  int z = 0;
  for (; z + 4 <= samples; z += 4)
    _mm_storeu_ps(out + z, _mm256_cvtpd_ps(_mm256_div_pd(_mm256_loadu_pd(sum + z), divisor)));
  for (; z < samples; z++) out[z] = (float)(sum[z] / factor);
}

#else /* no AVX2 build: resample_uses_avx2 is 0, and these are never called */

void avx2_reduce_rows_u8(const uint8_t *const *rows, const int *coefficients, int points,
                         uint8_t *out, int samples) {
  abort();
}
void avx2_shrink_rows_u8(const uint8_t *const *rows, int factor, uint8_t *out, int samples) {
  abort();
}
void avx2_convolve_row(const uint8_t *row, int first, int width, size_t readable,
                       const int *starts, const int *phases, const HorizontalKernel *kernel,
                       int points, int box, uint8_t *out, int count) {
  abort();
}
void avx2_convolve_rows_2(const uint8_t *row, size_t rowBytes, int first, int width,
                          size_t readable, const int *starts, const int *phases,
                          const HorizontalKernel *kernel, int points, int box, uint8_t *out,
                          size_t outBytes, int count) {
  abort();
}
void avx2_reduce_rows_float(const float *const *rows, const double *weights, int points,
                            float *out, int samples) {
  abort();
}
void avx2_accumulate_float(double *sum, const float *row, int samples) { abort(); }
void avx2_shrink_columns_float(const float *row, int first, int width, size_t readable, int lo,
                               int count, int box, int bands, float *out) {
  abort();
}
void avx2_unpremultiply_row(const float *p, uint8_t *q, int samples, int bands) { abort(); }
void avx2_reduce_columns_float(const float *row, int first, int width, size_t readable,
                               const int *starts, const int *phases, const double *tables,
                               int points, int bands, float *out, int count) {
  abort();
}
void avx2_premultiply_row(const uint8_t *in, float *out, int samples, int bands,
                          const float *fractions) {
  abort();
}
void avx2_premultiply_accumulate(double *sum, const uint8_t *in, int samples, int bands,
                                 const float *fractions) {
  abort();
}
void avx2_premultiply_box(const uint8_t *const *rows, int factor, int samples, int bands,
                          const float *fractions, float *out) {
  abort();
}
void avx2_box_mean_float(const double *sum, int factor, float *out, int samples) { abort(); }

#endif
