// The plugin's exported functions: the interface of ImageToolPlugin.h, and the face
// finder on its own for tests and tools (FaceCrop.h).
#include "FaceCrop.h"

#include "FaceFill.hpp"
#include "FaceFinding.hpp"

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
