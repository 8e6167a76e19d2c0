#pragma once

#include "ImageToolPlugin.h"

namespace facecrop {

/// `faceFill(padding:fallback:)` as the plugin interface describes a processor.
/// Raise `version` whenever its output changes (the detector, its settings, the window):
/// every table made with the old one is then re-rendered.
const ImageToolProcessorDefinition &faceFillDefinition();

}  // namespace facecrop
