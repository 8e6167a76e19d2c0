/* Whether libwebp decodes a WebP whole, for a decode libvips computes in one strip.
 *
 * libvips 8.14 drops a WebP loader's failure ("webp2vips: unable to read pixels") when
 * the whole decode is one strip of rows (at most ROW_STRIP_HEIGHT rows, as the shim
 * computes it): the failure shows only as warnings ("error in tile 0 x N") raised on
 * libvips's own threads and a message in its one error buffer, the region comes back
 * prepared and the pixels black. A taller decode fails at its second strip. Seen on a
 * fuzzed 2,454x100 WebP cut short, which a fit into 64x64 shrank on load to 307x12
 * (issue 25). So for such a decode libwebp itself decodes the file again, at the same
 * scale: it costs a small decode, and only for a photo that small or that wide.
 */
#include "CVipsShim.h"
#include "RowStrips.h"

#include <math.h>
#include <stdlib.h>
#include <webp/decode.h>

int cvips_webp_decodes_whole(const uint8_t *data, size_t size, int factor) {
  WebPBitstreamFeatures features;
  if (WebPGetFeatures(data, size, &features) != VP8_STATUS_OK) return 0;
  /* Animations are read frame by frame by libvips's demuxer, not by WebPDecode. */
  if (features.has_animation) return 1;
  const int width = factor > 1 ? (int)rint(features.width / (double)factor) : features.width;
  const int height =
      factor > 1 ? (int)rint(features.height / (double)factor) : features.height;
  if (height > ROW_STRIP_HEIGHT || width < 1 || height < 1) return 1;
  WebPDecoderConfig config;
  if (!WebPInitDecoderConfig(&config)) return 0;
  if (factor > 1) {
    config.options.use_scaling = 1;
    config.options.scaled_width = width;
    config.options.scaled_height = height;
  }
  config.output.colorspace = MODE_RGBA;
  const VP8StatusCode status = WebPDecode(data, size, &config);
  WebPFreeDecBuffer(&config.output);
  return status == VP8_STATUS_OK;
}
