/* An entry's pixels stored in its style's bytes (Rasterizer.draw's two hot rows), in C:
 * Swift's loop, with its bounds and overflow checks and a 32-bit division, took 4.8% of a
 * render of 40 small photos (perf, release build); this one, still one pixel at a time
 * (the compiler does not vectorise the interleaved bytes), takes 2.9 to 3.2%. Same bytes
 * as PixelStyle's own store (Tests/ImageProcessingTests/StylePixelsTests.swift).
 */
#include "CVipsShim.h"

#include <stdint.h>

/* (c x a + 127) / 255 in 16 bits: with t = c x a + 127 (at most 65,152), t / 255 is
 * (t + 1 + (t >> 8)) >> 8 for every t below 65,535 (the tests check all 65,536 pairs). */
static inline uint8_t premultiply(uint16_t c, uint16_t a) {
  const uint16_t t = (uint16_t)(c * a + 127);
  return (uint8_t)((t + 1 + (t >> 8)) >> 8);
}

void cvips_store_premultiplied_bgra(const uint8_t *restrict rgba, uint8_t *restrict bgra,
                                    int count) {
  for (int x = 0; x < count; x++) {
    const uint16_t a = rgba[4 * x + 3];
    bgra[4 * x] = premultiply(rgba[4 * x + 2], a);
    bgra[4 * x + 1] = premultiply(rgba[4 * x + 1], a);
    bgra[4 * x + 2] = premultiply(rgba[4 * x], a);
    bgra[4 * x + 3] = (uint8_t)a;
  }
}

void cvips_store_bgrx(const uint8_t *restrict rgb, uint8_t *restrict bgrx, int count) {
  for (int x = 0; x < count; x++) {
    bgrx[4 * x] = rgb[3 * x + 2];
    bgrx[4 * x + 1] = rgb[3 * x + 1];
    bgrx[4 * x + 2] = rgb[3 * x];
    bgrx[4 * x + 3] = 0xFF;
  }
}
