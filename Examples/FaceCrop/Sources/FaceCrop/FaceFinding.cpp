#include "FaceFinding.hpp"

#include "FaceDetector.hpp"
#include "GreyCopy.hpp"

#include <string>

namespace facecrop {

std::vector<FaceBox> findFaces(VipsImage *image) { return detectFaces(GreyCopy::of(image)); }

std::vector<FaceBox> memoisedFaces(const ImageToolContext &context, VipsImage *image) {
  // The faces depend on the image only; its size in the key keeps a pipeline that crops
  // before faceFill from reading another format's faces.
  const std::string key = std::string("faceFill.faces:") + faceDetectorName + ":" +
                          std::to_string(vips_image_get_width(image)) + "x" +
                          std::to_string(vips_image_get_height(image));
  std::vector<double> values(4 * 16);
  int32_t count = context.memo_lookup(context.host_state, key.c_str(), values.data(), int32_t(values.size()));
  if (count > int32_t(values.size())) {
    values.resize(size_t(count));
    count = context.memo_lookup(context.host_state, key.c_str(), values.data(), int32_t(values.size()));
  }
  if (count >= 0) {
    std::vector<FaceBox> faces;
    for (int32_t index = 0; index + 3 < count; index += 4)
      faces.push_back({values[size_t(index)], values[size_t(index) + 1], values[size_t(index) + 2],
                       values[size_t(index) + 3]});
    return faces;
  }
  std::vector<FaceBox> faces = findFaces(image);
  values.clear();
  for (const FaceBox &face : faces) values.insert(values.end(), {face.left, face.top, face.width, face.height});
  context.memo_store(context.host_state, key.c_str(), values.data(), int32_t(values.size()));
  return faces;
}

}  // namespace facecrop
