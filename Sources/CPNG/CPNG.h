// libpng (Debian's libpng16-16, which libvips decodes PNG with), for the shim's decode of
// a clean PNG straight into memory (Sources/CVipsShim/PNGDecode.c).
#include <png.h>
