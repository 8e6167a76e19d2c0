/* CMYKGrid.c's lcms CMYK transform with its grid computed node by node, as pixels need
 * them (shared by ColourTransform.c, not part of the shim's public header). */
#ifndef CVIPSSHIM_CMYK_GRID_H
#define CVIPSSHIM_CMYK_GRID_H

#include <lcms2.h>
#include <vips/vips.h>

typedef struct CMYKGrid CMYKGrid;

/* The transform lcms 2.14 builds for cmsCreateTransform(input, TYPE_CMYK_8, output,
 * output_format, INTENT_RELATIVE_COLORIMETRIC, cmsFLAGS_NOCACHE), output_format
 * TYPE_XYZ_16 or TYPE_RGB_8: its 17-point grid, each node computed when a pixel first
 * needs it. NULL when `input` is not CMYK or lcms cannot build the transform. */
CMYKGrid *cmyk_grid_new(cmsHPROFILE input, cmsHPROFILE output, cmsUInt32Number output_format);
void cmyk_grid_free(CMYKGrid *grid);

/* `width` pixels of `in_bands` bands (the first four CMYK) to three 16-bit samples each:
 * what lcms's transform computes before it packs its output (the samples of
 * TYPE_XYZ_16; for TYPE_RGB_8, the bytes are their FROM_16_TO_8). Safe from any number
 * of threads at once. */
void cmyk_grid_row(CMYKGrid *grid, const VipsPel *in, int in_bands, cmsUInt16Number *out,
                   int width);

/* How many of the grid's 83,521 nodes have been computed. */
int cmyk_grid_nodes_computed(CMYKGrid *grid);

#endif
