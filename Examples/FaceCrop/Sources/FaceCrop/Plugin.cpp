// The plugin's exported functions: the interface of ImageToolPlugin.h, and the face
// finder on its own for tests and tools (FaceCrop.h).
#include "FaceCrop.h"

#include "FaceFill.hpp"
#include "FaceFinding.hpp"
#include "FaceWindow.hpp"

#include <opencv2/core/utility.hpp>
#include <vips/vips.h>

#include <algorithm>
#include <cstdio>
#include <exception>

extern "C" uint32_t imagetool_plugin_abi_version(void) {
  // Version 2: faceFill keeps the faces in the fill's memo and falls back to the host's fill.
  return IMAGETOOL_PLUGIN_ABI_VERSION;
}

extern "C" int32_t imagetool_plugin_register(const ImageToolHost *host) {
  if (!host || host->abi_version != IMAGETOOL_PLUGIN_ABI_VERSION || !host->register_processor) return 1;
  // imgtool fills many photos at once (--jobs); OpenCV's own threads would only compete.
  cv::setNumThreads(1);
  char error[512] = {0};
  return host->register_processor(host->host, &facecrop::faceFillDefinition(), error, sizeof error);
}

extern "C" int32_t facecrop_detect_faces(void *image, double *boxes, int32_t capacity, char *error,
                                         size_t error_size) {
  if (!image) return -1;
  try {
    const auto faces = facecrop::findFaces(static_cast<VipsImage *>(image));
    for (size_t index = 0; index < std::min(faces.size(), size_t(std::max(0, capacity))); index++) {
      boxes[4 * index] = faces[index].left;
      boxes[4 * index + 1] = faces[index].top;
      boxes[4 * index + 2] = faces[index].width;
      boxes[4 * index + 3] = faces[index].height;
    }
    return int32_t(faces.size());
  } catch (const std::exception &failure) {
    if (error && error_size > 0) std::snprintf(error, error_size, "%s", failure.what());
    return -1;
  }
}

extern "C" int32_t facecrop_face_window(void *image, int32_t target_width, int32_t target_height,
                                        double padding, int32_t *window, char *error,
                                        size_t error_size) {
  if (!image || !window || target_width <= 0 || target_height <= 0) return -1;
  try {
    auto *input = static_cast<VipsImage *>(image);
    const auto faces = facecrop::findFaces(input);
    if (faces.empty()) return 0;
    const facecrop::PixelWindow found =
        facecrop::faceWindow(faces, vips_image_get_width(input), vips_image_get_height(input),
                             target_width, target_height, padding);
    window[0] = found.left;
    window[1] = found.top;
    window[2] = found.width;
    window[3] = found.height;
    return 1;
  } catch (const std::exception &failure) {
    if (error && error_size > 0) std::snprintf(error, error_size, "%s", failure.what());
    return -1;
  }
}
