// libwebp (Debian's libwebp7, which libvips decodes WebP with), for the shim's WebP
// decode (Sources/CVipsShim/WebPDecode.c, through the demuxer as libvips reads a frame)
// and its check of a WebP decode that libvips computes in one strip (WebPCheck.c).
#include <webp/decode.h>
#include <webp/demux.h>
