/* Shared by the shim's own loops (not part of its public header). */
#ifndef CVIPSSHIM_ROW_STRIPS_H
#define CVIPSSHIM_ROW_STRIPS_H

#include <vips/vips.h>
#include "CVipsShim.h"

enum { ROW_STRIP_HEIGHT = 16 /* rows computed at a time */ };

/* What to do with row `y` of an image, `width` pixels at `row`. */
typedef void (*RowFunction)(const VipsPel *row, int y, int width, void *context);

/* Hands each row of `in` to `each`, top to bottom, on the calling thread: a memory image
 * read in place, anything else (a loader, a pipeline) computed a strip at a time, with
 * no threadpool. -1 with libvips's error. */
static inline int each_row(VipsImage *in, RowFunction each, void *context) {
  /* Killed with everything upstream at this thread's deadline (Deadline.c). */
  cvips_deadline_track(in);
  VipsRegion *region = vips_region_new(in);
  for (int top = 0; top < in->Ysize; top += ROW_STRIP_HEIGHT) {
    /* Already late: the prepare below fails. */
    cvips_kill_if_deadline_passed(in);
    VipsRect strip = {0, top, in->Xsize, MIN(ROW_STRIP_HEIGHT, in->Ysize - top)};
    if (vips_region_prepare(region, &strip)) {
      g_object_unref(region);
      return -1;
    }
    for (int y = top; y < top + strip.height; y++)
      each(VIPS_REGION_ADDR(region, 0, y), y, in->Xsize, context);
  }
  g_object_unref(region);
  return 0;
}

#endif
