/* Repeats Little CMS 2.14 arithmetic (MIT License, Copyright (c) 1998-2022 Marti Maria
 * Saguer): see THIRD_PARTY_NOTICES.md. */
/* An RGB matrix-shaper profile (TRC curves and colorants, the kind almost every camera
 * and editor embeds: sRGB, Adobe RGB, Display P3) to libvips's built-in sRGB, 8-bit in
 * and out, as the tables lcms 2.14 computes when it optimises that transform, computed
 * here without lcms building the transform.
 *
 * Why: cmsCreateTransform from such a profile to libvips's sRGB costs about 8 ms, most
 * of it reversing the sRGB profile's three 1024-entry TRC tables (cmsReverseToneCurveEx,
 * 4096 points each) and tabulating them again (16,385 points each): work on the OUTPUT
 * profile, the same for every input profile. Here that output side is computed once per
 * process; what depends on the input profile is 768 curve evaluations and a matrix
 * product (about 0.05 ms). The transform is then three table lookups and a fixed-point
 * matrix per pixel, in one loop over the row (alpha copied in the same pass).
 *
 * What lcms does for cmsCreateTransform(in, TYPE_RGB_8, srgb, TYPE_RGB_8,
 * INTENT_RELATIVE_COLORIMETRIC, cmsFLAGS_NOCACHE) (cmsio1.c, cmscnvrt.c, cmsopt.c of
 * 2.14), and this file repeats:
 * - The pipeline is [input TRCs, input colorants x InpAdj, inverse of sRGB's colorants x
 *   OutpAdj, sRGB's TRCs reversed]: for relative colorimetric between two XYZ-PCS
 *   profiles there is no conversion stage.
 * - PreOptimize multiplies the two matrices (_cmsMAT3per(out, in)). A product within
 *   1e-5 of identity (isFloatMatrixIdentity), or identity by _cmsMAT3isIdentity, leaves
 *   the curves alone: OptimizeByJoiningCurves samples them joined at 4096 points (in
 *   float, saturated to 16 bits), then tabulates that curve at the 256 8-bit inputs
 *   (cmsEvalToneCurve16), or gives the identity when all three are linear.
 * - Otherwise OptimizeMatrixShaper: a first shaper per channel (the input TRC at
 *   i / 255, in 1.14 fixed point), the product matrix in 1.14 fixed point, and a second
 *   shaper per channel (the reversed sRGB TRC at i / 16384, quantised to 8 bits), used
 *   as MatShaperEval16 does: round, shift by 14, clip to 0...16384.
 * The result is the bytes of lcms's transform (and so of vips_icc_transform):
 * Tests/VipsTests/ICCTransformTests.swift compares all 2^24 colours through the
 * fixtures' profiles and libvips's built-in P3 and sRGB with vips_icc_transform.
 *
 * Not for this file (NULL, the caller builds an lcms transform): a profile with a LUT
 * (A2B0, A2B1 or D2B1, which lcms prefers for relative intent), a Lab PCS, a device
 * link, abstract or named-colour class, grey, or missing colorants or TRCs.
 */
#include "CVipsShim.h"
#include "MatrixShaper.h"
#include "LcmsArithmetic.h"
#include "ResampleKernels.h"

#include <lcms2_plugin.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* lcms's constants (lcms2_internal.h, cmsio1.c, cmsopt.c). */
#define MAX_ENCODEABLE_XYZ (1.0 + 32767.0 / 32768.0)
#define INPUT_ADJUST (1.0 / MAX_ENCODEABLE_XYZ)
#define OUTPUT_ADJUST (MAX_ENCODEABLE_XYZ)
#define PRELINEARIZATION_POINTS 4096

static int32_t to_fixed14(double x) { return (int32_t)floor(x * 16384.0 + 0.5); }

struct MatrixShaper {
  int curves_only;         /* the matrices cancelled: one table per channel */
  uint8_t curve[3][256];   /* curves_only: the output byte for each input byte */
  int32_t first[3][256];   /* else: the input TRCs in 1.14 fixed point */
  int32_t matrix[3][3];    /* the product matrix in 1.14 fixed point */
};

/* The output side, libvips's built-in sRGB, computed once per process. */
static struct {
  int ready;
  cmsMAT3 inverse;               /* its colorants inverted, times OUTPUT_ADJUST */
  cmsToneCurve *reversed[3];     /* its TRCs reversed (cmsReverseToneCurve) */
  uint8_t second[3][16385];      /* FillSecondShaper for 8-bit output */
  uint8_t past_second[4];        /* read (and masked off) by the AVX2 row's gathers */
} srgb;

/* ReadICCMatrixRGB2XYZ: the colorants as columns. */
static int read_colorants(cmsHPROFILE profile, cmsMAT3 *matrix) {
  const cmsCIEXYZ *red = cmsReadTag(profile, cmsSigRedColorantTag);
  const cmsCIEXYZ *green = cmsReadTag(profile, cmsSigGreenColorantTag);
  const cmsCIEXYZ *blue = cmsReadTag(profile, cmsSigBlueColorantTag);
  if (!red || !green || !blue) return 0;
  *matrix = (cmsMAT3){{{{red->X, green->X, blue->X}},
                       {{red->Y, green->Y, blue->Y}},
                       {{red->Z, green->Z, blue->Z}}}};
  return 1;
}

static int read_curves(cmsHPROFILE profile, cmsToneCurve *curves[3]) {
  curves[0] = cmsReadTag(profile, cmsSigRedTRCTag);
  curves[1] = cmsReadTag(profile, cmsSigGreenTRCTag);
  curves[2] = cmsReadTag(profile, cmsSigBlueTRCTag);
  return curves[0] && curves[1] && curves[2];
}

/* Whether lcms builds `profile`'s input side as BuildRGBInputMatrixShaper does. */
static int is_plain_matrix_shaper(cmsHPROFILE profile) {
  const cmsProfileClassSignature class = cmsGetDeviceClass(profile);
  return cmsGetColorSpace(profile) == cmsSigRgbData && cmsGetPCS(profile) == cmsSigXYZData &&
         class != cmsSigLinkClass && class != cmsSigAbstractClass &&
         class != cmsSigNamedColorClass && !cmsIsTag(profile, cmsSigAToB0Tag) &&
         !cmsIsTag(profile, cmsSigAToB1Tag) && !cmsIsTag(profile, cmsSigDToB0Tag) &&
         !cmsIsTag(profile, cmsSigDToB1Tag);
}

/* cmsReverseToneCurveEx(4096, curve) for a tabulated curve, the same table: for each
 * output point lcms searches the input table from its top (bottom, for a descending
 * table) for the first interval holding it, 4096 times 1024 steps for libvips's sRGB;
 * here each interval, in that same order, claims the points it holds that no earlier
 * one did. A parametric curve is reversed by lcms itself (analytically). */
static cmsToneCurve *reverse_curve(const cmsToneCurve *curve) {
  enum { POINTS = 4096 };
  const cmsUInt32Number entries = cmsGetToneCurveEstimatedTableEntries(curve);
  const cmsUInt16Number *table = cmsGetToneCurveEstimatedTable(curve);
  if (cmsGetToneCurveParametricType(curve) > 0 || entries < 2 || !table)
    return cmsReverseToneCurveEx(POINTS, curve);
  const int domain = (int)entries - 1;
  const int ascending = !cmsIsToneCurveDescending(curve);
  int interval[POINTS];
  for (int i = 0; i < POINTS; i++) interval[i] = -1;
  /* GetInterval's order: from the top for a table ascending overall, else from 0. */
  const int from_top = table[0] < table[domain];
  for (int n = 0; n < domain; n++) {
    const int j = from_top ? domain - 1 - n : n;
    const int y0 = table[j], y1 = table[j + 1];
    const double low = y0 <= y1 ? y0 : y1, high = y0 <= y1 ? y1 : y0;
    /* The points i * 65535 / 4095 in [low, high], found near their estimate and then
     * checked with lcms's own comparison. */
    int first = (int)floor(low * (POINTS - 1) / 65535.0) - 1;
    if (first < 0) first = 0;
    for (int i = first; i < POINTS; i++) {
      const double y = (double)i * 65535.0 / (POINTS - 1);
      if (y > high) break;
      if (y >= low && interval[i] < 0) interval[i] = j;
    }
  }
  cmsUInt16Number reversed[POINTS];
  double a = 0, b = 0;
  for (int i = 0; i < POINTS; i++) {
    const double y = (double)i * 65535.0 / (POINTS - 1);
    const int j = interval[i];
    if (j >= 0) {
      const double x1 = table[j], x2 = table[j + 1];
      const double y1 = (double)(j * 65535.0) / domain, y2 = (double)((j + 1) * 65535.0) / domain;
      if (x1 == x2) {
        reversed[i] = lcms_quick_saturate_word(ascending ? y2 : y1);
        continue;
      }
      a = (y2 - y1) / (x2 - x1);
      b = y2 - a * x2;
    }
    reversed[i] = lcms_quick_saturate_word(a * y + b);
  }
  return cmsBuildTabulatedToneCurve16(NULL, POINTS, reversed);
}

static void prepare_srgb(void) {
  VipsBlob *blob = NULL;
  if (vips_profile_load("srgb", &blob, NULL) || !blob) {
    vips_error_clear();
    cvips_thread_errors_clear();
    return;
  }
  size_t length;
  const void *bytes = vips_blob_get(blob, &length);
  cmsHPROFILE profile = cmsOpenProfileFromMem(bytes, (cmsUInt32Number)length);
  cmsMAT3 colorants;
  cmsToneCurve *curves[3];
  if (profile && is_plain_matrix_shaper(profile) && read_colorants(profile, &colorants) &&
      _cmsMAT3inverse(&colorants, &srgb.inverse) && read_curves(profile, curves)) {
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) srgb.inverse.v[i].n[j] *= OUTPUT_ADJUST;
    int reversed = 1;
    for (int c = 0; c < 3; c++) reversed &= (srgb.reversed[c] = reverse_curve(curves[c])) != NULL;
    if (reversed) {
      for (int c = 0; c < 3; c++)
        for (int i = 0; i < 16385; i++) {
          cmsFloat32Number value =
              cmsEvalToneCurveFloat(srgb.reversed[c], (cmsFloat32Number)(i / 16384.0));
          if (value < 0) value = 0;
          if (value > 1.0) value = 1.0;
          srgb.second[c][i] = LCMS_FROM_16_TO_8(lcms_quick_saturate_word(value * 65535.0));
        }
      srgb.ready = 1;
    }
  }
  if (profile) cmsCloseProfile(profile);
  vips_area_unref(VIPS_AREA(blob));
}

static int close_to_identity(const cmsMAT3 *m) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      if (!(fabs((i == j ? 1.0 : 0.0) - m->v[i].n[j]) < 0.00001f)) return 0;
  return 1;
}

/* OptimizeByJoiningCurves on [input TRCs, reversed sRGB TRCs], 8-bit input. */
static int join_curves(MatrixShaper *shaper, cmsToneCurve *const input[3]) {
  cmsUInt16Number table[3][PRELINEARIZATION_POINTS];
  for (int i = 0; i < PRELINEARIZATION_POINTS; i++) {
    const cmsFloat32Number x = (cmsFloat32Number)((double)i / (PRELINEARIZATION_POINTS - 1));
    for (int c = 0; c < 3; c++) {
      const cmsFloat32Number linear = cmsEvalToneCurveFloat(input[c], x);
      const cmsFloat32Number y = cmsEvalToneCurveFloat(srgb.reversed[c], linear);
      table[c][i] = lcms_quick_saturate_word(y * 65535.0);
    }
  }
  cmsToneCurve *joined[3] = {NULL, NULL, NULL};
  int ok = 1, linear = 1;
  for (int c = 0; c < 3; c++) {
    joined[c] = cmsBuildTabulatedToneCurve16(NULL, PRELINEARIZATION_POINTS, table[c]);
    ok &= joined[c] != NULL;
    linear &= joined[c] && cmsIsToneCurveLinear(joined[c]);
  }
  for (int c = 0; ok && c < 3; c++)
    for (int v = 0; v < 256; v++)
      /* FastIdentity16 for linear curves; else FastEvaluateCurves8, packed to 8 bits. */
      shaper->curve[c][v] = linear ? (uint8_t)v
                                   : LCMS_FROM_16_TO_8(
                                         cmsEvalToneCurve16(joined[c], LCMS_FROM_8_TO_16(v)));
  for (int c = 0; c < 3; c++)
    if (joined[c]) cmsFreeToneCurve(joined[c]);
  shaper->curves_only = 1;
  return ok;
}

MatrixShaper *matrix_shaper_new(cmsHPROFILE input) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, prepare_srgb);
  cmsMAT3 colorants;
  cmsToneCurve *curves[3];
  if (!srgb.ready || !is_plain_matrix_shaper(input) || !read_colorants(input, &colorants) ||
      !read_curves(input, curves))
    return NULL;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) colorants.v[i].n[j] *= INPUT_ADJUST;
  cmsMAT3 product;
  _cmsMAT3per(&product, &srgb.inverse, &colorants);

  MatrixShaper *shaper = calloc(1, sizeof(MatrixShaper));
  if (!shaper) return NULL;
  if (close_to_identity(&product) || _cmsMAT3isIdentity(&product)) {
    if (!join_curves(shaper, curves)) {
      free(shaper);
      return NULL;
    }
    return shaper;
  }
  for (int c = 0; c < 3; c++)
    for (int i = 0; i < 256; i++) {
      const cmsFloat32Number y = cmsEvalToneCurveFloat(curves[c], (cmsFloat32Number)(i / 255.0));
      shaper->first[c][i] = y < 131072.0 ? to_fixed14(y) : 0x7fffffff;
    }
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) shaper->matrix[i][j] = to_fixed14(product.v[i].n[j]);
  return shaper;
}

void matrix_shaper_free(MatrixShaper *shaper) { free(shaper); }

/* MatShaperEval16's row of the product (int arithmetic wrapping as lcms's does). */
static inline uint8_t shape(int32_t m0, int32_t m1, int32_t m2, int32_t r, int32_t g, int32_t b,
                            const uint8_t *second) {
  const int32_t sum = (int32_t)((uint32_t)m0 * (uint32_t)r + (uint32_t)m1 * (uint32_t)g +
                                (uint32_t)m2 * (uint32_t)b + 0x2000U);
  const int32_t l = sum >> 14;
  return second[l < 0 ? 0 : (l > 16384 ? 16384 : l)];
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#define HAVE_AVX2_SHAPER 1
#include <immintrin.h>

/* shape() for eight pixels: their three samples as 32-bit lanes, each through the first
 * shaper, the matrix row in wrapping 32-bit arithmetic (vpmulld keeps the low 32 bits of
 * each product, as lcms's int arithmetic does), the shift, the clip and the second
 * shaper (a 32-bit gather at each byte, masked to it). */
__attribute__((target("avx2"))) static inline __m256i shape8(__m256i r, __m256i g, __m256i b,
                                                             int32_t m0, int32_t m1, int32_t m2,
                                                             const uint8_t *second) {
  __m256i sum = _mm256_add_epi32(_mm256_mullo_epi32(_mm256_set1_epi32(m0), r),
                                 _mm256_mullo_epi32(_mm256_set1_epi32(m1), g));
  sum = _mm256_add_epi32(sum, _mm256_mullo_epi32(_mm256_set1_epi32(m2), b));
  sum = _mm256_add_epi32(sum, _mm256_set1_epi32(0x2000));
  __m256i l = _mm256_srai_epi32(sum, 14);
  l = _mm256_min_epi32(_mm256_max_epi32(l, _mm256_setzero_si256()), _mm256_set1_epi32(16384));
  return _mm256_and_si256(_mm256_i32gather_epi32((const int *)second, l, 1),
                          _mm256_set1_epi32(0xFF));
}

/* Eight pixels at a time, while at least two more pixels follow (three bands: each
 * pixel's gather reads one byte of the next, and the packed store writes four bytes past
 * the eighth) or while eight remain (four bands). Returns how many pixels it did; the
 * scalar loop does the rest. The same arithmetic as shape(). */
__attribute__((target("avx2"))) static int matrix_shaper_row_avx2(
    const MatrixShaper *shaper, const VipsPel *restrict in, int in_bands,
    VipsPel *restrict out, int width) {
  const __m256i offsets = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                                             _mm256_set1_epi32(in_bands));
  const __m256i byte = _mm256_set1_epi32(0xFF);
  /* Each lane's three bytes to the front of its half: 12 bytes of packed RGB a half. */
  const __m256i pack = _mm256_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1,
                                        0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1);
  const int32_t(*m)[3] = shaper->matrix;
  const int last = in_bands == 3 ? width - 10 : width - 8;
  int x = 0;
  for (; x <= last; x += 8) {
    const __m256i pixels =
        _mm256_i32gather_epi32((const int *)(in + (size_t)x * in_bands), offsets, 1);
    const __m256i r = _mm256_i32gather_epi32(shaper->first[0], _mm256_and_si256(pixels, byte), 4);
    const __m256i g = _mm256_i32gather_epi32(
        shaper->first[1], _mm256_and_si256(_mm256_srli_epi32(pixels, 8), byte), 4);
    const __m256i b = _mm256_i32gather_epi32(
        shaper->first[2], _mm256_and_si256(_mm256_srli_epi32(pixels, 16), byte), 4);
    const __m256i R = shape8(r, g, b, m[0][0], m[0][1], m[0][2], srgb.second[0]);
    const __m256i G = shape8(r, g, b, m[1][0], m[1][1], m[1][2], srgb.second[1]);
    const __m256i B = shape8(r, g, b, m[2][0], m[2][1], m[2][2], srgb.second[2]);
    __m256i packed = _mm256_or_si256(
        R, _mm256_or_si256(_mm256_slli_epi32(G, 8), _mm256_slli_epi32(B, 16)));
    VipsPel *q = out + (size_t)x * in_bands;
    if (in_bands == 4) {
      packed = _mm256_or_si256(packed,
                               _mm256_and_si256(pixels, _mm256_set1_epi32((int)0xFF000000)));
      _mm256_storeu_si256((__m256i *)q, packed);
    } else {
      packed = _mm256_shuffle_epi8(packed, pack);
      _mm_storeu_si128((__m128i *)q, _mm256_castsi256_si128(packed));
      _mm_storeu_si128((__m128i *)(q + 12), _mm256_extracti128_si256(packed, 1));
    }
  }
  return x;
}
#endif

/* The tables and the matrix are read into locals first: every byte stored to `out` may
 * alias anything (it is a char), so read through `shaper` they were loaded again for
 * each pixel. */
void matrix_shaper_row(const MatrixShaper *shaper, const VipsPel *restrict in, int in_bands,
                       VipsPel *restrict out, int width) {
  const int extra = in_bands - 3;
  if (shaper->curves_only) {
    const uint8_t *const c0 = shaper->curve[0], *const c1 = shaper->curve[1],
                         *const c2 = shaper->curve[2];
    for (int x = 0; x < width; x++, in += in_bands, out += in_bands) {
      const uint8_t r = c0[in[0]], g = c1[in[1]], b = c2[in[2]];
      out[0] = r;
      out[1] = g;
      out[2] = b;
      for (int e = 0; e < extra; e++) out[3 + e] = in[3 + e];
    }
    return;
  }
  const int32_t *const f0 = shaper->first[0], *const f1 = shaper->first[1],
                       *const f2 = shaper->first[2];
  const int32_t m00 = shaper->matrix[0][0], m01 = shaper->matrix[0][1],
                m02 = shaper->matrix[0][2], m10 = shaper->matrix[1][0],
                m11 = shaper->matrix[1][1], m12 = shaper->matrix[1][2],
                m20 = shaper->matrix[2][0], m21 = shaper->matrix[2][1],
                m22 = shaper->matrix[2][2];
  const uint8_t *const s0 = srgb.second[0], *const s1 = srgb.second[1],
                       *const s2 = srgb.second[2];
  int x = 0;
#ifdef HAVE_AVX2_SHAPER
  /* Counted (resample_uses_avx2), so that a test knows which path ran. */
  if ((in_bands == 3 || in_bands == 4) && resample_uses_avx2()) {
    x = matrix_shaper_row_avx2(shaper, in, in_bands, out, width);
    resample_vector_work_done((unsigned long)x / 8);
    in += (size_t)x * in_bands;
    out += (size_t)x * in_bands;
  }
#endif
  for (; x < width; x++, in += in_bands, out += in_bands) {
    const int32_t r = f0[in[0]], g = f1[in[1]], b = f2[in[2]];
    const uint8_t R = shape(m00, m01, m02, r, g, b, s0), G = shape(m10, m11, m12, r, g, b, s1),
                  B = shape(m20, m21, m22, r, g, b, s2);
    out[0] = R;
    out[1] = G;
    out[2] = B;
    for (int e = 0; e < extra; e++) out[3 + e] = in[3 + e];
  }
}
