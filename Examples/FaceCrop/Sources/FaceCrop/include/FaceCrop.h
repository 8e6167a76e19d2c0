#ifndef FACECROP_H
#define FACECROP_H

/*
 * FaceCrop: an imgtool processor plugin (interface version 2, ImageToolPlugin.h) that
 * adds `faceFill(padding: 0.2, fallback: attention | centre | entropy)`: cover the
 * format's size with a window on the heads of the faces OpenCV finds, or the fallback
 * crop when there are none.
 */

#include <stddef.h>
#include <stdint.h>

#include "ImageToolPlugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The plugin's two entry points (see ImageToolPlugin.h). */
uint32_t imagetool_plugin_abi_version(void);
int32_t imagetool_plugin_register(const ImageToolHost *host);

/* Finds the faces in `image` (a libvips `VipsImage *`, borrowed) exactly as faceFill
 * does: frontal faces, on a grey copy at most 512 pixels on its long side (or 256 on
 * its short side, for a wide image, up to 1024 across). Writes up to
 * `capacity` boxes into `boxes`, four numbers each (left, top, width, height) in
 * fractions of the image's width and height, and returns how many faces there are;
 * or returns -1 with a message in `error`. */
int32_t facecrop_detect_faces(void *image, double *boxes, int32_t capacity, char *error,
                              size_t error_size);

/* faceFill's window in `image` (borrowed) for a format of `target_width` x
 * `target_height` pixels and `padding`, as faceFill cuts it before the host's fill:
 * writes its left, top, width and height in the image's pixels into `window` and
 * returns 1; returns 0 when there is no face (faceFill falls back), or -1 with a
 * message in `error`. */
int32_t facecrop_face_window(void *image, int32_t target_width, int32_t target_height,
                             double padding, int32_t *window, char *error, size_t error_size);

#ifdef __cplusplus
}
#endif

#endif
