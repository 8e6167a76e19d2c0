#pragma once

#include "FaceBox.hpp"
#include "ImageToolPlugin.h"

#include <vips/vips.h>

#include <vector>

namespace facecrop {

/// The faces in `image`: a grey copy of it, searched by the detector.
std::vector<FaceBox> findFaces(VipsImage *image);

/// The faces in `image`, found once per fill: every format of a family reads them from
/// the host's memo (interface version 2) after the first has found them.
std::vector<FaceBox> memoisedFaces(const ImageToolContext &context, VipsImage *image);

}  // namespace facecrop
