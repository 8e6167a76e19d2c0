#include "CVipsShim.h"
#include "RowStrips.h"

#include <string.h>
#include <vips/vector.h>

int cvips_init(const char *argv0) { return VIPS_INIT(argv0); }

int cvips_image_new_from_file(const char *filename, VipsImage **out, VipsAccess access,
                              VipsFailOn fail_on) {
  *out = vips_image_new_from_file(filename, "access", access, "fail_on", fail_on, NULL);
  return *out ? 0 : -1;
}

int cvips_image_new_from_buffer(const void *data, size_t length, VipsImage **out,
                                VipsAccess access, VipsFailOn fail_on) {
  *out = vips_image_new_from_buffer(data, length, "", "access", access, "fail_on", fail_on,
                                    NULL);
  return *out ? 0 : -1;
}

int cvips_image_new_from_buffer_options(const void *data, size_t length,
                                        const char *option_string, VipsImage **out,
                                        VipsAccess access, VipsFailOn fail_on) {
  *out = vips_image_new_from_buffer(data, length, option_string, "access", access, "fail_on",
                                    fail_on, NULL);
  return *out ? 0 : -1;
}

int cvips_thumbnail_source(VipsSource *source, VipsImage **out, int width, int height,
                           VipsInteresting crop, VipsSize size, const char *option_string,
                           const char *output_profile) {
  return vips_thumbnail_source(source, out, width, "height", height, "crop", crop, "size",
                               size, "option_string", option_string, "export_profile",
                               output_profile, NULL);
}

int cvips_thumbnail_buffer(void *data, size_t length, VipsImage **out, int width, int height,
                           VipsInteresting crop, VipsSize size, const char *option_string,
                           const char *output_profile) {
  return vips_thumbnail_buffer(data, length, out, width, "height", height, "crop", crop,
                               "size", size, "option_string", option_string, "export_profile",
                               output_profile, NULL);
}

int cvips_thumbnail_image(VipsImage *in, VipsImage **out, int width, int height,
                          VipsInteresting crop, VipsSize size, const char *output_profile) {
  return vips_thumbnail_image(in, out, width, "height", height, "crop", crop, "size", size,
                              "export_profile", output_profile, NULL);
}

int cvips_resize(VipsImage *in, VipsImage **out, double hscale, double vscale) {
  return vips_resize(in, out, hscale, "vscale", vscale, NULL);
}

int cvips_extract_area(VipsImage *in, VipsImage **out, int left, int top, int width,
                       int height) {
  return vips_extract_area(in, out, left, top, width, height, NULL);
}

int cvips_smartcrop(VipsImage *in, VipsImage **out, int width, int height,
                    VipsInteresting interesting) {
  return vips_smartcrop(in, out, width, height, "interesting", interesting, NULL);
}

int cvips_smartcrop_attention_centre(VipsImage *in, VipsImage **out, int width, int height,
                                     int *attention_x, int *attention_y) {
  return vips_smartcrop(in, out, width, height, "interesting", VIPS_INTERESTING_ATTENTION,
                        "attention_x", attention_x, "attention_y", attention_y, NULL);
}

int cvips_embed(VipsImage *in, VipsImage **out, int x, int y, int width, int height,
                VipsExtend extend, const double *background, int background_count) {
  VipsArrayDouble *array = vips_array_double_new(background, background_count);
  int result = vips_embed(in, out, x, y, width, height, "extend", extend, "background", array,
                          NULL);
  vips_area_unref(VIPS_AREA(array));
  return result;
}

int cvips_join(VipsImage *first, VipsImage *second, VipsImage **out, VipsDirection direction,
               int shim, const double *background, int background_count) {
  VipsArrayDouble *array = vips_array_double_new(background, background_count);
  int result = vips_join(first, second, out, direction, "expand", TRUE, "shim", shim,
                         "background", array, NULL);
  vips_area_unref(VIPS_AREA(array));
  return result;
}

int cvips_rot(VipsImage *in, VipsImage **out, VipsAngle angle) {
  return vips_rot(in, out, angle, NULL);
}

int cvips_autorot(VipsImage *in, VipsImage **out) { return vips_autorot(in, out, NULL); }

int cvips_arrayjoin(VipsImage **in, VipsImage **out, int count, int across, int shim,
                    const double *background, int background_count) {
  VipsArrayDouble *array = vips_array_double_new(background, background_count);
  int result = vips_arrayjoin(in, out, count, "across", across, "shim", shim, "background",
                              array, NULL);
  vips_area_unref(VIPS_AREA(array));
  return result;
}

int cvips_colourspace(VipsImage *in, VipsImage **out, VipsInterpretation space) {
  return vips_colourspace(in, out, space, NULL);
}

int cvips_icc_transform_embedded(VipsImage *in, VipsImage **out, const char *output_profile,
                                 const char *fallback_input_profile) {
  return vips_icc_transform(in, out, output_profile, "embedded", TRUE, "input_profile",
                            fallback_input_profile, "depth", 8, NULL);
}

int cvips_profile_load(const char *name, VipsBlob **profile) {
  return vips_profile_load(name, profile, NULL);
}

int cvips_cast(VipsImage *in, VipsImage **out, VipsBandFormat format, gboolean shift) {
  return vips_cast(in, out, format, "shift", shift, NULL);
}

int cvips_copy_interpretation(VipsImage *in, VipsImage **out,
                              VipsInterpretation interpretation) {
  return vips_copy(in, out, "interpretation", interpretation, NULL);
}

int cvips_copy(VipsImage *in, VipsImage **out) { return vips_copy(in, out, NULL); }

typedef struct {
  VipsPel *memory;
  size_t line;
} PackedRows;

static void copy_row(const VipsPel *row, int y, int width, void *context) {
  (void)width;
  const PackedRows *rows = context;
  memcpy(rows->memory + rows->line * y, row, rows->line);
}

/* Computes `in` on the calling thread into `memory`: packed rows. -1 with libvips's
 * error. */
static int compute_rows(VipsImage *in, VipsPel *memory) {
  PackedRows rows = {memory, VIPS_IMAGE_SIZEOF_LINE(in)};
  return each_row(in, copy_row, &rows);
}

void *cvips_write_to_memory_on_this_thread(VipsImage *in, size_t *size) {
  *size = VIPS_IMAGE_SIZEOF_LINE(in) * in->Ysize;
  VipsPel *memory = g_try_malloc(*size ? *size : 1);
  if (!memory) {
    vips_error("write_to_memory", "out of memory for %zu bytes", *size);
    return NULL;
  }
  if (compute_rows(in, memory)) {
    g_free(memory);
    return NULL;
  }
  return memory;
}

int cvips_copy_memory_on_this_thread(VipsImage *in, VipsImage **out) {
  *out = NULL;
  if (in->dtype == VIPS_IMAGE_SETBUF || in->dtype == VIPS_IMAGE_SETBUF_FOREIGN ||
      in->dtype == VIPS_IMAGE_MMAPIN || in->dtype == VIPS_IMAGE_MMAPINRW) {
    *out = vips_image_copy_memory(in);
    return *out ? 0 : -1;
  }
  /* A memory image's rows are packed from its first byte; not zeroed, as every row is
   * written (MemoryImage.c). */
  VipsImage *image = cvips_unzeroed_memory_image_like(in);
  if (!image) return -1;
  if (compute_rows(in, VIPS_IMAGE_ADDR(image, 0, 0))) {
    g_object_unref(image);
    return -1;
  }
  *out = image;
  return 0;
}

int cvips_flatten(VipsImage *in, VipsImage **out, const double *background,
                  int background_count) {
  VipsArrayDouble *array = vips_array_double_new(background, background_count);
  int result = vips_flatten(in, out, "background", array, NULL);
  vips_area_unref(VIPS_AREA(array));
  return result;
}

int cvips_premultiply(VipsImage *in, VipsImage **out) {
  return vips_premultiply(in, out, NULL);
}

int cvips_unpremultiply(VipsImage *in, VipsImage **out) {
  return vips_unpremultiply(in, out, NULL);
}

int cvips_extract_band(VipsImage *in, VipsImage **out, int band, int count) {
  return vips_extract_band(in, out, band, "n", count, NULL);
}

int cvips_bandjoin2(VipsImage *left, VipsImage *right, VipsImage **out) {
  return vips_bandjoin2(left, right, out, NULL);
}

int cvips_bandjoin_const(VipsImage *in, VipsImage **out, const double *constants, int count) {
  return vips_bandjoin_const(in, out, (double *)constants, count, NULL);
}

int cvips_recomb(VipsImage *in, VipsImage **out, VipsImage *matrix) {
  return vips_recomb(in, out, matrix, NULL);
}

int cvips_gaussblur(VipsImage *in, VipsImage **out, double sigma) {
  return vips_gaussblur(in, out, sigma, NULL);
}

int cvips_sharpen(VipsImage *in, VipsImage **out, double sigma) {
  return vips_sharpen(in, out, "sigma", sigma, NULL);
}

int cvips_composite2(VipsImage *base, VipsImage *overlay, VipsImage **out,
                     VipsBlendMode mode) {
  return vips_composite2(base, overlay, out, mode, NULL);
}

int cvips_ifthenelse_blend(VipsImage *condition, VipsImage *then_image,
                           VipsImage *else_image, VipsImage **out) {
  return vips_ifthenelse(condition, then_image, else_image, out, "blend", TRUE, NULL);
}

int cvips_black(VipsImage **out, int width, int height, int bands) {
  return vips_black(out, width, height, "bands", bands, NULL);
}

int cvips_linear(VipsImage *in, VipsImage **out, const double *a, const double *b, int count,
                 gboolean uchar) {
  return vips_linear(in, out, (double *)a, (double *)b, count, "uchar", uchar, NULL);
}

int cvips_add(VipsImage *left, VipsImage *right, VipsImage **out) {
  return vips_add(left, right, out, NULL);
}

int cvips_subtract(VipsImage *left, VipsImage *right, VipsImage **out) {
  return vips_subtract(left, right, out, NULL);
}

int cvips_multiply(VipsImage *left, VipsImage *right, VipsImage **out) {
  return vips_multiply(left, right, out, NULL);
}

int cvips_abs(VipsImage *in, VipsImage **out) { return vips_abs(in, out, NULL); }

int cvips_bandmean(VipsImage *in, VipsImage **out) { return vips_bandmean(in, out, NULL); }

int cvips_pow_const(VipsImage *in, VipsImage **out, double exponent) {
  return vips_pow_const1(in, out, exponent, NULL);
}

int cvips_avg(VipsImage *in, double *out) { return vips_avg(in, out, NULL); }

int cvips_max(VipsImage *in, double *out) { return vips_max(in, out, NULL); }

int cvips_text(VipsImage **out, const char *text, const char *font, int width, int dpi) {
  return vips_text(out, text, "font", font, "width", width, "dpi", dpi, NULL);
}

int cvips_pngsave_buffer(VipsImage *in, void **data, size_t *length, int compression) {
  return vips_pngsave_buffer(in, data, length, "compression", compression, NULL);
}

int cvips_jpegsave_buffer(VipsImage *in, void **data, size_t *length, int quality) {
  return vips_jpegsave_buffer(in, data, length, "Q", quality, NULL);
}

int cvips_webpsave_buffer(VipsImage *in, void **data, size_t *length, int quality,
                          gboolean lossless) {
  return vips_webpsave_buffer(in, data, length, "Q", quality, "lossless", lossless, NULL);
}

int cvips_pngsave(VipsImage *in, const char *filename, int compression) {
  return vips_pngsave(in, filename, "compression", compression, NULL);
}

int cvips_jpegsave(VipsImage *in, const char *filename, int quality) {
  return vips_jpegsave(in, filename, "Q", quality, NULL);
}

int cvips_webpsave(VipsImage *in, const char *filename, int quality, gboolean lossless) {
  return vips_webpsave(in, filename, "Q", quality, "lossless", lossless, NULL);
}

int cvips_image_write_to_file(VipsImage *in, const char *filename_with_options) {
  return vips_image_write_to_file(in, filename_with_options, NULL);
}

void cvips_vector_set_enabled(int enabled) { vips_vector_set_enabled(enabled ? TRUE : FALSE); }

int cvips_vector_isenabled(void) { return vips_vector_isenabled() ? 1 : 0; }
