#pragma once

namespace facecrop {

/// A face's box in fractions of its image's width and height, so that it holds for the
/// image at any size.
struct FaceBox {
  double left;
  double top;
  double width;
  double height;
};

}  // namespace facecrop
