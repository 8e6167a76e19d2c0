#pragma once

#include <vips/vips.h>

#include <vector>

namespace facecrop {

/// One band of 8-bit luminance, at most `GreyCopy::longSide` pixels on its long side:
/// what faces are looked for in.
struct GreyCopy {
  static constexpr int longSide = 512;

  std::vector<unsigned char> pixels;  // rows of `width` bytes, no padding
  int width = 0;
  int height = 0;

  /// Shrinks (never enlarges) and greys `image`; throws std::runtime_error with
  /// libvips's message.
  static GreyCopy of(VipsImage *image);
};

}  // namespace facecrop
