/* Memory images the shim writes whole, without zeroing them first.
 *
 * vips_image_write_prepare allocates a memory image's pixels with vips_tracked_malloc,
 * a calloc: every page of a decode was zeroed (and, fresh from the kernel, faulted in
 * and zeroed there too) just before the decode overwrote it, 0.7% of a render's CPU.
 */
#include "CVipsShim.h"

static void free_pixels(VipsImage *image, void *pixels) {
  (void)image;
  g_free(pixels);
}

VipsImage *cvips_unzeroed_memory_image_like(VipsImage *in) {
  const size_t size = VIPS_IMAGE_SIZEOF_IMAGE(in);
  void *pixels = g_try_malloc(size ? size : 1);
  if (!pixels) {
    vips_error("copy_memory", "out of memory for %zu bytes", size);
    return NULL;
  }
  /* The pixels go with the image (its last reference), as a memory image's do. */
  return cvips_memory_image_taking(in, pixels, in->Xsize, in->Ysize);
}

VipsImage *cvips_memory_image_taking(VipsImage *like, void *pixels, int width, int height) {
  const size_t size = (size_t)width * height * VIPS_IMAGE_SIZEOF_PEL(like);
  VipsImage *image =
      vips_image_new_from_memory(pixels, size, width, height, like->Bands, like->BandFmt);
  if (!image) {
    g_free(pixels);
    return NULL;
  }
  g_signal_connect(image, "postclose", G_CALLBACK(free_pixels), pixels);
  if (vips_image_pipelinev(image, VIPS_DEMAND_STYLE_THINSTRIP, like, NULL)) {
    g_object_unref(image);
    return NULL;
  }
  /* pipelinev copied `like`'s fields, its size among them. */
  image->Xsize = width;
  image->Ysize = height;
  return image;
}

int cvips_decoded_image(VipsImage *like, void *pixels, int width, int height, VipsImage **out) {
  *out = cvips_memory_image_taking(like, pixels, width, height);
  if (*out) return 0;
  /* Not the file's fault: the caller's libvips load will say what is wrong, if anything. */
  vips_error_clear();
  cvips_thread_errors_clear();
  return 1;
}
