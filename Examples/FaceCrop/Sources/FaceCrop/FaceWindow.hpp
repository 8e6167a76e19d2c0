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

/// A head in fractions of its image, like a FaceBox.
using Head = FaceBox;

/// How far a head reaches past the cascade's face box, which holds the brows to the
/// mouth and cheek to cheek: hair above, the chin below, the ears and hair beside, in
/// multiples of the box's size (as Cloudinary's g_face and thumbor zoom out to the head).
constexpr double headAbove = 0.6;
constexpr double headBelow = 0.35;
constexpr double headSides = 0.25;

/// The head around a face box found by the cascade (it may reach outside the image).
Head headOf(const FaceBox &face);

/// The crop window of faceFill in an image of `imageWidth` x `imageHeight` pixels for a
/// target of `targetWidth` x `targetHeight` pixels (its shape):
///
/// - each face's head (`headOf`) grown by `padding` times the head's size on every side,
///   and kept to the image; the heads united;
/// - the smallest window of the target's shape holding that, but never smaller than the
///   target itself (no enlarging) nor larger than the photo allows (clamped);
/// - centred on the heads and moved inside the photo.
///
/// When not all heads fit in the largest window, it keeps the largest face's and every
/// other that still fits with it, largest first. `faces` must not be empty.
PixelWindow faceWindow(const std::vector<FaceBox> &faces, int imageWidth, int imageHeight,
                       int targetWidth, int targetHeight, double padding);

}  // namespace facecrop
