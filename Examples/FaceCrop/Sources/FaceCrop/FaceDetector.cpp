#include "FaceDetector.hpp"

#include <opencv2/imgproc.hpp>
#include <opencv2/objdetect.hpp>

#include <algorithm>
#include <memory>
#include <stdexcept>

namespace facecrop {

const char *const faceCascadePath = "/usr/share/opencv4/haarcascades/haarcascade_frontalface_alt2.xml";
const char *const faceDetectorName = "opencv-haar-alt2(scale: 1.1, neighbours: 4, minimum: 12, grey: 512 or 256 short)";

namespace {

// The settings measured in Benchmarks/detectors.cpp: faces of 12 grey pixels and up
// (a face a twentieth of a wide photo's width), a 10% step between scales, 4 neighbours.
constexpr double scaleStep = 1.1;
constexpr int neighbours = 4;
constexpr int minimumSize = 12;

/// This thread's classifier, loaded on first use: a CascadeClassifier is not safe to
/// share between threads that detect at once.
cv::CascadeClassifier &classifier() {
  thread_local std::unique_ptr<cv::CascadeClassifier> loaded;
  if (!loaded) {
    auto made = std::make_unique<cv::CascadeClassifier>();
    if (!made->load(faceCascadePath))
      throw std::runtime_error(std::string("cannot load the face cascade ") + faceCascadePath +
                               ": install Debian's opencv-data (Scripts/bootstrap --face)");
    loaded = std::move(made);
  }
  return *loaded;
}

}  // namespace

std::string faceCascadeProblem() {
  try {
    classifier();
    return "";
  } catch (const std::exception &error) {
    return error.what();
  }
}

std::vector<FaceBox> detectFaces(const GreyCopy &copy) {
  if (copy.width <= 0 || copy.height <= 0) return {};
  // OpenCV reads the pixels in place; it does not write them.
  cv::Mat grey(copy.height, copy.width, CV_8UC1, const_cast<unsigned char *>(copy.pixels.data()));
  cv::Mat equalised;
  cv::equalizeHist(grey, equalised);
  std::vector<cv::Rect> found;
  classifier().detectMultiScale(equalised, found, scaleStep, neighbours, 0,
                                cv::Size(minimumSize, minimumSize));
  std::vector<FaceBox> faces;
  for (const cv::Rect &rect : found)
    faces.push_back({double(rect.x) / copy.width, double(rect.y) / copy.height,
                     double(rect.width) / copy.width, double(rect.height) / copy.height});
  std::sort(faces.begin(), faces.end(), [](const FaceBox &a, const FaceBox &b) {
    return a.left != b.left ? a.left < b.left : a.top < b.top;
  });
  return faces;
}

}  // namespace facecrop
