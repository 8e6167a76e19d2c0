/* A rounded rectangle's coverage mask, one pass of C over the pixels.
 *
 * Why not libvips operations: the signed distance takes about twenty of them (xyz,
 * linear, abs, add, multiply, bandmean, pow...), each a pass over float pixels through
 * libvips's threadpool: 6.6 ms of a one-photo render for the three avatar sizes, where
 * the arithmetic is a few microseconds.
 */
#include "CVipsShim.h"

#include <math.h>

int cvips_rounded_rectangle_mask(int width, int height, double radius, VipsImage **out) {
  *out = NULL;
  if (width <= 0 || height <= 0 || !(radius >= 0) || !isfinite(radius)) {
    vips_error("mask", "%dx%d with radius %g is not a shape", width, height, radius);
    return -1;
  }
  const double half_width = width / 2.0, half_height = height / 2.0;
  const double r = fmin(radius, fmin(half_width, half_height));
  VipsImage *image = vips_image_new_memory();
  vips_image_init_fields(image, width, height, 1, VIPS_FORMAT_UCHAR, VIPS_CODING_NONE,
                         VIPS_INTERPRETATION_B_W, 1.0, 1.0);
  if (vips_image_write_prepare(image)) {
    g_object_unref(image);
    return -1;
  }
  for (int y = 0; y < height; y++) {
    VipsPel *row = VIPS_IMAGE_ADDR(image, 0, y);
    /* The signed distance of the pixel's centre to the edge, negative inside:
     * q = |p| - (half - r); d = length(max(q, 0)) + min(max(qx, qy), 0) - r. */
    const double qy = fabs(y + 0.5 - half_height) - (half_height - r);
    for (int x = 0; x < width; x++) {
      const double qx = fabs(x + 0.5 - half_width) - (half_width - r);
      const double ox = fmax(qx, 0), oy = fmax(qy, 0);
      const double d = sqrt(ox * ox + oy * oy) + fmin(fmax(qx, qy), 0) - r;
      /* Coverage clamp(0.5 - d, 0, 1) as 0...255, rounded. */
      const double level = (0.5 - d) * 255 + 0.5;
      row[x] = level <= 0 ? 0 : level >= 255 ? 255 : (VipsPel)level;
    }
  }
  *out = image;
  return 0;
}

int cvips_image_is_in_memory(VipsImage *image) {
  return image->data != NULL &&
         (image->dtype == VIPS_IMAGE_SETBUF || image->dtype == VIPS_IMAGE_SETBUF_FOREIGN);
}

/* Whether `in` and `mask` are 8-bit images in memory of one size, `mask` one band. */
static int mask_fits(VipsImage *in, VipsImage *mask) {
  return cvips_image_is_in_memory(in) && cvips_image_is_in_memory(mask) &&
         in->BandFmt == VIPS_FORMAT_UCHAR && mask->BandFmt == VIPS_FORMAT_UCHAR &&
         in->Coding == VIPS_CODING_NONE && mask->Coding == VIPS_CODING_NONE &&
         mask->Bands == 1 && in->Bands >= 1 && in->Xsize == mask->Xsize &&
         in->Ysize == mask->Ysize;
}

/* vips_bandjoin2(in, mask) for images already in memory, as one loop into a new memory
 * image: for an entry of a few thousand pixels, building the bandjoin and pulling its
 * regions through libvips cost more than the copy. */
int cvips_join_mask_in_memory(VipsImage *in, VipsImage *mask, VipsImage **out) {
  *out = NULL;
  if (!mask_fits(in, mask) || in->Bands > 3) return 1;
  VipsImage *image = vips_image_new_memory();
  if (vips_image_pipelinev(image, VIPS_DEMAND_STYLE_THINSTRIP, in, mask, NULL)) {
    g_object_unref(image);
    return -1;
  }
  /* bandjoin's header: the first input's, with the bands added up. */
  image->Bands = in->Bands + 1;
  if (vips_image_write_prepare(image)) {
    g_object_unref(image);
    return -1;
  }
  const int bands = in->Bands, width = in->Xsize;
  for (int y = 0; y < in->Ysize; y++) {
    const VipsPel *colour = VIPS_IMAGE_ADDR(in, 0, y);
    const VipsPel *alpha = VIPS_IMAGE_ADDR(mask, 0, y);
    VipsPel *row = VIPS_IMAGE_ADDR(image, 0, y);
    if (bands == 3) {
      for (int x = 0; x < width; x++) {
        row[4 * x] = colour[3 * x];
        row[4 * x + 1] = colour[3 * x + 1];
        row[4 * x + 2] = colour[3 * x + 2];
        row[4 * x + 3] = alpha[x];
      }
    } else {
      for (int x = 0; x < width; x++) {
        for (int b = 0; b < bands; b++) row[(bands + 1) * x + b] = colour[bands * x + b];
        row[(bands + 1) * x + bands] = alpha[x];
      }
    }
  }
  *out = image;
  return 0;
}

/* libvips's linear([1 / 255], [0.5], uchar) of an 8-bit alpha times an 8-bit mask
 * (vips_multiply: a 16-bit product): float arithmetic, clipped, truncated (linear.c's
 * LOOP1uc), every product of two bytes computed once. */
#pragma clang fp contract(off)
static VipsPel scaled_products[255 * 255 + 1];
static gpointer fill_scaled_products(gpointer unused) {
  (void)unused;
  const float a = (float)(1.0 / 255), b = (float)0.5;
  for (int p = 0; p <= 255 * 255; p++) {
    const float t = a * (float)p + b;
    scaled_products[p] = (VipsPel)VIPS_FCLIP(0, t, 255);
  }
  return NULL;
}

/* masked_by_operations's graph (Sources/Vips/VipsImage+Masks.swift: the colour bands,
 * the alpha times the mask over 255 rounded, joined again) for an 8-bit image with alpha
 * already in memory, as one loop into a new memory image. */
int cvips_mask_alpha_in_memory(VipsImage *in, VipsImage *mask, VipsImage **out) {
  static GOnce once = G_ONCE_INIT;
  *out = NULL;
  if (!mask_fits(in, mask) || in->Bands < 2) return 1;
  g_once(&once, fill_scaled_products, NULL);
  VipsImage *image = vips_image_new_memory();
  if (vips_image_pipelinev(image, VIPS_DEMAND_STYLE_THINSTRIP, in, mask, NULL) ||
      vips_image_write_prepare(image)) {
    g_object_unref(image);
    return -1;
  }
  const int bands = in->Bands, width = in->Xsize;
  for (int y = 0; y < in->Ysize; y++) {
    const VipsPel *p = VIPS_IMAGE_ADDR(in, 0, y);
    const VipsPel *m = VIPS_IMAGE_ADDR(mask, 0, y);
    VipsPel *q = VIPS_IMAGE_ADDR(image, 0, y);
    for (int x = 0; x < width; x++) {
      for (int b = 0; b < bands - 1; b++) q[b] = p[b];
      q[bands - 1] = scaled_products[p[bands - 1] * m[x]];
      p += bands;
      q += bands;
    }
  }
  *out = image;
  return 0;
}
