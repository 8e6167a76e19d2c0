/* MatrixShaper.c's transform of an RGB matrix-shaper profile to libvips's built-in sRGB
 * (shared by ColourTransform.c, not part of the shim's public header). */
#ifndef CVIPSSHIM_MATRIX_SHAPER_H
#define CVIPSSHIM_MATRIX_SHAPER_H

#include <lcms2.h>
#include <vips/vips.h>

typedef struct MatrixShaper MatrixShaper;

/* The tables lcms 2.14 would compute for cmsCreateTransform(input, TYPE_RGB_8, srgb,
 * TYPE_RGB_8, INTENT_RELATIVE_COLORIMETRIC, cmsFLAGS_NOCACHE), with libvips's built-in
 * sRGB as `srgb`, computed without building that transform; NULL when `input` is not a
 * plain RGB matrix-shaper profile with an XYZ PCS (then lcms takes another path). */
MatrixShaper *matrix_shaper_new(cmsHPROFILE input);
void matrix_shaper_free(MatrixShaper *shaper);

/* `width` pixels of `in_bands` bands to `3 + in_bands - 3` bands: the first three
 * through the tables, any further bands copied after them. `in` and `out` do not
 * overlap. */
void matrix_shaper_row(const MatrixShaper *shaper, const VipsPel *restrict in, int in_bands,
                       VipsPel *restrict out, int width);

#endif
