#ifndef INDEPENDENT_DETECTOR_H
#define INDEPENDENT_DETECTOR_H

/*
 * A second face detector for FaceCrop's tests, independent of the plugin's: OpenCV's
 * Haar cascade `frontalface_default` (the plugin uses `frontalface_alt2`, trained
 * apart), run on the image itself, not on the plugin's grey copy, with 6 neighbours.
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The frontal faces in `image` (a libvips `VipsImage *`, borrowed; alpha flattened onto
 * white): an image under `minimum_side` pixels on its short side is enlarged to it
 * first (an avatar of 64 pixels holds a face under the cascade's 24-pixel window).
 * Writes up to `capacity` boxes into `boxes`, four numbers each (left, top, width,
 * height) in fractions of the image's width and height, and returns how many faces
 * there are; or returns -1 with a message in `error`. */
int32_t independent_detect_faces(void *image, int32_t minimum_side, double *boxes,
                                 int32_t capacity, char *error, size_t error_size);

#ifdef __cplusplus
}
#endif

#endif
