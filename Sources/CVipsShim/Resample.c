/* Downsizing of 8-bit pixels held in memory, with the arithmetic of libvips 8.14's
 * vips_resize (lanczos3 kernel, reducing gap 2): the same output sizes, the same integer
 * box shrink before each reduce, the same 65-phase tables of 12-bit fixed-point
 * coefficients, the same sampling positions, edge extension and rounding. The bytes
 * equal vips_resize's C path (liborc off) but where libvips's own regions restart its
 * accumulated sampling position: a row or column there is up to 2 levels off.
 *
 * Why not vips_resize itself: for the sizes a family makes (a few hundred pixels),
 * libvips's demand-driven regions cost more than the arithmetic (region buffers, hash
 * lookups, locks, a thread pool per computation); perf showed vips_reduceh and
 * vips_shrinkh plus that machinery as the largest share of a render. Here each pass
 * is one loop over contiguous memory, vertical pass first (as vips_resize does:
 * vips_reducev, then vips_reduceh), on the calling thread.
 *
 * Where the processor has AVX2, each pass hands its rows to a hand-written kernel of
 * ResampleKernels.c (resample_uses_avx2), which computes the same bytes (and floats);
 * the loops here are the fallback and the reference the tests pin the kernels to.
 */
#include "CVipsShim.h"
#include "EdgeExtension.h"
#include "Enlarge.h"
#include "ResampleKernels.h"

#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* libvips multiplies and adds separately: no fused multiply-add, or float sums would
 * round differently (a premultiplied 255 x 200/255 must stay 200, not 199.99998). */
#pragma STDC FP_CONTRACT OFF

enum {
  PHASES = 64,          /* VIPS_TRANSFORM_SCALE: sub-pixel positions per pixel */
  COEFFICIENT_SHIFT = 12 /* VIPS_INTERPOLATE_SHIFT: coefficients are x 4096 */
};

/* The lanczos3 weights of libvips's reduce for one phase, normalised to sum 1. */
static void lanczos3_weights(double *weights, int points, double shrink, double phase) {
  const double half = phase + points / 2.0 - 1;
  double sum = 0;
  for (int i = 0; i < points; i++) {
    const double xp = (i - half) / shrink;
    double l;
    if (xp == 0.0)
      l = 1.0;
    else if (xp < -3 || xp > 3)
      l = 0.0;
    else
      l = 3.0 * sin(M_PI * xp) * sin(M_PI * xp / 3.0) / (M_PI * M_PI * xp * xp);
    weights[i] = l;
    sum += l;
  }
  for (int i = 0; i < points; i++) weights[i] /= sum;
}

/* The weights of every phase: PHASES + 1 rows of `points` doubles (libvips's matrixf),
 * computed (2 x points x 65 calls of sin). */
static void compute_weight_tables(double *tables, int points, double shrink) {
  for (int phase = 0; phase <= PHASES; phase++)
    lanczos3_weights(tables + phase * points, points, shrink, (double)((float)phase / PHASES));
}

/* The weight tables of the last few (points, shrink) any thread made, process-wide: a
 * family's sizes resample a photo's two axes (and photos of one size) with the same
 * shrink. A ring of WEIGHT_CACHE_SIZE entries, read and replaced under a pthread mutex
 * (ThreadSanitizer sees it); callers get their own copy. */
enum { WEIGHT_CACHE_SIZE = 32 };
static struct {
  int points;
  double shrink;
  double *tables;
} weight_cache[WEIGHT_CACHE_SIZE];
static int weight_cache_next;
static pthread_mutex_t weight_cache_lock = PTHREAD_MUTEX_INITIALIZER;

/* Copies the cached tables of (points, shrink) into `tables`; 0 if none are cached. */
static int copy_cached_weights(double *tables, int points, double shrink, size_t bytes) {
  for (int i = 0; i < WEIGHT_CACHE_SIZE; i++)
    if (weight_cache[i].tables && weight_cache[i].points == points &&
        weight_cache[i].shrink == shrink) {
      memcpy(tables, weight_cache[i].tables, bytes);
      return 1;
    }
  return 0;
}

/* The weights of every phase, from the cache or computed (and then cached); the caller
 * frees them. */
static double *weight_tables(int points, double shrink) {
  const size_t bytes = sizeof(double) * (size_t)points * (PHASES + 1);
  double *tables = malloc(bytes);
  if (!tables) return NULL;
  pthread_mutex_lock(&weight_cache_lock);
  const int found = copy_cached_weights(tables, points, shrink, bytes);
  pthread_mutex_unlock(&weight_cache_lock);
  if (found) return tables;
  compute_weight_tables(tables, points, shrink);
  double *kept = malloc(bytes);
  if (!kept) return tables;
  memcpy(kept, tables, bytes);
  pthread_mutex_lock(&weight_cache_lock);
  int present = 0;
  for (int i = 0; i < WEIGHT_CACHE_SIZE; i++)
    if (weight_cache[i].tables && weight_cache[i].points == points &&
        weight_cache[i].shrink == shrink)
      present = 1;
  if (!present) {
    free(weight_cache[weight_cache_next].tables);
    weight_cache[weight_cache_next].points = points;
    weight_cache[weight_cache_next].shrink = shrink;
    weight_cache[weight_cache_next].tables = kept;
    weight_cache_next = (weight_cache_next + 1) % WEIGHT_CACHE_SIZE;
    kept = NULL;
  }
  pthread_mutex_unlock(&weight_cache_lock);
  free(kept);
  return tables;
}

int cvips_lanczos3_weight_tables(int points, double shrink, int cached, double *out) {
  if (points < 1 || !(shrink > 0)) return -1;
  if (!cached) {
    compute_weight_tables(out, points, shrink);
    return 0;
  }
  double *tables = weight_tables(points, shrink);
  if (!tables) return -1;
  memcpy(out, tables, sizeof(double) * (size_t)points * (PHASES + 1));
  free(tables);
  return 0;
}

/* The same in fixed point, x 4096 and truncated (libvips's matrixi). */
static int *coefficient_tables(int points, double shrink) {
  double *weights = weight_tables(points, shrink);
  int *tables = malloc(sizeof(int) * (size_t)points * (PHASES + 1));
  if (!tables || !weights) {
    free(tables);
    free(weights);
    return NULL;
  }
  for (int i = 0; i < points * (PHASES + 1); i++)
    tables[i] = (int)(weights[i] * (1 << COEFFICIENT_SHIFT));
  free(weights);
  return tables;
}

/* Whether every coefficient fits the vector kernels' 16-bit lanes. */
static int fits_in_16_bits(const int *coefficients, int count) {
  for (int i = 0; i < count; i++)
    if (coefficients[i] < INT16_MIN || coefficients[i] > INT16_MAX) return 0;
  return 1;
}

/* Where an output sample at `position` reads: its first input sample (in the
 * coordinates of the input extended by `margin` on the low side) and its table row. */
static inline void sample_position(double position, int *first, int *phase) {
  const int sub = (int)(position * PHASES * 2);
  *first = (int)position;
  *phase = ((sub & (PHASES * 2 - 1)) + 1) >> 1;
}

static inline uint8_t fixed_to_byte(int sum) {
  const int v = (sum + (1 << (COEFFICIENT_SHIFT - 1))) >> COEFFICIENT_SHIFT;
  return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

/* (sum + factor / 2) / factor, as libvips's box shrink rounds, with a multiply by
 * ceil(2^32 / factor) in place of the division. That is exact while the dividend stays
 * below 2^32 / factor; a box sum is below 256 x factor, so up to factors of 4095; past
 * that (a photo thousands of times wider than its miniature) it divides. */
static inline uint32_t box_mean(uint32_t sum, uint32_t factor, uint64_t reciprocal) {
  if (!reciprocal) return (sum + factor / 2) / factor;
  return (uint32_t)(((uint64_t)(sum + factor / 2) * reciprocal) >> 32);
}

static inline uint64_t box_reciprocal(uint32_t factor) {
  return factor < 4096 ? ((UINT64_C(1) << 32) + factor - 1) / factor : 0;
}

/* The scalar loops below get an auto-vectorised AVX2 build beside the baseline one,
 * chosen when the process starts (for the cases the hand-written kernels decline, and
 * for the scalar setting of cvips_resample_set_scalar). */
#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
/* A clone is chosen by an ifunc resolver, which runs while the dynamic loader relocates,
 * before a sanitizer's runtime is up: under TSan the test binary crashed there. */
#define NO_VECTOR_CLONES 1
#endif
#endif
#if defined(__x86_64__) && defined(__clang__) && !defined(NO_VECTOR_CLONES)
#define VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define VECTOR_CLONES
#endif

/* vips_shrinkv with ceil: the mean of each run of `factor` rows (the last row repeated
 * past the end), rounded half up. */
VECTOR_CLONES
static uint8_t *shrink_rows(const uint8_t *in, size_t stride, int rowBytes, int rows, int factor,
                            int *outRows) {
  const int count = (int)ceil((double)rows / factor);
  const uint64_t reciprocal = box_reciprocal(factor);
  uint8_t *out = malloc((size_t)rowBytes * count);
  uint32_t *sum = malloc(sizeof(uint32_t) * (size_t)rowBytes);
  if (!out || !sum) {
    free(out);
    free(sum);
    return NULL;
  }
  const uint8_t **rowsRead = NULL;
  if (factor <= 257 && resample_uses_avx2() && (rowsRead = malloc(sizeof(uint8_t *) * factor))) {
    for (int y = 0; y < count; y++) {
      for (int k = 0; k < factor; k++)
        rowsRead[k] = in + (size_t)clamp_index(y * factor + k, rows) * stride;
      avx2_shrink_rows_u8(rowsRead, factor, out + (size_t)y * rowBytes, rowBytes);
    }
    free(rowsRead);
    free(sum);
    *outRows = count;
    return out;
  }
  for (int y = 0; y < count; y++) {
    memset(sum, 0, sizeof(uint32_t) * (size_t)rowBytes);
    for (int k = 0; k < factor; k++) {
      const uint8_t *row = in + (size_t)clamp_index(y * factor + k, rows) * stride;
      for (int z = 0; z < rowBytes; z++) sum[z] += row[z];
    }
    uint8_t *q = out + (size_t)y * rowBytes;
    for (int z = 0; z < rowBytes; z++) q[z] = (uint8_t)box_mean(sum[z], factor, reciprocal);
  }
  free(sum);
  *outRows = count;
  return out;
}

/* A horizontal pass with the AVX2 kernel (see avx2_convolve_row), two rows at a time
 * (avx2_convolve_rows_2) and the last one alone when their count is odd: output
 * pixel o of a row reads the `points` pixels from column starts[o] on (of an image
 * `width` pixels wide; `in` holds its rows from column `base` on, `inWidth` pixels
 * each), with coefficient row phases[o] of `coefficients` (`phaseCount` rows), or with
 * ones and a box mean when `box`. 0 when out of memory or the coefficients do not fit. */
static int convolve_columns(const uint8_t *in, int inWidth, int base, int width, int rows,
                            int bands, const int *coefficients, int points, int phaseCount,
                            const int *starts, const int *phases, int box, int count,
                            uint8_t *out) {
  HorizontalKernel kernel = {bands, 0, NULL};
  int16_t *table = avx2_horizontal_table(coefficients, points, phaseCount, &kernel.groups);
  if (!table) return 0;
  kernel.table = table;
  const size_t rowBytes = (size_t)inWidth * bands, outBytes = (size_t)count * bands;
  int y = 0;
  for (; y + 2 <= rows; y += 2)
    avx2_convolve_rows_2(in + y * rowBytes, rowBytes, base, width, (rows - y) * rowBytes, starts,
                         phases, &kernel, points, box, out + y * outBytes, outBytes, count);
  for (; y < rows; y++)
    avx2_convolve_row(in + y * rowBytes, base, width, (rows - y) * rowBytes, starts, phases,
                      &kernel, points, box, out + y * outBytes, count);
  free(table);
  return 1;
}

/* shrink_columns with the AVX2 kernel (a box is a kernel of `factor` ones); 0 when it
 * is not for it. */
static int shrink_columns_vector(const uint8_t *in, int inWidth, int width, int rows, int bands,
                                 int factor, int first, int count, uint8_t *out) {
  if (bands > 4 || factor >= 1 << 15 || !resample_uses_avx2()) return 0;
  int *ones = malloc(sizeof(int) * (size_t)factor);
  int *starts = malloc(sizeof(int) * 2 * (size_t)count);
  int done = 0;
  if (ones && starts) {
    int *phases = starts + count;
    for (int k = 0; k < factor; k++) ones[k] = 1;
    for (int o = 0; o < count; o++) {
      starts[o] = (first + o) * factor;
      phases[o] = 0;
    }
    done = convolve_columns(in, inWidth, first * factor, width, rows, bands, ones, factor, 1,
                            starts, phases, factor, count, out);
  }
  free(ones);
  free(starts);
  return done;
}

/* vips_shrinkh with ceil, across rows of an image `width` pixels wide of `bands`
 * samples: the boxes `first` to `first + count - 1` of each row, read from `in`, which
 * holds the row's pixels from column `first * factor` on (every pixel those boxes
 * read), one row every `inWidth` pixels. */
VECTOR_CLONES
static uint8_t *shrink_columns(const uint8_t *in, int inWidth, int width, int rows, int bands,
                               int factor, int first, int count) {
  const int whole = width / factor; /* boxes with no pixel past the edge */
  const int origin = first * factor;
  const uint64_t reciprocal = box_reciprocal(factor);
  uint8_t *out = malloc((size_t)count * bands * rows);
  if (!out) return NULL;
  if (shrink_columns_vector(in, inWidth, width, rows, bands, factor, first, count, out))
    return out;
  for (int y = 0; y < rows; y++) {
    const uint8_t *row = in + (size_t)y * inWidth * bands;
    uint8_t *q = out + (size_t)y * count * bands;
    for (int o = 0; o < count; o++) {
      const int x = first + o;
      for (int b = 0; b < bands; b++) {
        uint32_t sum = 0;
        if (x < whole) {
          const uint8_t *p = row + (size_t)(x * factor - origin) * bands + b;
          for (int k = 0; k < factor; k++) sum += p[k * bands];
        } else {
          for (int k = 0; k < factor; k++)
            sum += row[(clamp_index(x * factor + k, width) - origin) * bands + b];
        }
        q[o * bands + b] = (uint8_t)box_mean(sum, factor, reciprocal);
      }
    }
  }
  return out;
}

/* The plan of one reduce (vips_reducev / vips_reduceh with gap 2). */
typedef struct {
  int size;         /* output samples along the axis */
  int box;          /* the integer box shrink done first (1: none) */
  double shrink;    /* what is left for the kernel after the box shrink */
  double offset;    /* libvips's hoffset / voffset */
  int points;       /* kernel taps */
} ReducePlan;

static ReducePlan reduce_plan(int count, double shrink) {
  ReducePlan plan;
  plan.size = (int)((double)count / shrink + 0.5);
  double extra = plan.size * shrink - count;
  plan.box = (int)floor((double)count / plan.size / 2.0);
  if (plan.box < 1) plan.box = 1;
  if (plan.box > 1) {
    shrink /= plan.box;
    extra /= plan.box;
  }
  plan.shrink = shrink;
  plan.offset = (1 + extra) / 2.0 - 1;
  plan.points = 2 * (int)rint(3 * shrink) + 1;
  return plan;
}

/* Where each output sample of a horizontal pass reads: `plan->size` first samples, then
 * `plan->size` table rows, in one allocation. The position accumulates from the first
 * sample, as libvips's does across a region that starts at 0. */
static int *sample_positions(const ReducePlan *plan) {
  int *positions = malloc(sizeof(int) * 2 * (size_t)plan->size);
  if (!positions) return NULL;
  double position = 0.5 * plan->shrink - 0.5 - plan->offset;
  for (int o = 0; o < plan->size; o++, position += plan->shrink)
    sample_position(position, &positions[o], &positions[plan->size + o]);
  return positions;
}

/* vips_reducev: rows of `rowBytes` samples, one every `stride` bytes of `in`; only
 * output rows `y0` to `y1 - 1` are made (the others of the whole output are skipped,
 * their positions still counted). Takes ownership of nothing. */
VECTOR_CLONES
static uint8_t *reduce_rows(const uint8_t *in, size_t stride, int rowBytes, int rows,
                            double shrink, int y0, int y1) {
  ReducePlan plan = reduce_plan(rows, shrink);
  uint8_t *boxed = NULL;
  if (plan.box > 1) {
    boxed = shrink_rows(in, stride, rowBytes, rows, plan.box, &rows);
    if (!boxed) return NULL;
    in = boxed;
    stride = (size_t)rowBytes;
  }
  if (plan.shrink == 1.0) {
    uint8_t *out = malloc((size_t)rowBytes * (y1 - y0));
    for (int y = y0; out && y < y1; y++)
      memcpy(out + (size_t)(y - y0) * rowBytes, in + (size_t)y * stride, (size_t)rowBytes);
    free(boxed);
    return out;
  }
  int *tables = coefficient_tables(plan.points, plan.shrink);
  uint8_t *out = malloc((size_t)rowBytes * (y1 - y0));
  int32_t *sum = malloc(sizeof(int32_t) * (size_t)rowBytes);
  if (!tables || !out || !sum) {
    free(tables);
    free(out);
    free(sum);
    free(boxed);
    return NULL;
  }
  const int margin = (int)ceil(plan.points / 2.0) - 1;
  const int vector = resample_uses_avx2() && plan.points <= 64 &&
                     fits_in_16_bits(tables, plan.points * (PHASES + 1));
  double position = 0.5 * plan.shrink - 0.5 - plan.offset;
  for (int y = 0; y < y1; y++, position += plan.shrink) {
    if (y < y0) continue;
    int first, phase;
    sample_position(position, &first, &phase);
    const int *c = tables + phase * plan.points;
    if (vector) {
      const uint8_t *rowsRead[64];
      for (int i = 0; i < plan.points; i++)
        rowsRead[i] = in + (size_t)clamp_index(first + i - margin, rows) * stride;
      avx2_reduce_rows_u8(rowsRead, c, plan.points, out + (size_t)(y - y0) * rowBytes, rowBytes);
      continue;
    }
    memset(sum, 0, sizeof(int32_t) * (size_t)rowBytes);
    for (int i = 0; i < plan.points; i++) {
      const uint8_t *row = in + (size_t)clamp_index(first + i - margin, rows) * stride;
      const int weight = c[i];
      for (int z = 0; z < rowBytes; z++) sum[z] += weight * row[z];
    }
    uint8_t *q = out + (size_t)(y - y0) * rowBytes;
    for (int z = 0; z < rowBytes; z++) q[z] = fixed_to_byte(sum[z]);
  }
  free(tables);
  free(sum);
  free(boxed);
  return out;
}

/* The columns after a horizontal pass's box shrink that its output columns `x0` to
 * `x1 - 1` read, `*lo` to `*hi`, for an image `width` pixels wide. */
static void column_span(const ReducePlan *plan, int width, int x0, int x1, int *lo, int *hi) {
  const int boxedWidth = plan->box > 1 ? (int)ceil((double)width / plan->box) : width;
  if (plan->shrink == 1.0) {
    *lo = x0;
    *hi = x1 - 1;
    return;
  }
  const int margin = (int)ceil(plan->points / 2.0) - 1;
  double position = 0.5 * plan->shrink - 0.5 - plan->offset;
  int first = 0, phase;
  for (int x = 0; x < x1; x++, position += plan->shrink) {
    sample_position(position, &first, &phase);
    if (x == x0) *lo = first - margin < 0 ? 0 : first - margin;
  }
  *hi = first - margin + plan->points - 1;
  if (*hi > boxedWidth - 1) *hi = boxedWidth - 1;
}

/* One row of vips_reduceh for a fixed band count, so the compiler unrolls the bands:
 * output columns x0 to x1 - 1, reading the row's columns from `base` on. */
#define REDUCE_ROW(BANDS)                                                                  \
  for (int x = x0; x < x1; x++) {                                                          \
    const int *c = tables + phases[x] * points;                                            \
    int32_t acc[BANDS] = {0};                                                              \
    const int start = firsts[x] - margin;                                                  \
    if (start >= 0 && start + points <= width) {                                           \
      const uint8_t *p = row + (start - base) * (BANDS);                                   \
      for (int i = 0; i < points; i++)                                                     \
        for (int b = 0; b < (BANDS); b++) acc[b] += c[i] * p[i * (BANDS) + b];             \
    } else {                                                                               \
      for (int i = 0; i < points; i++) {                                                   \
        const uint8_t *p = row + (clamp_index(start + i, width) - base) * (BANDS);         \
        for (int b = 0; b < (BANDS); b++) acc[b] += c[i] * p[b];                           \
      }                                                                                    \
    }                                                                                      \
    for (int b = 0; b < (BANDS); b++) q[(x - x0) * (BANDS) + b] = fixed_to_byte(acc[b]);   \
  }

/* vips_reduceh of an image `width` pixels wide, `bands` samples each: output columns
 * `x0` to `x1 - 1`. `in` holds what they read (see column_span): its rows are
 * `inWidth` pixels, from column `origin` of the image on. */
VECTOR_CLONES
static uint8_t *reduce_columns(const uint8_t *in, int inWidth, int origin, int width, int rows,
                               int bands, double shrink, int x0, int x1) {
  ReducePlan plan = reduce_plan(width, shrink);
  int lo, hi;
  column_span(&plan, width, x0, x1, &lo, &hi);
  int base = origin; /* the column of `in`'s first pixel, in the pass's input */
  uint8_t *boxed = NULL;
  if (plan.box > 1) {
    boxed = shrink_columns(in, inWidth, width, rows, bands, plan.box, lo, hi - lo + 1);
    if (!boxed) return NULL;
    in = boxed;
    inWidth = hi - lo + 1;
    base = lo;
    width = (int)ceil((double)width / plan.box);
  }
  const int count = x1 - x0;
  uint8_t *out = malloc((size_t)count * bands * rows);
  if (!out) {
    free(boxed);
    return NULL;
  }
  if (plan.shrink == 1.0) {
    for (int y = 0; y < rows; y++)
      memcpy(out + (size_t)y * count * bands, in + ((size_t)y * inWidth + (x0 - base)) * bands,
             (size_t)count * bands);
    free(boxed);
    return out;
  }
  const int points = plan.points;
  const int margin = (int)ceil(points / 2.0) - 1;
  int *tables = coefficient_tables(points, plan.shrink);
  int *firsts = sample_positions(&plan);
  if (!tables || !firsts) {
    free(tables);
    free(firsts);
    free(out);
    free(boxed);
    return NULL;
  }
  const int *phases = firsts + plan.size;
  if (bands <= 4 && resample_uses_avx2()) {
    /* Where each output pixel's taps start, and its phases. */
    int *starts = malloc(sizeof(int) * (size_t)count);
    int done = 0;
    if (starts) {
      for (int x = x0; x < x1; x++) starts[x - x0] = firsts[x] - margin;
      done = convolve_columns(in, inWidth, base, width, rows, bands, tables, points, PHASES + 1,
                              starts, phases + x0, 0, count, out);
    }
    free(starts);
    if (done) {
      free(tables);
      free(firsts);
      free(boxed);
      return out;
    }
  }
  for (int y = 0; y < rows; y++) {
    const uint8_t *row = in + (size_t)y * inWidth * bands;
    uint8_t *q = out + (size_t)y * count * bands;
    switch (bands) {
    case 1: REDUCE_ROW(1) break;
    case 2: REDUCE_ROW(2) break;
    case 3: REDUCE_ROW(3) break;
    case 4: REDUCE_ROW(4) break;
    default:
      for (int x = x0; x < x1; x++) {
        const int *c = tables + phases[x] * points;
        const int start = firsts[x] - margin;
        for (int b = 0; b < bands; b++) {
          int32_t acc = 0;
          for (int i = 0; i < points; i++)
            acc += c[i] * row[(clamp_index(start + i, width) - base) * bands + b];
          q[(x - x0) * bands + b] = fixed_to_byte(acc);
        }
      }
    }
  }
  free(tables);
  free(firsts);
  free(boxed);
  return out;
}

/* Whether `in` holds 8-bit samples, uncoded, in memory: what the in-memory paths read. */
static int uchar_in_memory(VipsImage *in) {
  return in->BandFmt == VIPS_FORMAT_UCHAR && in->Coding == VIPS_CODING_NONE &&
         (in->dtype == VIPS_IMAGE_SETBUF || in->dtype == VIPS_IMAGE_SETBUF_FOREIGN ||
          in->dtype == VIPS_IMAGE_MMAPIN) &&
         in->data;
}

/* Whether `in` is for the in-memory paths: 8-bit samples already in memory, shrinking
 * on both axes (or keeping one). Clamps the scales as vips_resize does: never below one
 * pixel on either axis. */
static int shrinks_in_memory(VipsImage *in, double *hscale, double *vscale) {
  if (!uchar_in_memory(in) || *hscale <= 0 || *vscale <= 0 || *hscale > 1 || *vscale > 1)
    return 0;
  if (*hscale < 1.0 / in->Xsize) *hscale = 1.0 / in->Xsize;
  if (*vscale < 1.0 / in->Ysize) *vscale = 1.0 / in->Ysize;
  return 1;
}

/* A `width` x `height` memory image of `format` samples with `in`'s other header fields
 * and metadata, its pixels allocated for the caller to fill (as vips_resize's output
 * carries its input's). */
static VipsImage *memory_image_like(VipsImage *in, int width, int height,
                                    VipsBandFormat format) {
  VipsImage *image = vips_image_new_memory();
  if (vips_image_pipelinev(image, VIPS_DEMAND_STYLE_ANY, in, NULL)) {
    g_object_unref(image);
    return NULL;
  }
  image->Xsize = width;
  image->Ysize = height;
  image->BandFmt = format;
  if (vips_image_write_prepare(image)) {
    g_object_unref(image);
    return NULL;
  }
  return image;
}

/* The float path of the same operations, for premultiplied pixels: libvips sums in
 * double and stores float between passes (its shrinkv, shrinkh, reducev and reduceh on
 * a float image). */

/* vips_premultiply (max alpha 255) of one row: colour x (alpha / 255) in float, alpha
 * kept. */
/* alpha / 255 for each alpha, as the float libvips computes per pixel. */
static float alpha_fractions[256];
static pthread_once_t alpha_fractions_once = PTHREAD_ONCE_INIT;
static void make_alpha_fractions(void) {
  for (int alpha = 0; alpha < 256; alpha++)
    alpha_fractions[alpha] = (float)((double)alpha / 255.0);
}

typedef double double4 __attribute__((vector_size(32)));
typedef float float4 __attribute__((vector_size(16)));

static void premultiply_row(const uint8_t *in, float *out, int samples, int bands, int vector) {
  pthread_once(&alpha_fractions_once, make_alpha_fractions);
  if (vector && (bands == 2 || bands == 4)) {
    avx2_premultiply_row(in, out, samples, bands, alpha_fractions);
    return;
  }
  if (bands == 4) {
    /* RGBA: one pixel a vector; alpha x 1 stays alpha. */
    for (int p = 0; p < samples; p += 4) {
      const float fraction = alpha_fractions[in[p + 3]];
      const float4 scale = {fraction, fraction, fraction, 1};
      const float4 pixel = {in[p], in[p + 1], in[p + 2], in[p + 3]};
      const float4 result = pixel * scale;
      memcpy(out + p, &result, sizeof result);
    }
    return;
  }
  for (int p = 0; p < samples; p += bands) {
    const uint8_t alpha = in[p + bands - 1];
    const float scale = alpha_fractions[alpha];
    for (int b = 0; b < bands - 1; b++) out[p + b] = in[p + b] * scale;
    out[p + bands - 1] = alpha;
  }
}

/* Rows the vertical pass reads: 8-bit rows premultiplied as they are read (so a whole
 * premultiplied copy of a large decode is never held). */
typedef struct {
  const uint8_t *bytes; /* the first sample read of row 0 */
  size_t stride;        /* bytes from one row to the next */
  int bands;
  float *scratch; /* one row */
} FloatRows;

static inline const float *float_row(const FloatRows *rows, int y, int rowSamples) {
  premultiply_row(rows->bytes + (size_t)y * rows->stride, rows->scratch, rowSamples,
                  rows->bands, 0);
  return rows->scratch;
}

/* The kernel's input rows (after the box shrink, if any), made when first read into a
 * ring of `slots` rows: the kernel reads rows in order (each output row's taps start no
 * earlier than the last's, and span at most `slots - 1` rows), so a row is only
 * overwritten once no later output row reads it. A whole float copy of a large decode
 * (20 MB for a 2140x1200 RGBA photo) is never held. */
typedef struct {
  float *rows;
  int *made; /* the row each slot holds, or -1 */
  int slots;
  int box;
  int sourceRows;
  double *sum;
  int vector; /* the AVX2 kernels */
} RowRing;

/* Inlined into each build of the pass below, so its loops get the AVX2 build too. */
static inline __attribute__((always_inline)) const float *ring_row(RowRing *ring,
                                                                   FloatRows *source, int j,
                                                                   int rowSamples) {
  const int slot = j % ring->slots;
  float *q = ring->rows + (size_t)slot * rowSamples;
  if (ring->made[slot] == j) return q;
  ring->made[slot] = j;
  if (ring->box == 1) {
    premultiply_row(source->bytes + (size_t)j * source->stride, q, rowSamples, source->bands,
                    ring->vector);
    return q;
  }
  double *sum = ring->sum;
  memset(sum, 0, sizeof(double) * (size_t)rowSamples);
  if (ring->vector && ring->box <= 64 && (source->bands == 2 || source->bands == 4)) {
    pthread_once(&alpha_fractions_once, make_alpha_fractions);
    const uint8_t *rowsRead[64];
    for (int k = 0; k < ring->box; k++)
      rowsRead[k] =
          source->bytes + (size_t)clamp_index(j * ring->box + k, ring->sourceRows) * source->stride;
    avx2_premultiply_box(rowsRead, ring->box, rowSamples, source->bands, alpha_fractions, q);
    return q;
  }
  if (ring->vector) {
    pthread_once(&alpha_fractions_once, make_alpha_fractions);
    for (int k = 0; k < ring->box; k++) {
      const int y = clamp_index(j * ring->box + k, ring->sourceRows);
      if (source->bands == 2 || source->bands == 4)
        avx2_premultiply_accumulate(sum, source->bytes + (size_t)y * source->stride, rowSamples,
                                    source->bands, alpha_fractions);
      else
        avx2_accumulate_float(sum, float_row(source, y, rowSamples), rowSamples);
    }
    avx2_box_mean_float(sum, ring->box, q, rowSamples);
    return q;
  }
  for (int k = 0; k < ring->box; k++) {
    const float *row =
        float_row(source, clamp_index(j * ring->box + k, ring->sourceRows), rowSamples);
    for (int z = 0; z < rowSamples; z++) sum[z] += row[z];
  }
  for (int z = 0; z < rowSamples; z++) q[z] = (float)(sum[z] / ring->box);
  return q;
}

/* vips_reducev in float of premultiplied rows: output rows `y0` to `y1 - 1` only (the
 * others' positions still counted), `rowSamples` samples each. */
VECTOR_CLONES
static float *reduce_rows_float(FloatRows source, int rowSamples, int rows, double shrink,
                                int y0, int y1) {
  ReducePlan plan = reduce_plan(rows, shrink);
  const int count = plan.box > 1 ? (int)ceil((double)rows / plan.box) : rows;
  RowRing ring = {NULL, NULL, plan.points + 1, plan.box, rows, NULL, resample_uses_avx2()};
  ring.rows = malloc(sizeof(float) * (size_t)rowSamples * ring.slots);
  ring.made = malloc(sizeof(int) * (size_t)ring.slots);
  ring.sum = malloc(sizeof(double) * (size_t)rowSamples);
  float *out = malloc(sizeof(float) * (size_t)rowSamples * (y1 - y0));
  double *tables = weight_tables(plan.points, plan.shrink);
  double *sum = malloc(sizeof(double) * (size_t)rowSamples);
  if (!ring.rows || !ring.made || !ring.sum || !out || !sum || !tables) {
    free(ring.rows);
    free(ring.made);
    free(ring.sum);
    free(out);
    free(tables);
    free(sum);
    return NULL;
  }
  for (int i = 0; i < ring.slots; i++) ring.made[i] = -1;
  /* Shrinking always leaves the kernel a shrink of more than 1 after the box (at most
   * half the shrink goes to the box): there is always a kernel to run. */
  const int margin = (int)ceil(plan.points / 2.0) - 1;
  double position = 0.5 * plan.shrink - 0.5 - plan.offset;
  for (int y = 0; y < y1; y++, position += plan.shrink) {
    if (y < y0) continue;
    int first, phase;
    sample_position(position, &first, &phase);
    const double *c = tables + phase * plan.points;
    if (ring.vector && plan.points <= 64) {
      /* The ring holds every row of one output row's taps at once (see RowRing). */
      const float *rowsRead[64];
      for (int i = 0; i < plan.points; i++)
        rowsRead[i] = ring_row(&ring, &source, clamp_index(first + i - margin, count), rowSamples);
      avx2_reduce_rows_float(rowsRead, c, plan.points, out + (size_t)(y - y0) * rowSamples,
                             rowSamples);
      continue;
    }
    memset(sum, 0, sizeof(double) * (size_t)rowSamples);
    for (int i = 0; i < plan.points; i++) {
      const float *row =
          ring_row(&ring, &source, clamp_index(first + i - margin, count), rowSamples);
      const double weight = c[i];
      for (int z = 0; z < rowSamples; z++) sum[z] += weight * row[z];
    }
    float *q = out + (size_t)(y - y0) * rowSamples;
    for (int z = 0; z < rowSamples; z++) q[z] = (float)sum[z];
  }
  free(tables);
  free(sum);
  free(ring.rows);
  free(ring.made);
  free(ring.sum);
  return out;
}

/* vips_reduceh in float (its box shrink first) of an image `width` pixels wide, `bands`
 * samples each: output columns `x0` to `x1 - 1`. `in` holds what they read (see
 * column_span): its rows are `inWidth` pixels, from column `origin` of the image on. */
VECTOR_CLONES
static float *reduce_columns_float(const float *in, int inWidth, int origin, int width, int rows,
                                   int bands, double shrink, int x0, int x1) {
  ReducePlan plan = reduce_plan(width, shrink);
  int lo, hi;
  column_span(&plan, width, x0, x1, &lo, &hi);
  int base = origin; /* the column of `in`'s first pixel, in the pass's input */
  float *boxed = NULL;
  if (plan.box > 1) {
    const int span = hi - lo + 1;
    boxed = malloc(sizeof(float) * (size_t)span * bands * rows);
    if (!boxed) return NULL;
    const int vector = bands <= 4 && resample_uses_avx2();
    for (int y = 0; y < rows; y++) {
      if (vector) {
        const size_t rowSamples = (size_t)inWidth * bands;
        avx2_shrink_columns_float(in + y * rowSamples, origin, width, (rows - y) * rowSamples, lo,
                                  span, plan.box, bands, boxed + (size_t)y * span * bands);
        continue;
      }
      const float *row = in + (size_t)y * inWidth * bands;
      float *q = boxed + (size_t)y * span * bands;
      for (int x = lo; x <= hi; x++)
        for (int b = 0; b < bands; b++) {
          double sum = 0;
          for (int k = 0; k < plan.box; k++)
            sum += row[(clamp_index(x * plan.box + k, width) - origin) * bands + b];
          q[(x - lo) * bands + b] = (float)(sum / plan.box);
        }
    }
    in = boxed;
    inWidth = span;
    base = lo;
    width = (int)ceil((double)width / plan.box);
  }
  const int count = x1 - x0;
  float *out = malloc(sizeof(float) * (size_t)count * bands * rows);
  if (!out) {
    free(boxed);
    return NULL;
  }
  /* As in the vertical pass, the kernel always has a shrink of more than 1 left. */
  const int points = plan.points;
  const int margin = (int)ceil(points / 2.0) - 1;
  double *tables = weight_tables(points, plan.shrink);
  int *firsts = sample_positions(&plan);
  if (!tables || !firsts) {
    free(tables);
    free(firsts);
    free(out);
    free(boxed);
    return NULL;
  }
  const int *phases = firsts + plan.size;
  int *starts = NULL;
  if (bands <= 4 && resample_uses_avx2() && (starts = malloc(sizeof(int) * (size_t)count))) {
    for (int x = x0; x < x1; x++) starts[x - x0] = firsts[x] - margin;
    const size_t rowSamples = (size_t)inWidth * bands;
    for (int y = 0; y < rows; y++)
      avx2_reduce_columns_float(in + y * rowSamples, base, width, (rows - y) * rowSamples, starts,
                                phases + x0, tables, points, bands, out + (size_t)y * count * bands,
                                count);
    free(starts);
    free(firsts);
    free(tables);
    free(boxed);
    return out;
  }
  for (int y = 0; y < rows; y++) {
    const float *row = in + (size_t)y * inWidth * bands;
    float *q = out + (size_t)y * count * bands;
    for (int x = x0; x < x1; x++) {
      const double *c = tables + phases[x] * points;
      const int start = firsts[x] - margin;
      const int inside = start >= 0 && start + points <= width;
      float *qx = q + (x - x0) * bands;
      if (inside && bands == 4) {
        /* RGBA: the four bands' sums side by side, each in the scalar loop's order. */
        const float *p = row + (start - base) * 4;
        double4 sum = {0, 0, 0, 0};
        for (int i = 0; i < points; i++) {
          float4 pixel;
          memcpy(&pixel, p + i * 4, sizeof pixel);
          const double4 weight = {c[i], c[i], c[i], c[i]};
          sum += weight * __builtin_convertvector(pixel, double4);
        }
        const float4 result = __builtin_convertvector(sum, float4);
        memcpy(qx, &result, sizeof result);
        continue;
      }
      for (int b = 0; b < bands; b++) {
        double sum = 0;
        if (inside) {
          const float *p = row + (start - base) * bands + b;
          for (int i = 0; i < points; i++) sum += c[i] * p[i * bands];
        } else {
          for (int i = 0; i < points; i++)
            sum += c[i] * row[(clamp_index(start + i, width) - base) * bands + b];
        }
        qx[b] = (float)sum;
      }
    }
  }
  free(firsts);
  free(tables);
  free(boxed);
  return out;
}

static int resized_length(int length, double scale);

/* Whether the window is not inside the resize of `in` at these scales, with libvips's
 * error saying so. */
static int window_outside(VipsImage *in, double hscale, double vscale, int left, int top,
                          int width, int height) {
  const int fullWidth = resized_length(in->Xsize, hscale);
  const int fullHeight = resized_length(in->Ysize, vscale);
  if (left >= 0 && top >= 0 && width > 0 && height > 0 && left + width <= fullWidth &&
      top + height <= fullHeight)
    return 0;
  vips_error("resize", "the window %dx%d at (%d, %d) is not inside the %dx%d resize", width,
             height, left, top, fullWidth, fullHeight);
  return 1;
}

/* The input columns that output columns `left` to `left + width - 1` of a horizontal
 * resize of `in` read: `*origin` on, `*span` of them (the window's own when the width
 * is kept). */
static void columns_read(VipsImage *in, double hscale, int left, int width, int *origin,
                         int *span) {
  *origin = left;
  *span = width;
  if (hscale >= 1.0) return;
  ReducePlan plan = reduce_plan(in->Xsize, 1.0 / hscale);
  int lo, hi;
  column_span(&plan, in->Xsize, left, left + width, &lo, &hi);
  *origin = lo * plan.box;
  const int end = (hi + 1) * plan.box;
  *span = (end < in->Xsize ? end : in->Xsize) - *origin;
}

/* vips_premultiply then vips_resize (float) of an 8-bit image with alpha, the window
 * `width` x `height` at (`left`, `top`) of the result only: the premultiplied floats,
 * packed rows of in->Bands samples, for the caller to free. Returns 1 (and *pixels
 * NULL) when `in` is not for this path, -1 with libvips's error when the window is not
 * inside the resize. */
static int premultiplied_window_pixels(VipsImage *in, double hscale, double vscale, int left,
                                       int top, int width, int height, float **pixels) {
  *pixels = NULL;
  const int bands = in->Bands;
  if (window_outside(in, hscale, vscale, left, top, width, height)) return -1;
  int origin, span;
  columns_read(in, hscale, left, width, &origin, &span);
  const int spanSamples = span * bands;
  float *floats = NULL;
  FloatRows source = {VIPS_IMAGE_ADDR(in, origin, 0), VIPS_IMAGE_SIZEOF_LINE(in), bands, NULL};
  if (vscale < 1.0) {
    source.scratch = malloc(sizeof(float) * (size_t)spanSamples);
    if (source.scratch)
      floats = reduce_rows_float(source, spanSamples, in->Ysize, 1.0 / vscale, top, top + height);
    free(source.scratch);
  } else {
    floats = malloc(sizeof(float) * (size_t)spanSamples * height);
    for (int y = 0; floats && y < height; y++)
      premultiply_row(source.bytes + (size_t)(top + y) * source.stride,
                      floats + (size_t)y * spanSamples, spanSamples, bands, resample_uses_avx2());
  }
  if (!floats) goto oom;
  if (hscale < 1.0) {
    float *next = reduce_columns_float(floats, span, origin, in->Xsize, height, bands,
                                       1.0 / hscale, left, left + width);
    free(floats);
    if (!(floats = next)) goto oom;
  }
  *pixels = floats;
  return 0;

oom:
  vips_error("resize", "out of memory resizing a %dx%d image", in->Xsize, in->Ysize);
  return -1;
}

/* Whether `in` is for the premultiplied float path (alpha, not tagged 16-bit, shrinking
 * in memory); clamps the scales as shrinks_in_memory does. */
static int for_the_float_path(VipsImage *in, double *hscale, double *vscale) {
  /* libvips takes 65535 as opaque for images tagged 16-bit, whatever their format. */
  return in->Type != VIPS_INTERPRETATION_RGB16 && in->Type != VIPS_INTERPRETATION_GREY16 &&
         in->Bands >= 2 && shrinks_in_memory(in, hscale, vscale);
}

/* vips_premultiply then vips_resize (float) of an 8-bit image with alpha: the
 * premultiplied floats, `*width` x `*height` pixels of in->Bands samples, for the caller
 * to free. Returns 1 (and *pixels NULL) when `in` is not for this path. */
int cvips_resize_premultiplied_float_pixels(VipsImage *in, double hscale, double vscale,
                                            float **pixels, int *width, int *height) {
  *pixels = NULL;
  if (!for_the_float_path(in, &hscale, &vscale)) return 1;
  *width = resized_length(in->Xsize, hscale);
  *height = resized_length(in->Ysize, vscale);
  return premultiplied_window_pixels(in, hscale, vscale, 0, 0, *width, *height, pixels);
}

/* The window's premultiplied floats (see premultiplied_window_pixels) and a memory image
 * of `format` samples, the window's size, for them. 1 or -1 as that, with nothing to
 * free. */
static int premultiplied_resize(VipsImage *in, double hscale, double vscale, int left, int top,
                                int width, int height, VipsBandFormat format, float **pixels,
                                VipsImage **image) {
  *pixels = NULL;
  if (!for_the_float_path(in, &hscale, &vscale)) return 1;
  const int status =
      premultiplied_window_pixels(in, hscale, vscale, left, top, width, height, pixels);
  if (status) return status;
  if (!(*image = memory_image_like(in, width, height, format))) {
    free(*pixels);
    return -1;
  }
  return 0;
}

int cvips_resize_premultiplied_float_in_memory(VipsImage *in, VipsImage **out, double hscale,
                                               double vscale) {
  float *pixels;
  VipsImage *image;
  *out = NULL;
  if (!for_the_float_path(in, &hscale, &vscale)) return 1;
  /* As vips_premultiply's output: float samples, the input's interpretation. */
  const int status = premultiplied_resize(in, hscale, vscale, 0, 0,
                                          resized_length(in->Xsize, hscale),
                                          resized_length(in->Ysize, vscale), VIPS_FORMAT_FLOAT,
                                          &pixels, &image);
  if (status) return status;
  const size_t rowBytes = sizeof(float) * (size_t)image->Xsize * in->Bands;
  for (int y = 0; y < image->Ysize; y++)
    memcpy(VIPS_IMAGE_ADDR(image, 0, y), (const uint8_t *)pixels + y * rowBytes, rowBytes);
  free(pixels);
  *out = image;
  return 0;
}

int cvips_resize_premultiplied_uchar_in_memory_window(VipsImage *in, VipsImage **out,
                                                      double hscale, double vscale, int left,
                                                      int top, int width, int height) {
  float *pixels;
  VipsImage *image;
  *out = NULL;
  const int status = premultiplied_resize(in, hscale, vscale, left, top, width, height,
                                          in->BandFmt, &pixels, &image);
  if (status) return status;
  const int bands = in->Bands;
  width = image->Xsize;
  height = image->Ysize;
  /* vips_unpremultiply (float: no division where alpha is under 0.01), then
   * vips_cast to 8 bits (clipped, truncated). */
  const int vector = (bands == 2 || bands == 4) && resample_uses_avx2();
  for (int y = 0; y < height; y++) {
    const float *p = pixels + (size_t)y * width * bands;
    uint8_t *q = VIPS_IMAGE_ADDR(image, 0, y);
    if (vector) {
      avx2_unpremultiply_row(p, q, width * bands, bands);
      continue;
    }
    for (int x = 0; x < width; x++, p += bands, q += bands) {
      const float alpha = p[bands - 1];
      const float factor = fabsf(alpha) < 0.01f ? 0 : (float)(255.0 / alpha);
      for (int b = 0; b < bands - 1; b++) {
        const double v = (double)(factor * p[b]);
        q[b] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
      }
      const double a = (double)(alpha < 0 ? 0 : alpha > 255 ? 255 : alpha);
      q[bands - 1] = (uint8_t)a;
    }
  }
  free(pixels);
  *out = image;
  return 0;
}

int cvips_resize_premultiplied_uchar_in_memory(VipsImage *in, VipsImage **out, double hscale,
                                               double vscale) {
  *out = NULL;
  if (!for_the_float_path(in, &hscale, &vscale)) return 1;
  return cvips_resize_premultiplied_uchar_in_memory_window(
      in, out, hscale, vscale, 0, 0, resized_length(in->Xsize, hscale),
      resized_length(in->Ysize, vscale));
}

/* The length vips_resize gives `length` pixels at `scale`: its reduce's size below 1,
 * the affine's VIPS_ROUND_INT(length x scale) above. */
static int resized_length(int length, double scale) {
  if (scale > 1.0) return (int)(length * scale + 0.5);
  return scale < 1.0 ? reduce_plan(length, 1.0 / scale).size : length;
}

/* Whether `in` is for the in-memory enlargement (Enlarge.c): 8-bit samples in memory,
 * scales of at least 1 on both axes and above 1 on one (vips_resize's affine alone, no
 * reduce before it), and no more than vips_resize's largest scale, 10,000,000 (above it
 * libvips refuses the scale, and so does this path, by leaving it to libvips). */
static int enlarges_in_memory(VipsImage *in, double hscale, double vscale) {
  return uchar_in_memory(in) && hscale >= 1.0 && vscale >= 1.0 &&
         (hscale > 1.0 || vscale > 1.0) && hscale <= 10000000.0 && vscale <= 10000000.0 &&
         (double)in->Xsize * hscale < INT_MAX / 128 && (double)in->Ysize * vscale < INT_MAX / 128;
}

/* The window of an enlargement, as a memory image. */
static int enlarge_window(VipsImage *in, VipsImage **out, double hscale, double vscale,
                          int left, int top, int width, int height) {
  if (window_outside(in, hscale, vscale, left, top, width, height)) return -1;
  VipsImage *image = memory_image_like(in, width, height, in->BandFmt);
  if (!image) return -1;
  if (bicubic_enlarge(VIPS_IMAGE_ADDR(in, 0, 0), VIPS_IMAGE_SIZEOF_LINE(in), in->Xsize,
                      in->Ysize, in->Bands, hscale, vscale, left, top, width, height,
                      VIPS_IMAGE_ADDR(image, 0, 0))) {
    g_object_unref(image);
    vips_error("resize", "out of memory enlarging a %dx%d image", in->Xsize, in->Ysize);
    return -1;
  }
  *out = image;
  return 0;
}

int cvips_resize_uchar_in_memory(VipsImage *in, VipsImage **out, double hscale, double vscale) {
  *out = NULL;
  if (!enlarges_in_memory(in, hscale, vscale) && !shrinks_in_memory(in, &hscale, &vscale))
    return 1; /* the caller uses vips_resize */
  return cvips_resize_uchar_in_memory_window(in, out, hscale, vscale, 0, 0,
                                             resized_length(in->Xsize, hscale),
                                             resized_length(in->Ysize, vscale));
}

int cvips_resize_uchar_in_memory_window(VipsImage *in, VipsImage **out, double hscale,
                                        double vscale, int left, int top, int width,
                                        int height) {
  *out = NULL;
  if (enlarges_in_memory(in, hscale, vscale))
    return enlarge_window(in, out, hscale, vscale, left, top, width, height);
  if (!shrinks_in_memory(in, &hscale, &vscale)) return 1; /* the caller uses vips_resize */
  const int bands = in->Bands;
  if (window_outside(in, hscale, vscale, left, top, width, height)) return -1;
  int origin, span;
  columns_read(in, hscale, left, width, &origin, &span);
  const size_t spanBytes = (size_t)span * bands;
  const uint8_t *pixels = VIPS_IMAGE_ADDR(in, origin, 0);
  size_t stride = VIPS_IMAGE_SIZEOF_LINE(in);
  uint8_t *vertical = NULL;
  if (vscale < 1.0) {
    vertical = reduce_rows(pixels, stride, (int)spanBytes, in->Ysize, 1.0 / vscale, top,
                           top + height);
  } else {
    /* Rows kept: the window's rows, packed, for the horizontal pass. */
    vertical = malloc(spanBytes * height);
    for (int y = 0; vertical && y < height; y++)
      memcpy(vertical + y * spanBytes, pixels + (size_t)(top + y) * stride, spanBytes);
  }
  if (!vertical) goto oom;
  pixels = vertical;
  uint8_t *horizontal = NULL;
  if (hscale < 1.0) {
    horizontal = reduce_columns(pixels, span, origin, in->Xsize, height, bands, 1.0 / hscale,
                                left, left + width);
    if (!horizontal) goto oom;
    pixels = horizontal;
  }

  VipsImage *image = memory_image_like(in, width, height, in->BandFmt);
  if (!image) {
    free(vertical);
    free(horizontal);
    return -1;
  }
  const size_t rowBytes = (size_t)width * bands;
  for (int y = 0; y < height; y++)
    memcpy(VIPS_IMAGE_ADDR(image, 0, y), pixels + y * rowBytes, rowBytes);
  free(vertical);
  free(horizontal);
  *out = image;
  return 0;

oom:
  free(vertical);
  vips_error("resize", "out of memory resizing a %dx%d image", in->Xsize, in->Ysize);
  return -1;
}
