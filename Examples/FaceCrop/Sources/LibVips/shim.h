// libvips from Debian (libvips-dev), shared with imgtool: the C++ target includes
// <vips/vips.h> itself; this target only brings pkg-config's include path and libraries.
