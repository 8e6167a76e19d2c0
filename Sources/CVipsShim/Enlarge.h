/* Enlarge.c's bicubic enlargement (vips_resize above a scale of 1), for Resample.c's
 * in-memory resizes; not part of the shim's public header. */
#ifndef CVIPSSHIM_ENLARGE_H
#define CVIPSSHIM_ENLARGE_H

#include <stddef.h>
#include <stdint.h>

/* The window `width` x `height` at (`left`, `top`) of vips_resize's enlargement of an
 * 8-bit image (`in_width` x `in_height`, `bands` samples a pixel, rows `stride` bytes
 * apart) by `hscale` and `vscale` (both at least 1), as packed rows into `out`. The
 * window must lie inside the enlargement (VIPS_ROUND_INT of each length times its
 * scale). Returns 0, or -1 when memory ran out. */
int bicubic_enlarge(const uint8_t *in, size_t stride, int in_width, int in_height, int bands,
                    double hscale, double vscale, int left, int top, int width, int height,
                    uint8_t *out);

#endif
