/* A still WebP decoded by libwebp straight into a memory image, the pixels libvips's
 * webpload gives for the same bytes, without libvips's loader around the decode.
 *
 * Why: libvips 8.14's webpload decodes the frame into a canvas, copies it into a second
 * one, and hands it over one row at a time through a generate function and a sequential
 * cache (webp2vips.c asks for one-row regions): on a 600x400 WebP that took more time
 * than libwebp's decode (perf: GLib, libc and libvips 30% of a render, libwebp 20%).
 *
 * The decode is libvips's (webp2vips.c, read_header and read_frame): the demuxer's first
 * frame (its bitstream alone, not the file: a file whose chunks after the image are
 * damaged decodes whole but not as a frame, and libvips refuses it) decoded as RGBA with
 * libwebp's threads, scaled on load by libwebp to rint(size / factor), as
 * libvips's `scale` option asks; the alpha dropped when the file has none (libvips
 * keeps 4 bands only for a file flagged with alpha). An animation, or anything libwebp
 * refuses, returns 1: the caller then loads with libvips, whose messages judge a
 * damaged file (Tests/VipsTests/WebPDecodeTests.swift compares libwebp's test images,
 * byte for byte and field by field).
 *
 * Metadata (ICC profile, EXIF, XMP) is the probe's: libvips's header read of the same
 * bytes set it from the same chunks.
 *
 * libwebp decodes in one call: the thread's time limit (Deadline.c) is checked before
 * and after it (past it, 2). The pixel limits were checked on the header before.
 */
#include <string.h>

#include <webp/decode.h>
#include <webp/demux.h>

#include "CVipsShim.h"

enum { DECODED = 0, DECLINED = 1, TIMED_OUT = 2 };

static int past_deadline(void) {
  const gint64 deadline = cvips_deadline_get();
  return deadline && g_get_monotonic_time() >= deadline;
}

/* The first frame's bitstream and size, as libvips's read_header and read_next_frame find
 * them, or 0 for a file this path leaves to libvips. */
static int first_frame(const void *data, size_t length, VipsImage *probe, WebPData *bitstream) {
  const WebPData bytes = {data, length};
  WebPDemuxer *demux = WebPDemux(&bytes);
  if (!demux) return 0;
  const uint32_t flags = WebPDemuxGetI(demux, WEBP_FF_FORMAT_FLAGS);
  const int width = (int)WebPDemuxGetI(demux, WEBP_FF_CANVAS_WIDTH);
  const int height = (int)WebPDemuxGetI(demux, WEBP_FF_CANVAS_HEIGHT);
  WebPIterator frame;
  int found = 0;
  /* libvips composes an animation's frames on a canvas: its loader does that. */
  if (!(flags & ANIMATION_FLAG) && width == probe->Xsize && height == probe->Ysize &&
      ((flags & ALPHA_FLAG) ? 4 : 3) == probe->Bands && WebPDemuxGetFrame(demux, 1, &frame)) {
    /* A still image's one frame covers the canvas; anything else is left to libvips. */
    if (frame.x_offset == 0 && frame.y_offset == 0 && frame.width == width &&
        frame.height == height) {
      /* The demuxer points into `data`, which outlives it. */
      *bitstream = frame.fragment;
      found = 1;
    }
    WebPDemuxReleaseIterator(&frame);
  }
  WebPDemuxDelete(demux);
  return found;
}

int cvips_webp_decode_like(VipsImage *probe, const void *data, size_t length, int factor,
                           VipsImage **out) {
  *out = NULL;
  if (probe->BandFmt != VIPS_FORMAT_UCHAR || probe->Coding != VIPS_CODING_NONE ||
      (probe->Bands != 3 && probe->Bands != 4) || factor < 1)
    return DECLINED;
  WebPData bitstream;
  if (!first_frame(data, length, probe, &bitstream)) return DECLINED;
  /* libvips's frame size: VIPS_RINT(canvas * scale), scale = 1 / factor. */
  const double scale = 1.0 / factor;
  const int width = factor > 1 ? (int)VIPS_RINT(probe->Xsize * scale) : probe->Xsize;
  const int height = factor > 1 ? (int)VIPS_RINT(probe->Ysize * scale) : probe->Ysize;
  if (width <= 0 || height <= 0 || width > 0x3FFF || height > 0x3FFF) return DECLINED;
  if (past_deadline()) return TIMED_OUT;

  const size_t stride = (size_t)width * 4;
  uint8_t *pixels = g_try_malloc(stride * (size_t)height);
  if (!pixels) return DECLINED;
  WebPDecoderConfig config;
  if (!WebPInitDecoderConfig(&config)) {
    g_free(pixels);
    return DECLINED;
  }
  config.options.use_threads = 1;
  if (factor > 1) {
    config.options.use_scaling = 1;
    config.options.scaled_width = width;
    config.options.scaled_height = height;
  }
  config.output.colorspace = MODE_RGBA;
  config.output.is_external_memory = 1;
  config.output.u.RGBA.rgba = pixels;
  config.output.u.RGBA.stride = (int)stride;
  config.output.u.RGBA.size = stride * (size_t)height;
  const VP8StatusCode status = WebPDecode(bitstream.bytes, bitstream.size, &config);
  WebPFreeDecBuffer(&config.output);
  if (status != VP8_STATUS_OK) {
    g_free(pixels);
    return DECLINED;
  }
  if (past_deadline()) {
    g_free(pixels);
    return TIMED_OUT;
  }
  if (probe->Bands == 3) {
    /* Alpha is solid: drop it, in place (each pixel moves down, never past the next). */
    const size_t count = (size_t)width * height;
    for (size_t i = 0; i < count; i++) {
      pixels[3 * i] = pixels[4 * i];
      pixels[3 * i + 1] = pixels[4 * i + 1];
      pixels[3 * i + 2] = pixels[4 * i + 2];
    }
  }
  return cvips_decoded_image(probe, pixels, width, height, out) ? DECLINED : DECODED;
}
