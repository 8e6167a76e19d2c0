/* The attention measure of vips_smartcrop (libvips 8.14), computed on a 32x32
 * miniature made once: the measure itself resizes its input to 32x32 with vips_resize
 * and then runs a small graph on it (edges of luminance, a skin-colour score,
 * saturation, summed, blurred in proportion to the window, and the position of the
 * maximum). Making the miniature with Resample.c (the same bytes as vips_resize) and
 * running the same graph gives the same centre for a fraction of the time: for the
 * sizes of a family, the miniature was most of the measure's cost.
 */
#include "CVipsShim.h"

#include <math.h>

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

int cvips_attention_centre(VipsImage *in, int width, int height, int *x, int *y) {
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

  if (width > in->Xsize || height > in->Ysize || width <= 0 || height <= 0) {
    vips_error("smartcrop", "bad extract area");
    goto done;
  }
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
