#include "GreyCopy.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace facecrop {

namespace {

/// Releases the images of one conversion, whatever happens.
struct Owned {
  VipsImage *images[4] = {nullptr, nullptr, nullptr, nullptr};
  ~Owned() {
    for (VipsImage *image : images)
      if (image) g_object_unref(image);
  }
};

[[noreturn]] void fail(const char *step) {
  std::string message = std::string("cannot make the grey copy (") + step + "): " + vips_error_buffer();
  vips_error_clear();
  throw std::runtime_error(message);
}

}  // namespace

int GreyCopy::longSideFor(int width, int height) {
  const int longer = std::max(width, height), shorter = std::max(1, std::min(width, height));
  const double wide = double(shortSide) * longer / shorter;
  return std::clamp(int(std::lround(wide)), longSide, longestSide);
}

GreyCopy GreyCopy::of(VipsImage *image) {
  Owned owned;
  VipsImage *&small = owned.images[0], *&grey = owned.images[1], *&band = owned.images[2],
            *&bytes = owned.images[3];
  const int side = longSideFor(vips_image_get_width(image), vips_image_get_height(image));
  if (vips_thumbnail_image(image, &small, side, "height", side, "size", VIPS_SIZE_DOWN, nullptr))
    fail("thumbnail");
  if (vips_colourspace(small, &grey, VIPS_INTERPRETATION_B_W, nullptr)) fail("colourspace");
  if (vips_extract_band(grey, &band, 0, nullptr)) fail("extract_band");
  if (vips_cast_uchar(band, &bytes, nullptr)) fail("cast");
  size_t size = 0;
  void *memory = vips_image_write_to_memory(bytes, &size);
  if (!memory) fail("write_to_memory");
  GreyCopy copy;
  copy.width = vips_image_get_width(bytes);
  copy.height = vips_image_get_height(bytes);
  auto *start = static_cast<unsigned char *>(memory);
  copy.pixels.assign(start, start + size);
  g_free(memory);
  return copy;
}

}  // namespace facecrop
