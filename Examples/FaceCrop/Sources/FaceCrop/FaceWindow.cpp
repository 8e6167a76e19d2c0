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
};

}  // namespace

PixelWindow faceWindow(const std::vector<FaceBox> &faces, int imageWidth, int imageHeight,
                       int targetWidth, int targetHeight, double padding) {
  const double aspect = double(targetWidth) / double(targetHeight);
  // The largest window of the target's shape inside the photo.
  const double largestWidth = std::min(double(imageWidth), imageHeight * aspect);
  const double largestHeight = largestWidth / aspect;

  struct Face {
    Edges box, grown;
    size_t order;
  };
  std::vector<Face> pixels;
  for (const FaceBox &face : faces) {
    Edges box{face.left * imageWidth, face.top * imageHeight, (face.left + face.width) * imageWidth,
              (face.top + face.height) * imageHeight};
    const double dx = padding * box.width(), dy = padding * box.height();
    pixels.push_back({box, {box.left - dx, box.top - dy, box.right + dx, box.bottom + dy}, pixels.size()});
  }
  // Largest first; equal sizes keep their left-to-right order.
  std::sort(pixels.begin(), pixels.end(), [](const Face &a, const Face &b) {
    const double areaA = a.box.width() * a.box.height(), areaB = b.box.width() * b.box.height();
    return areaA != areaB ? areaA > areaB : a.order < b.order;
  });
  Edges kept = pixels.front().box, keptGrown = pixels.front().grown;
  for (size_t index = 1; index < pixels.size(); index++) {
    const Edges grown = keptGrown.joined(pixels[index].grown);
    if (grown.width() <= largestWidth && grown.height() <= largestHeight) {
      kept = kept.joined(pixels[index].box);
      keptGrown = grown;
    }
  }

  double width = std::max(keptGrown.width(), keptGrown.height() * aspect);
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
