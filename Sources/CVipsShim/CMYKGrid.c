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
 * Checked against lcms's own transform on every fixture and on millions of random
 * values by the harness behind Tests/VipsTests/CMYKImportTests.swift.
 *
 * Threads: a node is one 64-bit atomic word (three samples and a ready bit); two threads
 * needing the same new node both compute it and store the same value. The sampling
 * transform is only read by cmsDoTransform (lcms 2.14, cmsFLAGS_NOCACHE).
 */
#include "CMYKGrid.h"
#include "LcmsArithmetic.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

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

CMYKGrid *cmyk_grid_new(cmsHPROFILE input, cmsHPROFILE output, cmsUInt32Number output_format) {
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

/* Eval4Inputs's tetrahedral interpolation in one K slice (`base`), three channels. */
static void slice(CMYKGrid *grid, int base, int X0, int X1, int Y0, int Y1, int Z0, int Z1,
                  int32_t rx, int32_t ry, int32_t rz, cmsUInt16Number result[3]) {
  const uint64_t n0 = node(grid, base + X0 + Y0 + Z0);
  uint64_t a = n0, b = n0, c = n0;
  int form; /* which differences c1, c2, c3 are: see below */
  if (rx >= ry && ry >= rz) {
    a = node(grid, base + X1 + Y0 + Z0), b = node(grid, base + X1 + Y1 + Z0),
    c = node(grid, base + X1 + Y1 + Z1), form = 0;
  } else if (rx >= rz && rz >= ry) {
    a = node(grid, base + X1 + Y0 + Z0), b = node(grid, base + X1 + Y0 + Z1),
    c = node(grid, base + X1 + Y1 + Z1), form = 1;
  } else if (rz >= rx && rx >= ry) {
    a = node(grid, base + X0 + Y0 + Z1), b = node(grid, base + X1 + Y0 + Z1),
    c = node(grid, base + X1 + Y1 + Z1), form = 2;
  } else if (ry >= rx && rx >= rz) {
    a = node(grid, base + X0 + Y1 + Z0), b = node(grid, base + X1 + Y1 + Z0),
    c = node(grid, base + X1 + Y1 + Z1), form = 3;
  } else if (ry >= rz && rz >= rx) {
    a = node(grid, base + X0 + Y1 + Z0), b = node(grid, base + X0 + Y1 + Z1),
    c = node(grid, base + X1 + Y1 + Z1), form = 4;
  } else if (rz >= ry && ry >= rx) {
    a = node(grid, base + X0 + Y0 + Z1), b = node(grid, base + X0 + Y1 + Z1),
    c = node(grid, base + X1 + Y1 + Z1), form = 5;
  } else
    form = 6;
  for (int channel = 0; channel < 3; channel++) {
    const int32_t v0 = sample(n0, channel), va = sample(a, channel), vb = sample(b, channel),
                  vc = sample(c, channel);
    int32_t c1, c2, c3;
    switch (form) {
    case 0: c1 = va - v0, c2 = vb - va, c3 = vc - vb; break;
    case 1: c1 = va - v0, c2 = vc - vb, c3 = vb - va; break;
    case 2: c1 = vb - va, c2 = vc - vb, c3 = va - v0; break;
    case 3: c1 = vb - va, c2 = va - v0, c3 = vc - vb; break;
    case 4: c1 = vc - vb, c2 = va - v0, c3 = vb - va; break;
    case 5: c1 = vc - vb, c2 = vb - va, c3 = va - v0; break;
    default: c1 = c2 = c3 = 0;
    }
    const int32_t rest = (int32_t)((uint32_t)c1 * (uint32_t)rx + (uint32_t)c2 * (uint32_t)ry +
                                   (uint32_t)c3 * (uint32_t)rz);
    result[channel] = (cmsUInt16Number)(v0 + ((to_fixed_domain(rest) + 0x8000) >> 16));
  }
}

/* Eval4Inputs for one pixel of 16-bit CMYK. */
static void interpolate(CMYKGrid *grid, const cmsUInt16Number input[4], cmsUInt16Number out[3]) {
  const int32_t fk = to_fixed_domain((int)input[0] * (GRID - 1));
  const int32_t fx = to_fixed_domain((int)input[1] * (GRID - 1));
  const int32_t fy = to_fixed_domain((int)input[2] * (GRID - 1));
  const int32_t fz = to_fixed_domain((int)input[3] * (GRID - 1));
  const int32_t rk = fk & 0xffff, rx = fx & 0xffff, ry = fy & 0xffff, rz = fz & 0xffff;
  const int K0 = STRIDE_C * (fk >> 16);
  const int K1 = K0 + (input[0] == 0xffff ? 0 : STRIDE_C);
  const int X0 = STRIDE_M * (fx >> 16);
  const int X1 = X0 + (input[1] == 0xffff ? 0 : STRIDE_M);
  const int Y0 = STRIDE_Y * (fy >> 16);
  const int Y1 = Y0 + (input[2] == 0xffff ? 0 : STRIDE_Y);
  const int Z0 = STRIDE_K * (fz >> 16);
  const int Z1 = Z0 + (input[3] == 0xffff ? 0 : STRIDE_K);
  cmsUInt16Number low[3], high[3];
  slice(grid, K0, X0, X1, Y0, Y1, Z0, Z1, rx, ry, rz, low);
  slice(grid, K1, X0, X1, Y0, Y1, Z0, Z1, rx, ry, rz, high);
  for (int i = 0; i < 3; i++) {
    /* LinearInterp */
    uint32_t difference = (uint32_t)((int32_t)high[i] - (int32_t)low[i]) * (uint32_t)rk + 0x8000;
    out[i] = (cmsUInt16Number)((difference >> 16) + low[i]);
  }
}

void cmyk_grid_row(CMYKGrid *grid, const VipsPel *in, int in_bands, cmsUInt16Number *out,
                   int width) {
  for (int x = 0; x < width; x++, in += in_bands, out += 3) {
    const cmsUInt16Number input[4] = {LCMS_FROM_8_TO_16(in[0]), LCMS_FROM_8_TO_16(in[1]),
                                      LCMS_FROM_8_TO_16(in[2]), LCMS_FROM_8_TO_16(in[3])};
    interpolate(grid, input, out);
  }
}
