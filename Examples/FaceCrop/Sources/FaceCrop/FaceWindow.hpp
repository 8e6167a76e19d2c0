#pragma once

#include "FaceBox.hpp"

#include <vector>

namespace facecrop {

/// A rectangle of whole pixels inside an image.
struct PixelWindow {
  int left;
  int top;
  int width;
  int height;
};

/// The crop window of faceFill in an image of `imageWidth` x `imageHeight` pixels for a
/// target of `targetWidth` x `targetHeight` pixels (its shape):
///
/// - each face grown by `padding` times its size on every side; the faces united;
/// - the smallest window of the target's shape holding that, but never smaller than the
///   target itself (no enlarging) nor larger than the photo allows (clamped);
/// - centred on the faces and moved inside the photo.
///
/// When not all faces fit in the largest window, it keeps the largest face and every
/// other face that still fits with it, largest first. `faces` must not be empty.
PixelWindow faceWindow(const std::vector<FaceBox> &faces, int imageWidth, int imageHeight,
                       int targetWidth, int targetHeight, double padding);

}  // namespace facecrop
