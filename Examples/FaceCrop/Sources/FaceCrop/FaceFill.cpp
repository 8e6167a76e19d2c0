#include "FaceFill.hpp"

#include "FaceDetector.hpp"
#include "FaceFinding.hpp"
#include "FaceWindow.hpp"

#include <vips/vips.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

namespace facecrop {

namespace {

struct FaceFillState {
  double padding = 0.2;
  std::string fallback = "attention";
};

void writeError(char *error, size_t size, const std::string &message) {
  if (!error || size == 0) return;
  std::snprintf(error, size, "%s", message.c_str());
}

const ImageToolParameter parameters[] = {
    {"padding", "number", "0.2", 0, 4,
     "How much room around each head (hair to chin), in multiples of its size on every side."},
    {"fallback", "choice:attention|centre|entropy", "attention", 0, 0,
     "The crop of a photo without a face, as fill(crop: ...) makes it."},
};

void *create(const ImageToolArgument *arguments, int32_t count, char *error, size_t errorSize) {
  auto *state = new FaceFillState();
  for (int32_t index = 0; index < count; index++) {
    const ImageToolArgument &argument = arguments[index];
    if (!argument.name || !argument.value) continue;
    if (std::strcmp(argument.name, "padding") == 0) state->padding = std::strtod(argument.value, nullptr);
    if (std::strcmp(argument.name, "fallback") == 0) state->fallback = argument.value;
  }
  // A missing cascade is a problem of the whole pipeline: say so when it is built.
  std::string problem = faceCascadeProblem();
  if (!problem.empty()) {
    writeError(error, errorSize, problem);
    delete state;
    return nullptr;
  }
  return state;
}

void destroy(void *state) { delete static_cast<FaceFillState *>(state); }

/// Runs `spec` of the host's processors on `input`; false with the host's message.
bool runHost(const ImageToolContext &context, const std::string &spec, VipsImage *input,
             void **output, char *error, size_t errorSize) {
  char message[512] = {0};
  if (context.run_pipeline(context.host_state, spec.c_str(), input, output, message, sizeof message) != 0) {
    writeError(error, errorSize, spec + ": " + message);
    return false;
  }
  return true;
}

int32_t process(void *rawState, void *rawInput, void **output, const ImageToolContext *context,
                char *error, size_t errorSize) {
  if (!rawState || !rawInput || !output || !context) return 1;
  const auto &state = *static_cast<FaceFillState *>(rawState);
  auto *input = static_cast<VipsImage *>(rawInput);
  try {
    const std::vector<FaceBox> faces = memoisedFaces(*context, input);
    if (faces.empty()) {
      return runHost(*context, "fill(crop: " + state.fallback + ")", input, output, error, errorSize) ? 0 : 1;
    }
    const int width = vips_image_get_width(input), height = vips_image_get_height(input);
    const PixelWindow window =
        faceWindow(faces, width, height, context->pixel_width, context->pixel_height, state.padding);
    VipsImage *cropped = nullptr;
    if (vips_extract_area(input, &cropped, window.left, window.top, window.width, window.height, nullptr)) {
      writeError(error, errorSize, std::string("cannot crop the face window: ") + vips_error_buffer());
      vips_error_clear();
      return 1;
    }
    // The window has the target's shape up to a pixel of rounding: the host's own
    // fill resizes it to cover the target exactly, as every other format is resized.
    const bool done = runHost(*context, "fill(crop: centre)", cropped, output, error, errorSize);
    g_object_unref(cropped);
    return done ? 0 : 1;
  } catch (const std::exception &failure) {
    writeError(error, errorSize, failure.what());
    return 1;
  }
}

}  // namespace

const ImageToolProcessorDefinition &faceFillDefinition() {
  static const ImageToolProcessorDefinition definition = {
      "faceFill",
      2,
      "Cover the format's size with a window on the faces (OpenCV), else fall back to fill "
      "(a plugin: Examples/FaceCrop).",
      parameters,
      int32_t(sizeof parameters / sizeof parameters[0]),
      create,
      process,
      destroy,
  };
  return definition;
}

}  // namespace facecrop
