// libwebp (Debian's libwebp7, which libvips decodes WebP with), for the shim's check of
// a WebP decode that libvips computes in one strip (Sources/CVipsShim/WebPCheck.c).
#include <webp/decode.h>
