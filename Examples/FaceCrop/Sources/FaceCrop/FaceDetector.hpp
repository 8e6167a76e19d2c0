#pragma once

#include "FaceBox.hpp"
#include "GreyCopy.hpp"

#include <string>
#include <vector>

namespace facecrop {

// Frontal faces by OpenCV's Haar cascade `frontalface_alt2` (Debian's opencv-data),
// chosen by measurement against OpenCV's other cascades and dlib's HOG detector
// (Examples/FaceCrop/Benchmarks). Thread-safe: each thread has its own classifier.

/// Where the cascade is read from.
extern const char *const faceCascadePath;

/// Names the detector and its settings: part of the memo key and the processor's
/// version, so that a change re-renders.
extern const char *const faceDetectorName;

/// Checks that the cascade loads; returns an empty string, or why not.
std::string faceCascadeProblem();

/// The faces in `copy`, in fractions of its size, sorted left to right. Throws
/// std::runtime_error when the cascade cannot be loaded.
std::vector<FaceBox> detectFaces(const GreyCopy &copy);

}  // namespace facecrop
