#include "IndependentDetector.h"

#include <opencv2/imgproc.hpp>
#include <opencv2/objdetect.hpp>
#include <vips/vips.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

// 6 neighbours, not the 4 the plugin uses: at 4 this cascade also found the astronaut's
// collar in an avatar, and a test's detector must not see faces that are not there.
constexpr int neighbours = 6;

const char *const cascadePath = "/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml";

/// This thread's classifier: a CascadeClassifier is not safe to share between threads.
cv::CascadeClassifier &classifier() {
  thread_local std::unique_ptr<cv::CascadeClassifier> loaded;
  if (!loaded) {
    auto made = std::make_unique<cv::CascadeClassifier>();
    if (!made->load(cascadePath))
      throw std::runtime_error(std::string("cannot load ") + cascadePath +
                               ": install Debian's opencv-data (Scripts/bootstrap --face)");
    loaded = std::move(made);
  }
  return *loaded;
}

/// Releases the images of one conversion, whatever happens.
struct Owned {
  VipsImage *images[5] = {nullptr, nullptr, nullptr, nullptr, nullptr};
  size_t used = 0;
  VipsImage **next() { return &images[used++]; }
  ~Owned() {
    for (VipsImage *image : images)
      if (image) g_object_unref(image);
  }
};

[[noreturn]] void fail(const char *step) {
  std::string message = std::string("independent detector (") + step + "): " + vips_error_buffer();
  vips_error_clear();
  throw std::runtime_error(message);
}

}  // namespace

extern "C" int32_t independent_detect_faces(void *image, int32_t minimum_side, double *boxes,
                                            int32_t capacity, char *error, size_t error_size) {
  if (!image) return -1;
  try {
    Owned owned;
    VipsImage *current = static_cast<VipsImage *>(image);
    if (vips_image_hasalpha(current)) {
      VipsImage **flat = owned.next();
      VipsArrayDouble *white = vips_array_double_newv(1, 255.0);
      const int status = vips_flatten(current, flat, "background", white, nullptr);
      vips_area_unref(VIPS_AREA(white));
      if (status) fail("flatten");
      current = *flat;
    }
    const int shorter = std::min(vips_image_get_width(current), vips_image_get_height(current));
    if (shorter < minimum_side) {
      VipsImage **larger = owned.next();
      if (vips_resize(current, larger, double(minimum_side) / shorter, "kernel", VIPS_KERNEL_CUBIC,
                      nullptr))
        fail("resize");
      current = *larger;
    }
    VipsImage **grey = owned.next(), **band = owned.next(), **bytes = owned.next();
    if (vips_colourspace(current, grey, VIPS_INTERPRETATION_B_W, nullptr)) fail("colourspace");
    if (vips_extract_band(*grey, band, 0, nullptr)) fail("extract_band");
    if (vips_cast_uchar(*band, bytes, nullptr)) fail("cast");
    size_t size = 0;
    void *memory = vips_image_write_to_memory(*bytes, &size);
    if (!memory) fail("write_to_memory");
    const int width = vips_image_get_width(*bytes), height = vips_image_get_height(*bytes);
    std::vector<cv::Rect> found;
    {
      cv::Mat pixels(height, width, CV_8UC1, memory), equalised;
      cv::equalizeHist(pixels, equalised);
      classifier().detectMultiScale(equalised, found, 1.1, neighbours, 0, cv::Size(24, 24));
    }
    g_free(memory);
    for (size_t index = 0; index < std::min(found.size(), size_t(std::max(0, capacity))); index++) {
      boxes[4 * index] = double(found[index].x) / width;
      boxes[4 * index + 1] = double(found[index].y) / height;
      boxes[4 * index + 2] = double(found[index].width) / width;
      boxes[4 * index + 3] = double(found[index].height) / height;
    }
    return int32_t(found.size());
  } catch (const std::exception &failure) {
    if (error && error_size > 0) std::snprintf(error, error_size, "%s", failure.what());
    return -1;
  }
}
