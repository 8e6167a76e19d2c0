/* Repeats Little CMS 2.14 arithmetic (MIT License, Copyright (c) 1998-2022 Marti Maria
 * Saguer): see THIRD_PARTY_NOTICES.md. */
/* A CMYK profile's lcms transform (to XYZ for libvips's CMYK import, to sRGB for an
 * embedded CMYK profile) with the grid lcms would compute whole computed node by node,
 * only where pixels fall.
 *
 * Why: lcms optimises an 8-bit CMYK transform by sampling its whole pipeline on a
 * 17-point grid, 83,521 evaluations of the profile's own 4-D table in float (about
 * 18 ms for libvips's built-in CMYK profile to XYZ, 45 ms to sRGB), and then
 * interpolates in that grid. A photo touches few of its cells: dune-cmyk.jpg, all
 * 1.8 million pixels of it, needs about 5,000 of its nodes. Each node here is computed
 * the first time a pixel needs it, with the same value lcms would give it, and pixels
 * are interpolated in the grid exactly as lcms does; so the samples are lcms's.
 *
 * What lcms 2.14 does for cmsCreateTransform(in, TYPE_CMYK_8, out, TYPE_XYZ_16 or
 * TYPE_RGB_8, INTENT_RELATIVE_COLORIMETRIC, cmsFLAGS_NOCACHE) (cmsopt.c, cmsintrp.c,
 * cmslut.c), and this file repeats:
 * - No other optimisation takes a CMYK input (joining curves needs curves alone, the
 *   matrix-shaper and prelinearisation ones RGB), so OptimizeByResampling samples the
 *   pre-optimised pipeline on 17 points per channel (_cmsReasonableGridpointsByColorspace
 *   for 4 channels), no pre- or post-linearisation kept (no flags ask for them): each node
 *   at _cmsQuantizeVal(i, 17) per channel, evaluated in float (XFormSampler16: each input
 *   as (float)(v / 65535.0), each output _cmsQuickSaturateWord(out * 65535.0)).
 *   cmsFLAGS_NOOPTIMIZE gives the same pipeline (pre-optimised, not sampled), which a
 *   16-bit transform evaluates as _LUTeval16 does: inputs as (float)v / 65535.0f, outputs
 *   saturated the same way; so a node is that transform at the node's inputs, when the
 *   two float conversions agree on the 17 grid values (checked, else NULL).
 * - FixWhiteMisalignment: for RGB output, CMYK white (0, 0, 0, 0) is node 0, patched to
 *   RGB white when it is not white already; for XYZ output there is nothing to fix.
 * - Pixels are Eval4Inputs: tetrahedral interpolation in the two K slices around the
 *   pixel in 16.16 fixed point, then linear between them (ported below line for line,
 *   with lcms's integer wrap-around).
 * Checked against libvips (so lcms's own transform) on every combination of the grid's
 * levels, their neighbours and a million random values by
 * Tests/VipsTests/ICCTransformTests.swift and CMYKImportTests.swift.
 *
 * Threads: a node is one 64-bit atomic word (three samples and a ready bit); two threads
 * needing the same new node both compute it and store the same value. The sampling
 * transform is only read by cmsDoTransform (lcms 2.14, cmsFLAGS_NOCACHE).
 */
#include "CMYKGrid.h"
#include "LcmsArithmetic.h"
#include "ResampleKernels.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum {
  GRID = 17,
  NODES = GRID * GRID * GRID * GRID,
  /* Node strides for C, M, Y, K: C varies slowest, as cmsStageSampleCLut16bit lays out. */
  STRIDE_C = GRID * GRID * GRID,
  STRIDE_M = GRID * GRID,
  STRIDE_Y = GRID,
  STRIDE_K = 1,
};
#define READY (UINT64_C(1) << 48)

struct CMYKGrid {
  cmsHTRANSFORM sampler;  /* the same pipeline unoptimised, 16-bit in and out */
  int white_node;         /* RGB output: node 0 is white */
  cmsUInt16Number levels[GRID];
  atomic_int computed;
  _Atomic uint64_t nodes[NODES];
};

static void prepare_positions(void);

CMYKGrid *cmyk_grid_new(cmsHPROFILE input, cmsHPROFILE output, cmsUInt32Number output_format) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, prepare_positions);
  if (cmsGetColorSpace(input) != cmsSigCmykData) return NULL;
  cmsUInt32Number sampled;
  if (output_format == TYPE_XYZ_16)
    sampled = TYPE_XYZ_16;
  else if (output_format == TYPE_RGB_8)
    sampled = TYPE_RGB_16;
  else
    return NULL;
  CMYKGrid *grid = calloc(1, sizeof(CMYKGrid));
  if (!grid) return NULL;
  for (int i = 0; i < GRID; i++) {
    grid->levels[i] = lcms_quantize(i, GRID);
    if ((cmsFloat32Number)(grid->levels[i] / 65535.0) !=
        (cmsFloat32Number)grid->levels[i] / 65535.0F) {
      free(grid);
      return NULL;
    }
  }
  grid->white_node = output_format == TYPE_RGB_8;
  grid->sampler = cmsCreateTransform(input, TYPE_CMYK_16, output, sampled,
                                     INTENT_RELATIVE_COLORIMETRIC,
                                     cmsFLAGS_NOCACHE | cmsFLAGS_NOOPTIMIZE);
  if (!grid->sampler) {
    free(grid);
    return NULL;
  }
  return grid;
}

void cmyk_grid_free(CMYKGrid *grid) {
  if (!grid) return;
  cmsDeleteTransform(grid->sampler);
  free(grid);
}

int cmyk_grid_nodes_computed(CMYKGrid *grid) {
  return atomic_load_explicit(&grid->computed, memory_order_relaxed);
}

static uint64_t compute_node(CMYKGrid *grid, int index) {
  cmsUInt16Number in[4], out[3];
  int rest = index;
  for (int t = 3; t >= 0; t--) {
    in[t] = grid->levels[rest % GRID];
    rest /= GRID;
  }
  cmsDoTransform(grid->sampler, in, out, 1);
  if (grid->white_node && index == 0) out[0] = out[1] = out[2] = 0xffff;
  const uint64_t value = out[0] | (uint64_t)out[1] << 16 | (uint64_t)out[2] << 32 | READY;
  uint64_t empty = 0;
  if (atomic_compare_exchange_strong_explicit(&grid->nodes[index], &empty, value,
                                              memory_order_relaxed, memory_order_relaxed))
    atomic_fetch_add_explicit(&grid->computed, 1, memory_order_relaxed);
  return value;
}

static inline uint64_t node(CMYKGrid *grid, int index) {
  const uint64_t value = atomic_load_explicit(&grid->nodes[index], memory_order_relaxed);
  return value & READY ? value : compute_node(grid, index);
}

static inline int32_t sample(uint64_t node, int channel) {
  return (int32_t)((node >> (16 * channel)) & 0xffff);
}

/* _cmsToFixedDomain, in lcms's int arithmetic. */
static inline int32_t to_fixed_domain(int32_t a) { return a + ((a + 0x7fff) / 0xffff); }

/* Eval4Inputs's tetrahedral interpolation of three channels in one K slice: node `n0`,
 * then `a`, `b` and `c` (the corners one, two and three steps from it), each
 * difference times its rest (ra >= rb >= rc). */
static inline __attribute__((always_inline)) void tetrahedron(uint64_t n0, uint64_t a,
                                                              uint64_t b, uint64_t c,
                                                              int32_t ra, int32_t rb,
                                                              int32_t rc,
                                                              cmsUInt16Number result[3]) {
  for (int channel = 0; channel < 3; channel++) {
    const int32_t v0 = sample(n0, channel), va = sample(a, channel), vb = sample(b, channel),
                  vc = sample(c, channel);
    const int32_t rest = (int32_t)((uint32_t)(va - v0) * (uint32_t)ra +
                                   (uint32_t)(vb - va) * (uint32_t)rb +
                                   (uint32_t)(vc - vb) * (uint32_t)rc);
    result[channel] = (cmsUInt16Number)(v0 + ((to_fixed_domain(rest) + 0x8000) >> 16));
  }
}

/* Where an 8-bit input falls in the grid, as Eval4Inputs computes it from its 16-bit
 * value: the lower node, the step to the upper one (none at 255) and the rest, 0...65535. */
typedef struct {
  int low, step;
  int32_t rest;
} Position;

static Position positions[4][256]; /* per band (its stride), per byte value */

static void prepare_positions(void) {
  const int strides[4] = {STRIDE_C, STRIDE_M, STRIDE_Y, STRIDE_K};
  for (int band = 0; band < 4; band++)
    for (int v = 0; v < 256; v++) {
      const cmsUInt16Number input = LCMS_FROM_8_TO_16(v);
      const int32_t fixed = to_fixed_domain((int)input * (GRID - 1));
      positions[band][v] = (Position){.low = strides[band] * (fixed >> 16),
                                      .step = input == 0xffff ? 0 : strides[band],
                                      .rest = fixed & 0xffff};
    }
}

/* Puts the larger rest (and its step) first: a compare and two conditional moves. */
static inline __attribute__((always_inline)) void order(int32_t *r1, int *s1, int32_t *r2,
                                                        int *s2) {
  const int swap = *r2 > *r1;
  const int32_t r = *r1;
  const int s = *s1;
  *r1 = swap ? *r2 : r;
  *s1 = swap ? *s2 : s;
  *r2 = swap ? r : *r2;
  *s2 = swap ? s : *s2;
}

/* Eval4Inputs for one pixel of 8-bit CMYK: the same tetrahedron in both K slices (it
 * depends on the M, Y, K rests alone), then linear between them along C.
 *
 * Eval4Inputs picks the tetrahedron by six tests in turn, which is the three rests
 * sorted, largest first: its corners are the origin, then one step along the largest
 * rest's axis, then the second's, then the third's, and each difference is multiplied
 * by its rest. Sorted here without branches (a photo's rests fall in every order, and a
 * branch per pixel mispredicts). Where two rests are equal, Eval4Inputs and this sort
 * may order their axes differently, and the sum is the same: with ra = rb, the terms
 * (va - v0) ra + (vb - va) rb are (vb - v0) ra whichever corner `a` is, in lcms's
 * wrapping 32-bit arithmetic too, and the same for rb = rc with corner `b`. */
static inline void interpolate(CMYKGrid *grid, const VipsPel *pixel, cmsUInt16Number out[3]) {
  const Position k = positions[0][pixel[0]], x = positions[1][pixel[1]],
                 y = positions[2][pixel[2]], z = positions[3][pixel[3]];
  int32_t r1 = x.rest, r2 = y.rest, r3 = z.rest;
  int s1 = x.step, s2 = y.step, s3 = z.step;
  order(&r1, &s1, &r2, &s2);
  order(&r2, &s2, &r3, &s3);
  order(&r1, &s1, &r2, &s2);
  const int origin = x.low + y.low + z.low, a = origin + s1, b = a + s2, c = b + s3;
  const int K0 = k.low, K1 = k.low + k.step;
  cmsUInt16Number low[3], high[3];
  tetrahedron(node(grid, K0 + origin), node(grid, K0 + a), node(grid, K0 + b),
              node(grid, K0 + c), r1, r2, r3, low);
  tetrahedron(node(grid, K1 + origin), node(grid, K1 + a), node(grid, K1 + b),
              node(grid, K1 + c), r1, r2, r3, high);
  for (int i = 0; i < 3; i++) {
    /* LinearInterp */
    const uint32_t difference =
        (uint32_t)((int32_t)high[i] - (int32_t)low[i]) * (uint32_t)k.rest + 0x8000;
    out[i] = (cmsUInt16Number)((difference >> 16) + low[i]);
  }
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#define HAVE_AVX2_GRID 1
#include <immintrin.h>
#define AVX2 __attribute__((target("avx2")))

/* to_fixed_domain in eight lanes, in the same wrapping int arithmetic: C's division of
 * n = a + 0x7fff by 0xffff truncates toward zero, so it is |n| / 0xffff with n's sign,
 * and for every |n| <= 2^31, |n| / 0xffff = (|n| + (|n| >> 16) + 1) >> 16 in unsigned
 * 32-bit arithmetic (checked for all of them when this was written). */
AVX2 static inline __m256i to_fixed_domain8(__m256i a) {
  const __m256i n = _mm256_add_epi32(a, _mm256_set1_epi32(0x7fff));
  const __m256i m = _mm256_abs_epi32(n);
  const __m256i q = _mm256_srli_epi32(
      _mm256_add_epi32(_mm256_add_epi32(m, _mm256_srli_epi32(m, 16)), _mm256_set1_epi32(1)), 16);
  return _mm256_add_epi32(a, _mm256_sign_epi32(q, n));
}

/* tetrahedron() for one channel of eight pixels: the corners' samples and the rests as
 * 32-bit lanes, vpmulld keeping the low 32 bits of each product as lcms's int
 * arithmetic wraps. */
AVX2 static inline __m256i tetrahedron8(__m256i v0, __m256i va, __m256i vb, __m256i vc,
                                        __m256i ra, __m256i rb, __m256i rc) {
  const __m256i rest =
      _mm256_add_epi32(_mm256_add_epi32(_mm256_mullo_epi32(_mm256_sub_epi32(va, v0), ra),
                                        _mm256_mullo_epi32(_mm256_sub_epi32(vb, va), rb)),
                       _mm256_mullo_epi32(_mm256_sub_epi32(vc, vb), rc));
  const __m256i shifted =
      _mm256_srai_epi32(_mm256_add_epi32(to_fixed_domain8(rest), _mm256_set1_epi32(0x8000)), 16);
  return _mm256_and_si256(_mm256_add_epi32(v0, shifted), _mm256_set1_epi32(0xffff));
}

/* The nodes at eight indices as two vectors of eight lanes in the indices' order: their
 * low halves (samples 0 and 1) and their high ones (sample 2 and the ready bit). Each is
 * one relaxed atomic load (a node is either empty or its final value); eight loads put
 * together in registers measured faster than two vpgatherdq on the machine this was written on
 * (AMD Zen 3: 10.2 against 11.2 ns a pixel for the whole row). */
AVX2 static inline void load_nodes(CMYKGrid *grid, __m256i index, __m256i *low,
                                   __m256i *high) {
  int32_t at[8];
  _mm256_storeu_si256((__m256i *)at, index);
#define NODE(i) (long long)atomic_load_explicit(&grid->nodes[at[i]], memory_order_relaxed)
  const __m256 first = _mm256_castsi256_ps(_mm256_setr_epi64x(NODE(0), NODE(1), NODE(2), NODE(3)));
  const __m256 second =
      _mm256_castsi256_ps(_mm256_setr_epi64x(NODE(4), NODE(5), NODE(6), NODE(7)));
#undef NODE
  /* shuffle_ps takes the even (odd) words of both, lanes 0 1 4 5 | 2 3 6 7; the permute
   * puts them back in order. */
  *low = _mm256_permute4x64_epi64(_mm256_castps_si256(_mm256_shuffle_ps(first, second, 0x88)),
                                  0xD8);
  *high = _mm256_permute4x64_epi64(_mm256_castps_si256(_mm256_shuffle_ps(first, second, 0xDD)),
                                   0xD8);
}

/* Puts the larger rest (and its step) first in each lane, as order() does. */
AVX2 static inline void order8(__m256i *r1, __m256i *s1, __m256i *r2, __m256i *s2) {
  const __m256i swap = _mm256_cmpgt_epi32(*r2, *r1);
  const __m256i r = *r1, s = *s1;
  *r1 = _mm256_blendv_epi8(r, *r2, swap);
  *s1 = _mm256_blendv_epi8(s, *s2, swap);
  *r2 = _mm256_blendv_epi8(*r2, r, swap);
  *s2 = _mm256_blendv_epi8(*s2, s, swap);
}

/* interpolate() for eight pixels at a time, lane for lane the same arithmetic, while
 * eight remain. Eight pixels whose nodes are not all computed yet go to interpolate(),
 * which computes them. Returns how many pixels it did. */
AVX2 static int grid_row_avx2(CMYKGrid *grid, const VipsPel *in, int in_bands,
                              cmsUInt16Number *out, int width) {
  const __m256i offsets = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                                             _mm256_set1_epi32(in_bands));
  const __m256i byte = _mm256_set1_epi32(0xff), word = _mm256_set1_epi32(0xffff);
  const int strides[4] = {STRIDE_C, STRIDE_M, STRIDE_Y, STRIDE_K};
  int x = 0;
  unsigned long groups = 0;
  for (; x + 8 <= width; x += 8) {
    const VipsPel *p = in + (size_t)x * in_bands;
    const __m256i pixels = in_bands == 4
                               ? _mm256_loadu_si256((const __m256i *)p)
                               : _mm256_i32gather_epi32((const int *)p, offsets, 1);
    __m256i low[4], step[4], rest[4];
    for (int band = 0; band < 4; band++) {
      const __m256i v = _mm256_and_si256(_mm256_srli_epi32(pixels, 8 * band), byte);
      /* prepare_positions's fixed point, computed: the value's 16 bits (v x 257) times
       * 16, then to_fixed_domain of that (never negative here). */
      const __m256i scaled = _mm256_mullo_epi32(v, _mm256_set1_epi32(257 * (GRID - 1)));
      const __m256i fixed = to_fixed_domain8(scaled);
      const __m256i stride = _mm256_set1_epi32(strides[band]);
      low[band] = _mm256_mullo_epi32(_mm256_srli_epi32(fixed, 16), stride);
      rest[band] = _mm256_and_si256(fixed, word);
      step[band] = _mm256_andnot_si256(_mm256_cmpeq_epi32(v, byte), stride);
    }
    __m256i r1 = rest[1], r2 = rest[2], r3 = rest[3], s1 = step[1], s2 = step[2], s3 = step[3];
    order8(&r1, &s1, &r2, &s2);
    order8(&r2, &s2, &r3, &s3);
    order8(&r1, &s1, &r2, &s2);
    const __m256i origin = _mm256_add_epi32(_mm256_add_epi32(low[1], low[2]), low[3]);
    const __m256i a = _mm256_add_epi32(origin, s1), b = _mm256_add_epi32(a, s2),
                  c = _mm256_add_epi32(b, s3);
    const __m256i k0 = low[0], k1 = _mm256_add_epi32(low[0], step[0]);
    const __m256i corners[8] = {
        _mm256_add_epi32(k0, origin), _mm256_add_epi32(k0, a), _mm256_add_epi32(k0, b),
        _mm256_add_epi32(k0, c),      _mm256_add_epi32(k1, origin), _mm256_add_epi32(k1, a),
        _mm256_add_epi32(k1, b),      _mm256_add_epi32(k1, c)};
    __m256i lo[8], hi[8], ready = _mm256_set1_epi32(-1);
    for (int i = 0; i < 8; i++) {
      load_nodes(grid, corners[i], &lo[i], &hi[i]);
      ready = _mm256_and_si256(ready, hi[i]);
    }
    if (_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_slli_epi32(ready, 15))) != 0xff) {
      for (int i = 0; i < 8; i++) interpolate(grid, p + (size_t)i * in_bands, out + 3 * (x + i));
      continue;
    }
    int32_t samples[3][8];
    for (int channel = 0; channel < 3; channel++) {
      __m256i v[8];
      for (int i = 0; i < 8; i++)
        v[i] = channel == 0   ? _mm256_and_si256(lo[i], word)
               : channel == 1 ? _mm256_srli_epi32(lo[i], 16)
                              : _mm256_and_si256(hi[i], word);
      const __m256i below = tetrahedron8(v[0], v[1], v[2], v[3], r1, r2, r3);
      const __m256i above = tetrahedron8(v[4], v[5], v[6], v[7], r1, r2, r3);
      /* LinearInterp */
      const __m256i difference = _mm256_add_epi32(
          _mm256_mullo_epi32(_mm256_sub_epi32(above, below), rest[0]), _mm256_set1_epi32(0x8000));
      _mm256_storeu_si256(
          (__m256i *)samples[channel],
          _mm256_and_si256(_mm256_add_epi32(_mm256_srli_epi32(difference, 16), below), word));
    }
    cmsUInt16Number *q = out + 3 * x;
    for (int i = 0; i < 8; i++) {
      q[3 * i] = (cmsUInt16Number)samples[0][i];
      q[3 * i + 1] = (cmsUInt16Number)samples[1][i];
      q[3 * i + 2] = (cmsUInt16Number)samples[2][i];
    }
    groups++;
  }
  resample_vector_work_done(groups);
  return x;
}
#endif

void cmyk_grid_row(CMYKGrid *grid, const VipsPel *in, int in_bands, cmsUInt16Number *out,
                   int width) {
  int x = 0;
#ifdef HAVE_AVX2_GRID
  /* Counted (resample_uses_avx2), so that a test knows which path ran. */
  if (resample_uses_avx2()) x = grid_row_avx2(grid, in, in_bands, out, width);
#endif
  in += (size_t)x * in_bands;
  out += 3 * x;
  for (; x < width; x++, in += in_bands, out += 3) {
    /* A pixel like the one before it (flat areas, a photo's margins) gives its samples. */
    if (x > 0 && memcmp(in, in - in_bands, 4) == 0) {
      memcpy(out, out - 3, 3 * sizeof(cmsUInt16Number));
      continue;
    }
    interpolate(grid, in, out);
  }
}
