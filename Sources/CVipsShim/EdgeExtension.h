/* Shared by the shim's own loops (not part of its public header). */
#ifndef CVIPSSHIM_EDGE_EXTENSION_H
#define CVIPSSHIM_EDGE_EXTENSION_H

/* The sample a read at `i` gets among `count`: libvips extends an image's edges
 * outwards (the first or last sample repeated) when a kernel reads past them. */
static inline int clamp_index(int i, int count) {
  return i < 0 ? 0 : i >= count ? count - 1 : i;
}

#endif
