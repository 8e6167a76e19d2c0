// The plugin interface is declarations only (include/ImageToolPlugin.h); SwiftPM
// needs one source file to make it a C target.
#include "ImageToolPlugin.h"
