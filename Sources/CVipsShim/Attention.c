/* The attention measure of vips_smartcrop (libvips 8.14), computed on a 32x32
 * miniature: the measure resizes its input to 32x32 with vips_resize and then runs a
 * small graph on it (edges of luminance, a skin-colour score, saturation, summed,
 * blurred in proportion to the window, and the position of the maximum).
 *
 * Why not vips_smartcrop itself: for 32x32 pixels the arithmetic is nothing, and the
 * machinery is everything. Its miniature is a threaded vips_resize of the whole decode;
 * its graph is some 20 operations (about 100 with the copies inside them), each costing
 * 50-70 us of GObject and region bookkeeping: about 7 ms a photo, 9% of a family render.
 * Here the miniature comes from Resample.c (the same samples as vips_resize) and the
 * graph is a few loops over it that repeat libvips 8.14.1's arithmetic step by step:
 * the same float and double roundings, the same tables (sRGB to linear, the cube root
 * of XYZ2Lab with its interpolation), the same integer masks (vips_conv and
 * vips_gaussblur at integer precision) with their edges copied outwards, and
 * vips_max's choice among equal maxima (the first in raster order: a 32x32 image is one
 * tile, scanned by one thread). So the centre is vips_smartcrop's.
 *
 * Images the loops are not written for (not 8-bit; neither sRGB nor B_W) take the
 * same graph built from libvips operations.
 */
#include "CVipsShim.h"
#include "EdgeExtension.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* libvips multiplies and adds separately: no fused multiply-add, or sums round
 * differently. */
#pragma STDC FP_CONTRACT OFF

enum {
  MINIATURE = 32,       /* vips_smartcrop's miniature: 32 pixels on each axis */
  CUBE_ROOT_STEPS = 100000 /* XYZ2Lab's QUANT_ELEMENTS */
};

/* sRGB2scRGB's 8-bit table (vips_v2Y_8), computed as libvips computes it. */
static float srgb_to_linear[256];

/* Made once through pthread_once, which ThreadSanitizer sees (GLib's g_once it does not). */
static void make_srgb_table(void) {
  for (int i = 0; i < 256; i++) {
    const float f = (float)i / (256 - 1);
    if (f <= 0.04045)
      srgb_to_linear[i] = f / 12.92;
    else
      srgb_to_linear[i] = pow((f + 0.055) / (1 + 0.055), 2.4);
  }
}

/* One entry of XYZ2Lab's cube-root table, computed when it is read (the table has
 * 100,000 entries; a miniature reads at most 4,096 of them). */
static inline float cube_root_entry(int i) {
  const float v = (double)i / CUBE_ROOT_STEPS;
  if (v < 0.008856) return 7.787 * v + (16.0 / 116.0);
  return cbrt(v);
}

/* XYZ2Lab's interpolated cube root of `value` / `white`. */
static inline float lab_cube_root(float value, double white) {
  const float scaled = CUBE_ROOT_STEPS * value;
  const float n = scaled / white;
  const int truncated = (int)n;
  const int i = truncated < 0 ? 0 : truncated > CUBE_ROOT_STEPS - 2 ? CUBE_ROOT_STEPS - 2 : truncated;
  const float f = n - i;
  const float low = cube_root_entry(i);
  const float high = cube_root_entry(i + 1);
  return low + f * (high - low);
}

/* vips_pow_const(0.5) of a float sample: 0 stays 0. */
static inline float square_root(float v) {
  return v == 0.0 ? 0.0f : (float)sqrt((double)v);
}

/* smartcrop's pythagoras(): the squares of three float bands, summed in order. */
static inline float magnitude3(float a, float b, float c) {
  const float aa = a * a, bb = b * b, cc = c * c;
  float sum = aa;
  sum += bb;
  sum += cc;
  return square_root(sum);
}

/* vips_divide of floats: 0 where the divisor is 0. */
static inline float divided(float a, float b) {
  return b == 0 ? 0 : a / b;
}

/* The score before the blur, one float a pixel: |5 x Laplacian of Y| + skin + Lab a,
 * the last two zero where Y <= 5 (vips_sum of the three, in that order). `rgb` holds
 * the miniature's 8-bit sRGB samples, three a pixel. */
static void attention_scores(const uint8_t *rgb, int width, int height, float *Y,
                             float *scores) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, make_srgb_table);
  static const double skin[] = {-0.78, -0.57, -0.44};
  const int count = width * height;

  /* sRGB2scRGB, then scRGB2XYZ (vips_col_scRGB2XYZ: double sums stored as float). */
  for (int i = 0; i < count; i++) {
    const float R = srgb_to_linear[rgb[3 * i]];
    const float G = srgb_to_linear[rgb[3 * i + 1]];
    const float B = srgb_to_linear[rgb[3 * i + 2]];
    const float X = VIPS_D65_Y0 * 0.4124 * R + VIPS_D65_Y0 * 0.3576 * G + VIPS_D65_Y0 * 0.18056 * B;
    Y[i] = VIPS_D65_Y0 * 0.2126 * R + VIPS_D65_Y0 * 0.7152 * G + VIPS_D65_Y0 * 0.07220 * B;
    const float Z = VIPS_D65_Y0 * 0.0193 * R + VIPS_D65_Y0 * 0.1192 * G + VIPS_D65_Y0 * 0.9505 * B;
    const float luminance = Y[i];

    float skinScore = 0, saturation = 0;
    if (luminance > 5.0) {
      /* Skin: the colour normalised by its magnitude (vips_divide), its distance from
       * the skin point (vips_linear: double, stored as float), 100 - 100 x distance
       * (vips_linear1: float). */
      const float norm = magnitude3(X, luminance, Z);
      const float d0 = 1.0 * divided(X, norm) + skin[0];
      const float d1 = 1.0 * divided(luminance, norm) + skin[1];
      const float d2 = 1.0 * divided(Z, norm) + skin[2];
      const float distance = magnitude3(d0, d1, d2);
      const float a1 = -100.0, b1 = 100.0;
      skinScore = a1 * distance + b1;
      /* Saturation: Lab's a (XYZ2Lab with D65). */
      const float cbx = lab_cube_root(X, VIPS_D65_X0);
      const float cby = lab_cube_root(luminance, VIPS_D65_Y0);
      saturation = 500.0 * (cbx - cby);
    }
    scores[i] = skinScore;
    scores[count + i] = saturation;
  }

  /* Edges: vips_conv of Y with the integer Laplacian (convi's float path: int x float
   * products summed in double, in mask order, edges copied outwards), x 5, abs. */
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      const float *row = Y + y * width;
      const int left = clamp_index(x - 1, width), right = clamp_index(x + 1, width);
      double sum = 0;
      sum += -1 * Y[clamp_index(y - 1, height) * width + x];
      sum += -1 * row[left];
      sum += 4 * row[x];
      sum += -1 * row[right];
      sum += -1 * Y[clamp_index(y + 1, height) * width + x];
      const float laplacian = (sum / 1) + 0;
      const float a1 = 5.0, b1 = 0.0;
      const float edge = fabsf(a1 * laplacian + b1);
      const int i = y * width + x;
      float total = edge;
      total += scores[i];
      total += scores[count + i];
      scores[i] = total;
    }
}

/* vips_gaussmat(sigma, min_ampl 0.2, separable, precision integer): `*size` integer
 * weights and their sum, the mask's scale. NULL when out of memory. */
static int *gaussian_mask(double sigma, int *size, int *scale) {
  const double sig2 = 2. * sigma * sigma;
  const double limit = 8 * sigma;
  const int max_x = limit < 0 ? 0 : limit > 5000 ? 5000 : (int)limit;
  int x;
  for (x = 0; x < max_x; x++)
    if (exp(-((double)(x * x)) / sig2) < 0.2) break;
  const int width = 2 * (x - 1 > 0 ? x - 1 : 0) + 1;
  int *mask = malloc(sizeof(int) * (size_t)width);
  if (!mask) return NULL;
  double sum = 0.0;
  for (x = 0; x < width; x++) {
    const int xo = x - width / 2;
    const double distance = xo * xo;
    const double v = rint(20 * exp(-distance / sig2));
    mask[x] = (int)v;
    sum += v;
  }
  if (sum == 0) sum = 1;
  /* convi's intize: the weights are integers already, so the scale is their sum. */
  *scale = (int)rint(sum);
  *size = width;
  return mask;
}

/* One pass of convi (float path) with a 1-D integer mask along x (step 1) or y. */
static void convolve_line(const float *in, float *out, int width, int height, const int *mask,
                          int size, int scale, int vertical) {
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      double sum = 0;
      for (int k = 0; k < size; k++) {
        if (!mask[k]) continue; /* convi skips zero weights */
        const int sx = vertical ? x : clamp_index(x + k - size / 2, width);
        const int sy = vertical ? clamp_index(y + k - size / 2, height) : y;
        sum += mask[k] * in[sy * width + sx];
      }
      out[y * width + x] = (sum / scale) + 0;
    }
}

/* vips_max's position: the first maximum in raster order, NaN ignored. */
static void maximum_position(const float *v, int width, int height, int *mx, int *my) {
  int i = 0;
  const int count = width * height;
  while (i < count && isnan(v[i])) i++;
  int best = i < count ? i : 0;
  for (; i < count; i++)
    if (v[i] > v[best]) best = i;
  *mx = best % width;
  *my = best / width;
}

/* The miniature as 8-bit sRGB, three samples a pixel, for the loops above: grey is
 * repeated (BW2sRGB), and premultiplied floats are cast to 8 bits as sRGB2scRGB casts
 * them (clipped, truncated). */
static uint8_t *miniature_rgb(const void *pixels, int count, int bands, int grey, int isFloat) {
  uint8_t *rgb = malloc(3 * (size_t)count);
  if (!rgb) return NULL;
  for (int i = 0; i < count; i++)
    for (int b = 0; b < 3; b++) {
      const int source = i * bands + (grey ? 0 : b);
      if (isFloat) {
        const double v = ((const float *)pixels)[source];
        rgb[3 * i + b] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
      } else {
        rgb[3 * i + b] = ((const uint8_t *)pixels)[source];
      }
    }
  return rgb;
}

/* Copies the packed pixels of memory image `image` into a new buffer `*pixels`. */
static int take_pixels(VipsImage *image, void **pixels, int *width, int *height) {
  const size_t line = VIPS_IMAGE_SIZEOF_LINE(image);
  if (!(*pixels = malloc(line * (size_t)image->Ysize))) {
    vips_error("smartcrop", "out of memory");
    return -1;
  }
  for (int y = 0; y < image->Ysize; y++)
    memcpy((uint8_t *)*pixels + y * line, VIPS_IMAGE_ADDR(image, 0, y), line);
  *width = image->Xsize;
  *height = image->Ysize;
  return 0;
}

/* `image` (8-bit, in memory) with its embedded ICC profile applied: ColourTransform.c's
 * cached transform, or vips_icc_transform where that declines. */
static int icc_applied(VipsObject *scope, VipsImage *image, VipsImage **out) {
  VipsImage **t = (VipsImage **)vips_object_local_array(scope, 2);
  const int status = cvips_icc_transform_to_srgb_cached(image, &t[0], "srgb");
  if (status < 0) return -1;
  if (status == 0) {
    *out = t[0];
    return 0;
  }
  if (cvips_icc_transform_embedded(image, &t[1], "srgb", "srgb") ||
      !(t[0] = vips_image_copy_memory(t[1])))
    return -1;
  *out = t[0];
  return 0;
}

/* Premultiplied float miniature pixels with `in`'s ICC profile applied as thumbnail
 * orders it: unpremultiplied and cast to 8 bits, transformed, premultiplied again. */
static int icc_applied_premultiplied(VipsObject *scope, VipsImage *in, float **pixels,
                                     int width, int height) {
  VipsImage **t = (VipsImage **)vips_object_local_array(scope, 6);
  const void *profile;
  size_t length;
  if (vips_image_get_blob(in, VIPS_META_ICC_NAME, &profile, &length)) return -1;
  if (!(t[0] = vips_image_new_from_memory_copy(*pixels, sizeof(float) * width * height * in->Bands,
                                               width, height, in->Bands, VIPS_FORMAT_FLOAT)))
    return -1;
  t[0]->Type = in->Type;
  vips_image_set_blob_copy(t[0], VIPS_META_ICC_NAME, profile, length);
  VipsImage *managed;
  if (vips_unpremultiply(t[0], &t[1], NULL) || vips_cast(t[1], &t[2], VIPS_FORMAT_UCHAR, NULL) ||
      !(t[3] = vips_image_copy_memory(t[2])) || icc_applied(scope, t[3], &managed) ||
      vips_premultiply(managed, &t[4], NULL) || !(t[5] = vips_image_copy_memory(t[4])))
    return -1;
  free(*pixels);
  *pixels = NULL;
  int w, h;
  return take_pixels(t[5], (void **)pixels, &w, &h);
}

/* The 32x32 miniature: Resample.c's, or vips_resize's (upsizing, or an image not in
 * memory) read back into memory. 8-bit, or premultiplied floats when `alpha`. With
 * `manage`, the embedded ICC profile of an RGB image (three bands or four) is applied
 * to it, as thumbnail applies an export profile after its resize. `*pixels` is for the
 * caller to free. */
static int make_miniature(VipsImage *in, double hscale, double vscale, int alpha, int manage,
                          void **pixels, int *width, int *height) {
  VipsObject *scope = VIPS_OBJECT(vips_image_new());
  VipsImage **t = (VipsImage **)vips_object_local_array(scope, 4);
  manage = manage && (in->Bands == 3 || in->Bands == 4) &&
           vips_image_get_typeof(in, VIPS_META_ICC_NAME);
  VipsImage *miniature = NULL;
  int status;
  if (alpha) {
    status = cvips_resize_premultiplied_float_pixels(in, hscale, vscale, (float **)pixels, width,
                                                     height);
  } else {
    status = cvips_resize_uchar_in_memory(in, &t[3], hscale, vscale);
    miniature = t[3];
  }
  if (status > 0) {
    VipsImage *source = in;
    status = -1;
    if (alpha) {
      if (vips_premultiply(in, &t[0], NULL)) goto done;
      source = t[0];
    }
    if (vips_resize(source, &t[1], hscale, "vscale", vscale, NULL) ||
        !(t[2] = vips_image_copy_memory(t[1])))
      goto done;
    const VipsBandFormat expected = alpha ? VIPS_FORMAT_FLOAT : VIPS_FORMAT_UCHAR;
    if (t[2]->BandFmt != expected || t[2]->Bands != in->Bands) {
      vips_error("smartcrop", "unexpected miniature format");
      goto done;
    }
    if (alpha && take_pixels(t[2], pixels, width, height)) goto done;
    miniature = t[2];
    status = 0;
  }
  if (status < 0) goto done;
  if (alpha) {
    if (manage && icc_applied_premultiplied(scope, in, (float **)pixels, *width, *height)) {
      free(*pixels);
      *pixels = NULL;
      status = -1;
    }
  } else {
    if (manage && icc_applied(scope, miniature, &miniature)) status = -1;
    if (status == 0) status = take_pixels(miniature, pixels, width, height);
  }
done:
  g_object_unref(scope);
  return status;
}

/* Whether the loops are written for `in`: 8-bit sRGB (RGB is taken as sRGB) with
 * three bands or four (alpha), or B_W with one or two (alpha). */
static int for_the_loops(VipsImage *in, int *grey) {
  if (in->Coding != VIPS_CODING_NONE || in->BandFmt != VIPS_FORMAT_UCHAR) return 0;
  *grey = in->Type == VIPS_INTERPRETATION_B_W;
  if (*grey) return in->Bands == 1 || in->Bands == 2;
  return (in->Type == VIPS_INTERPRETATION_sRGB || in->Type == VIPS_INTERPRETATION_RGB) &&
         (in->Bands == 3 || in->Bands == 4);
}

static int bad_window(VipsImage *in, int width, int height) {
  if (width > in->Xsize || height > in->Ysize || width <= 0 || height <= 0) {
    vips_error("smartcrop", "bad extract area");
    return 1;
  }
  return 0;
}

static int attention_centre_in_c(VipsImage *in, int width, int height, int manage, int *x,
                                  int *y) {
  int grey;
  if (bad_window(in, width, height)) return -1;
  if (!for_the_loops(in, &grey)) return 1;
  const double hscale = (double)MINIATURE / in->Xsize;
  const double vscale = (double)MINIATURE / in->Ysize;
  const double sigma = fmax(sqrt(pow(width * hscale, 2) + pow(height * vscale, 2)) / 10, 1.0);
  /* As vips_smartcrop: what is transparent does not count (premultiplied). */
  const int alpha = vips_image_hasalpha(in);

  void *pixels = NULL;
  int w, h;
  if (make_miniature(in, hscale, vscale, alpha, manage, &pixels, &w, &h)) return -1;
  const int count = w * h;
  uint8_t *rgb = miniature_rgb(pixels, count, in->Bands, grey, alpha);
  free(pixels);
  int size, scale;
  int *mask = gaussian_mask(sigma, &size, &scale);
  float *planes = malloc(sizeof(float) * 3 * (size_t)count);
  if (!rgb || !mask || !planes) {
    free(rgb);
    free(mask);
    free(planes);
    vips_error("smartcrop", "out of memory");
    return -1;
  }
  float *luminance = planes, *scores = planes + count; /* scores: two planes */
  attention_scores(rgb, w, h, luminance, scores);
  /* vips_gaussblur: vips_convsep, the row mask then the same mask as a column. */
  convolve_line(scores, luminance, w, h, mask, size, scale, 0);
  convolve_line(luminance, scores, w, h, mask, size, scale, 1);
  int maxX, maxY;
  maximum_position(scores, w, h, &maxX, &maxY);
  *x = maxX / hscale;
  *y = maxY / vscale;
  free(rgb);
  free(mask);
  free(planes);
  return 0;
}

int cvips_attention_centre_in_c(VipsImage *in, int width, int height, int *x, int *y) {
  return attention_centre_in_c(in, width, height, 0, x, y);
}

int cvips_attention_centre_of_managed_in_c(VipsImage *in, int width, int height, int *x,
                                           int *y) {
  return attention_centre_in_c(in, width, height, 1, x, y);
}

static int attention_centre_by_graph(VipsImage *in, int width, int height, int *x, int *y);

int cvips_attention_centre(VipsImage *in, int width, int height, int *x, int *y) {
  const int status = cvips_attention_centre_in_c(in, width, height, x, y);
  if (status <= 0) return status;
  return attention_centre_by_graph(in, width, height, x, y);
}

/* sqrt of the sum of the squared bands. */
static int magnitude(VipsObject *scope, VipsImage *in, VipsImage **out) {
  VipsImage **t = (VipsImage **)vips_object_local_array(scope, 2 * in->Bands + 1);
  for (int i = 0; i < in->Bands; i++)
    if (vips_extract_band(in, &t[i], i, NULL)) return -1;
  for (int i = 0; i < in->Bands; i++)
    if (vips_multiply(t[i], t[i], &t[in->Bands + i], NULL)) return -1;
  if (vips_sum(&t[in->Bands], &t[2 * in->Bands], in->Bands, NULL) ||
      vips_pow_const1(t[2 * in->Bands], out, 0.5, NULL))
    return -1;
  return 0;
}

/* The measure as libvips operations: for images the C loops decline. */
static int attention_centre_by_graph(VipsImage *in, int width, int height, int *x, int *y) {
  static double skin[] = {-0.78, -0.57, -0.44};
  static double ones[] = {1.0, 1.0, 1.0};
  VipsObject *scope = VIPS_OBJECT(vips_image_new());
  VipsImage **t = (VipsImage **)vips_object_local_array(scope, 24);
  const double hscale = 32.0 / in->Xsize;
  const double vscale = 32.0 / in->Ysize;
  const double sigma = fmax(sqrt(pow(width * hscale, 2) + pow(height * vscale, 2)) / 10, 1.0);
  double max;
  int maxX = 0, maxY = 0;
  int failed = 1;

  /* As vips_smartcrop: what is transparent does not count. */
  if (vips_image_hasalpha(in)) {
    if (vips_premultiply(in, &t[21], NULL)) goto done;
    in = t[21];
  }
  int fast = cvips_resize_uchar_in_memory(in, &t[0], hscale, vscale);
  if (fast < 0) goto done;
  if (fast > 0 && vips_resize(in, &t[0], hscale, "vscale", vscale, NULL)) goto done;
  if (!(t[1] = vips_image_new_matrixv(3, 3, 0.0, -1.0, 0.0, -1.0, 4.0, -1.0, 0.0, -1.0, 0.0)))
    goto done;
  /* XYZ, its first three bands; edges of Y. */
  if (vips_colourspace(t[0], &t[2], VIPS_INTERPRETATION_XYZ, NULL) ||
      vips_extract_band(t[2], &t[3], 0, "n", 3, NULL) ||
      vips_extract_band(t[3], &t[4], 1, NULL) ||
      vips_conv(t[4], &t[5], t[1], "precision", VIPS_PRECISION_INTEGER, NULL) ||
      vips_linear1(t[5], &t[6], 5.0, 0.0, NULL) || vips_abs(t[6], &t[7], NULL))
    goto done;
  /* Skin: distance of the normalised colour from the skin point, 100 (on it) to 0,
   * and 0 where it is dark. */
  if (magnitude(scope, t[3], &t[8]) || vips_divide(t[3], t[8], &t[9], NULL) ||
      vips_linear(t[9], &t[10], ones, skin, 3, NULL) || magnitude(scope, t[10], &t[11]) ||
      vips_linear1(t[11], &t[12], -100.0, 100.0, NULL) ||
      vips_more_const1(t[4], &t[13], 5.0, NULL) ||
      !(t[14] = vips_image_new_from_image1(t[13], 0.0)) ||
      vips_ifthenelse(t[13], t[12], t[14], &t[15], NULL))
    goto done;
  /* Saturation: Lab's a where it is not dark. */
  if (vips_colourspace(t[3], &t[16], VIPS_INTERPRETATION_LAB, NULL) ||
      vips_extract_band(t[16], &t[17], 1, NULL) ||
      vips_ifthenelse(t[13], t[17], t[14], &t[18], NULL))
    goto done;
  /* Sum, blur over the window's size, find the maximum. */
  VipsImage *scores[] = {t[7], t[15], t[18]};
  if (vips_sum(scores, &t[19], 3, NULL) || vips_gaussblur(t[19], &t[20], sigma, NULL) ||
      vips_max(t[20], &max, "x", &maxX, "y", &maxY, NULL))
    goto done;
  *x = (int)(maxX / hscale);
  *y = (int)(maxY / vscale);
  failed = 0;
done:
  g_object_unref(scope);
  return failed ? -1 : 0;
}
