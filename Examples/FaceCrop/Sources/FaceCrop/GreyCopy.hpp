#pragma once

#include <vips/vips.h>

#include <vector>

namespace facecrop {

/// One band of 8-bit luminance: what faces are looked for in. At most `longSide` pixels
/// on its long side, but a wide photo keeps `shortSide` on its short one (up to
/// `longestSide` across): at 512 across, a face in a 3:1 photo was under 24 px and missed.
struct GreyCopy {
  static constexpr int longSide = 512;
  static constexpr int shortSide = 256;
  static constexpr int longestSide = 1024;

  /// The long side of the copy of an image of `width` x `height` (before "never enlarge").
  static int longSideFor(int width, int height);

  std::vector<unsigned char> pixels;  // rows of `width` bytes, no padding
  int width = 0;
  int height = 0;

  /// Shrinks (never enlarges) and greys `image`; throws std::runtime_error with
  /// libvips's message.
  static GreyCopy of(VipsImage *image);
};

}  // namespace facecrop
