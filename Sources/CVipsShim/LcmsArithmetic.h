/* Repeats Little CMS 2.14 arithmetic (MIT License, Copyright (c) 1998-2022 Marti Maria
 * Saguer): see THIRD_PARTY_NOTICES.md. */
/* lcms 2.14's own roundings and encodings (lcms2_internal.h, not installed), for the
 * shim's files that compute lcms's tables themselves (MatrixShaper.c, CMYKGrid.c) and
 * must round as lcms does to give its bytes. Not part of the shim's public header. */
#ifndef CVIPSSHIM_LCMS_ARITHMETIC_H
#define CVIPSSHIM_LCMS_ARITHMETIC_H

#include <lcms2.h>
#include <stdint.h>

#define LCMS_FROM_8_TO_16(v) ((cmsUInt16Number)((((cmsUInt16Number)(v)) << 8) | (v)))
#define LCMS_FROM_16_TO_8(v) ((uint8_t)((((uint32_t)(v) * 65281U + 8388608U) >> 24) & 0xFFU))

/* _cmsQuickFloor: floor through a 16.16 magic number (so values within 2^-17 of an
 * integer round to it), as lcms floors. */
static inline int lcms_quick_floor(double value) {
  union {
    double value;
    int halves[2];
  } magic;
  magic.value = value + 68719476736.0 * 1.5;
  return magic.halves[0] >> 16;
}

/* _cmsQuickSaturateWord: rounded to 0...65535. */
static inline cmsUInt16Number lcms_quick_saturate_word(double d) {
  d += 0.5;
  if (d <= 0) return 0;
  if (d >= 65535.0) return 0xffff;
  return (cmsUInt16Number)(lcms_quick_floor(d - 32767.0) + 32767);
}

/* _cmsQuantizeVal: node i of a grid of `samples` points, in 16 bits. */
static inline cmsUInt16Number lcms_quantize(double i, int samples) {
  return lcms_quick_saturate_word(i * 65535. / (double)(samples - 1));
}

#endif
