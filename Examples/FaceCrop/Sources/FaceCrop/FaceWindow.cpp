#include "FaceWindow.hpp"

#include <algorithm>
#include <cmath>

namespace facecrop {

namespace {

/// A rectangle in pixels, by its edges.
struct Edges {
  double left, top, right, bottom;
  double width() const { return right - left; }
  double height() const { return bottom - top; }
  Edges joined(const Edges &other) const {
    return {std::min(left, other.left), std::min(top, other.top), std::max(right, other.right),
            std::max(bottom, other.bottom)};
  }
  Edges clipped(const Edges &frame) const {
    return {std::max(left, frame.left), std::max(top, frame.top), std::min(right, frame.right),
            std::min(bottom, frame.bottom)};
  }
};

}  // namespace

Head headOf(const FaceBox &face) {
  return {face.left - headSides * face.width, face.top - headAbove * face.height,
          face.width * (1 + 2 * headSides), face.height * (1 + headAbove + headBelow)};
}

PixelWindow faceWindow(const std::vector<FaceBox> &faces, int imageWidth, int imageHeight,
                       int targetWidth, int targetHeight, double padding) {
  const double aspect = double(targetWidth) / double(targetHeight);
  // The largest window of the target's shape inside the photo.
  const double largestWidth = std::min(double(imageWidth), imageHeight * aspect);
  const double largestHeight = largestWidth / aspect;
  const Edges photo{0, 0, double(imageWidth), double(imageHeight)};

  struct Face {
    double area;
    Edges grown;
    size_t order;
  };
  std::vector<Face> pixels;
  for (const FaceBox &face : faces) {
    const Head head = headOf(face);
    const Edges box{head.left * imageWidth, head.top * imageHeight,
                    (head.left + head.width) * imageWidth, (head.top + head.height) * imageHeight};
    const double dx = padding * box.width(), dy = padding * box.height();
    // The head and its margin, as much of it as the photo has.
    const Edges grown =
        Edges{box.left - dx, box.top - dy, box.right + dx, box.bottom + dy}.clipped(photo);
    pixels.push_back({face.width * face.height, grown, pixels.size()});
  }
  // Largest first; equal sizes keep their left-to-right order.
  std::sort(pixels.begin(), pixels.end(), [](const Face &a, const Face &b) {
    return a.area != b.area ? a.area > b.area : a.order < b.order;
  });
  Edges kept = pixels.front().grown;
  for (size_t index = 1; index < pixels.size(); index++) {
    const Edges joined = kept.joined(pixels[index].grown);
    if (joined.width() <= largestWidth && joined.height() <= largestHeight) kept = joined;
  }

  double width = std::max(kept.width(), kept.height() * aspect);
  width = std::max(width, double(targetWidth));  // never enlarge
  width = std::min(width, largestWidth);          // clamped to the photo
  const double height = width / aspect;
  const int windowWidth = std::clamp(int(std::lround(width)), 1, imageWidth);
  const int windowHeight = std::clamp(int(std::lround(height)), 1, imageHeight);
  const double centreX = (kept.left + kept.right) / 2, centreY = (kept.top + kept.bottom) / 2;
  const int left = std::clamp(int(std::lround(centreX - windowWidth / 2.0)), 0, imageWidth - windowWidth);
  const int top = std::clamp(int(std::lround(centreY - windowHeight / 2.0)), 0, imageHeight - windowHeight);
  return {left, top, windowWidth, windowHeight};
}

}  // namespace facecrop
