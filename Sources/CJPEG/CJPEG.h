// libjpeg (Debian's libjpeg62-turbo, which libvips decodes JPEG with), for the shim's
// check of a JPEG's scans (Sources/CVipsShim/JPEGScanCheck.c).
#include <stdio.h>
#include <jpeglib.h>
#include <jerror.h>
