/* What decoding only a fill's window of a JPEG can gain: libjpeg-turbo directly, at the DCT
 * scale the avatar family decodes at (libvips thumbnail's shrink-on-load rule for a
 * 256-pixel cover), a full decode against a decode of only the centre square
 * (jpeg_crop_scanline + jpeg_skip_scanlines + stopping after the last row), a 1/8-scale
 * decode (what an attention crop would look at first), and libvips's jpegload at the same
 * scale, computed on this thread in 16-row strips as VipsImage.decode does.
 *
 *   window time ROUNDS MARGIN FILE...   per-file medians of thread CPU time, interleaved
 *   window compare FILE...              the window's pixels against libvips's full decode
 *
 * A benchmark, not a test: it asserts nothing. Build: see ./run. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vips/vips.h>

#include <jpeglib.h> /* after stdio.h: it needs FILE and size_t */

typedef struct {
  struct jpeg_error_mgr pub;
  jmp_buf jump;
} Failure;
static void on_error(j_common_ptr c) { longjmp(((Failure *)c->err)->jump, 1); }
static void quiet(j_common_ptr c, int level) { (void)c, (void)level; }

static double cpu(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

typedef struct {
  const char *name;
  gchar *bytes;
  gsize size;
  int width, height, factor, progressive, h, v;
} Photo;

typedef struct {
  unsigned char *pixels;
  int width, height, bands, left, top; /* in the decode's pixels */
} Decode;

enum { FULL, WINDOW, EIGHTH, LIBVIPS, PROBED, MODES };

/* libjpeg-turbo directly: the whole image at `denom`, or (window) the centre square of the
 * decode, `margin` decoded pixels wider on each side where the photo has them. */
static int decode_direct(const Photo *p, int denom, int window, int margin, Decode *out) {
  struct jpeg_decompress_struct c;
  Failure failure;
  c.err = jpeg_std_error(&failure.pub);
  failure.pub.error_exit = on_error;
  failure.pub.emit_message = quiet;
  unsigned char *volatile pixels = NULL;
  if (setjmp(failure.jump)) {
    jpeg_destroy_decompress(&c);
    free(pixels);
    return -1;
  }
  jpeg_create_decompress(&c);
  jpeg_mem_src(&c, (unsigned char *)p->bytes, p->size);
  jpeg_read_header(&c, TRUE);
  c.scale_num = 1;
  c.scale_denom = denom;
  jpeg_start_decompress(&c);
  int w = c.output_width, h = c.output_height, bands = c.output_components;
  JDIMENSION left = 0, width = w;
  int top = 0, rows = h, side = w < h ? w : h;
  if (window && w > h) {
    int a = MAX(0, (w - side) / 2 - margin), b = MIN(w, (w + side) / 2 + margin);
    left = a, width = b - a;
    jpeg_crop_scanline(&c, &left, &width); /* widens to whole iMCU columns */
  } else if (window && h > w) {
    top = MAX(0, (h - side) / 2 - margin);
    rows = MIN(h, (h + side) / 2 + margin) - top;
  }
  pixels = malloc((size_t)width * bands * rows);
  if (top > 0) jpeg_skip_scanlines(&c, top);
  for (int y = 0; y < rows;) {
    JSAMPROW row = pixels + (size_t)y * width * bands;
    y += jpeg_read_scanlines(&c, &row, 1);
  }
  if (c.output_scanline < c.output_height)
    jpeg_abort_decompress(&c); /* the rows below the window are never entropy-decoded */
  else
    jpeg_finish_decompress(&c);
  jpeg_destroy_decompress(&c);
  *out = (Decode){pixels, width, rows, bands, left, top};
  return 0;
}

/* libvips's jpegload, sequential, computed on this thread a strip of 16 rows at a time
 * into packed rows: what VipsImage.decode does before any colour work. */
static int decode_libvips(const Photo *p, Decode *out) {
  char options[32] = "";
  if (p->factor > 1) snprintf(options, sizeof options, "shrink=%d", p->factor);
  VipsImage *image = vips_image_new_from_buffer(p->bytes, p->size, options, "access",
                                                VIPS_ACCESS_SEQUENTIAL, NULL);
  if (!image) return -1;
  size_t line = VIPS_IMAGE_SIZEOF_LINE(image);
  unsigned char *pixels = malloc(line * image->Ysize);
  VipsRegion *region = vips_region_new(image);
  for (int top = 0; top < image->Ysize; top += 16) {
    VipsRect strip = {0, top, image->Xsize, MIN(16, image->Ysize - top)};
    if (vips_region_prepare(region, &strip)) return -1;
    for (int y = top; y < top + strip.height; y++)
      memcpy(pixels + line * y, VIPS_REGION_ADDR(region, 0, y), line);
  }
  *out = (Decode){pixels, image->Xsize, image->Ysize, image->Bands, 0, 0};
  g_object_unref(region);
  g_object_unref(image);
  return 0;
}

/* What VipsImage.decode does in all: a header-only open of the bytes first (the probe that
 * checks ImageLimits and names the loader), then the load. */
static int decode_probed(const Photo *p, Decode *out) {
  VipsImage *probe = vips_image_new_from_buffer(p->bytes, p->size, "", "access",
                                                VIPS_ACCESS_RANDOM, NULL);
  if (!probe) return -1;
  int status = decode_libvips(p, out);
  g_object_unref(probe);
  return status;
}

static int decode(const Photo *p, int mode, int margin, Decode *out) {
  switch (mode) {
  case FULL: return decode_direct(p, p->factor, 0, 0, out);
  case WINDOW: return decode_direct(p, p->factor, 1, margin, out);
  case EIGHTH: return decode_direct(p, 8, 0, 0, out);
  case LIBVIPS: return decode_libvips(p, out);
  default: return decode_probed(p, out);
  }
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int open_photo(const char *path, Photo *p) {
  memset(p, 0, sizeof *p);
  p->name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  if (!g_file_get_contents(path, &p->bytes, &p->size, NULL)) return -1;
  struct jpeg_decompress_struct c;
  Failure failure;
  c.err = jpeg_std_error(&failure.pub);
  failure.pub.error_exit = on_error;
  if (setjmp(failure.jump)) {
    jpeg_destroy_decompress(&c);
    return -1;
  }
  jpeg_create_decompress(&c);
  jpeg_mem_src(&c, (unsigned char *)p->bytes, p->size);
  jpeg_read_header(&c, TRUE);
  int cmyk = c.jpeg_color_space == JCS_CMYK || c.jpeg_color_space == JCS_YCCK;
  p->width = c.image_width, p->height = c.image_height, p->progressive = c.progressive_mode;
  p->h = c.comp_info[0].h_samp_factor, p->v = c.comp_info[0].v_samp_factor;
  jpeg_destroy_decompress(&c);
  if (cmyk) return -1; /* through libvips in any design: not measured */
  /* The avatar family's largest format covers 256x256: ShrinkOnLoad.factor. */
  double shrink = MIN(p->width, p->height) / 256.0;
  p->factor = shrink >= 16 ? 8 : shrink >= 8 ? 4 : shrink >= 4 ? 2 : 1;
  return 0;
}

static void time_all(int rounds, int margin, Photo *photos, int n) {
  double *t = calloc((size_t)n * MODES * rounds, sizeof(double)), total[MODES] = {0};
  for (int r = 0; r < rounds; r++)
    for (int k = 0; k < MODES; k++) {
      int mode = (k + r) % MODES; /* each round starts with another mode */
      for (int i = 0; i < n; i++) {
        Decode d;
        double start = cpu();
        if (decode(&photos[i], mode, margin, &d)) {
          fprintf(stderr, "%s: decode failed\n", photos[i].name);
          exit(1);
        }
        t[((size_t)i * MODES + mode) * rounds + r] = cpu() - start;
        free(d.pixels);
      }
    }
  printf("%-30s %-9s %-10s %2s %8s %8s %8s %8s %8s %7s %7s %7s %7s\n", "photo (stored size)", "",
         "sampling", "f", "full ms", "window", "1/8", "libvips", "probe+lv", "win/full",
         "(1/8+w)", "full/lv", "full/p+lv");
  for (int i = 0; i < n; i++) {
    double m[MODES];
    for (int k = 0; k < MODES; k++) {
      double *s = &t[((size_t)i * MODES + k) * rounds];
      qsort(s, rounds, sizeof(double), by_value);
      m[k] = s[rounds / 2] * 1e3;
      total[k] += m[k];
    }
    const Photo *p = &photos[i];
    printf("%-30s %4dx%-4d %-4s h%dv%d %2d %8.2f %8.2f %8.2f %8.2f %8.2f %7.3f %7.3f %7.3f %7.3f\n",
           p->name, p->width, p->height, p->progressive ? "prog" : "base", p->h, p->v, p->factor,
           m[FULL], m[WINDOW], m[EIGHTH], m[LIBVIPS], m[PROBED], m[WINDOW] / m[FULL],
           (m[EIGHTH] + m[WINDOW]) / m[FULL], m[FULL] / m[LIBVIPS], m[FULL] / m[PROBED]);
  }
  printf("%-30s %-9s %-10s %2s %8.2f %8.2f %8.2f %8.2f %8.2f %7.3f %7.3f %7.3f %7.3f\n",
         "sum of medians", "", "", "", total[FULL], total[WINDOW], total[EIGHTH], total[LIBVIPS],
         total[PROBED], total[WINDOW] / total[FULL], (total[EIGHTH] + total[WINDOW]) / total[FULL],
         total[FULL] / total[LIBVIPS], total[FULL] / total[PROBED]);
  printf("(%d interleaved rounds, thread CPU; window: centre square + %d decoded pixels each side; "
         "(1/8+w): a 1/8 decode for an attention crop, then the window, over the full decode;\n"
         " lv: libvips jpegload; probe+lv: a header-only open first, as VipsImage.decode does)\n",
         rounds, margin);
  free(t);
}

/* The window's pixels against libvips's full decode at the same scale, cropped: the largest
 * difference and how far inside the window's edges differences reach. */
static void compare(Photo *photos, int n) {
  for (int i = 0; i < n; i++) {
    const Photo *p = &photos[i];
    Decode full, direct, win;
    if (decode(p, LIBVIPS, 0, &full) || decode(p, FULL, 0, &direct) || decode(p, WINDOW, 0, &win)) {
      fprintf(stderr, "%s: decode failed\n", p->name);
      exit(1);
    }
    /* libvips 8.14 keeps floor(size / shrink) of libjpeg's ceil(size / shrink) rows and
     * columns: compare what both have. */
    int same_full = 1;
    for (int y = 0; y < full.height && y < direct.height; y++)
      same_full &= !memcmp(full.pixels + (size_t)y * full.width * full.bands,
                           direct.pixels + (size_t)y * direct.width * direct.bands,
                           (size_t)MIN(full.width, direct.width) * full.bands);
    int largest = 0, deepest = -1;
    long differing = 0;
    int width = MIN(win.width, full.width - win.left);
    int height = MIN(win.height, full.height - win.top);
    for (int y = 0; y < height; y++)
      for (int x = 0; x < width; x++)
        for (int b = 0; b < win.bands; b++) {
          int a = full.pixels[((size_t)(y + win.top) * full.width + x + win.left) * full.bands + b];
          int d = abs(a - win.pixels[((size_t)y * win.width + x) * win.bands + b]);
          if (!d) continue;
          differing++;
          largest = MAX(largest, d);
          int depth = MIN(MIN(x, width - 1 - x), MIN(y, height - 1 - y));
          deepest = MAX(deepest, depth);
        }
    printf("%-30s %s h%dv%d 1/%d: libjpeg %dx%d, libvips %dx%d, %s where both are; window %dx%d at "
           "(%d,%d): ",
           p->name, p->progressive ? "prog" : "base", p->h, p->v, p->factor, direct.width,
           direct.height, full.width, full.height, same_full ? "equal" : "DIFFERENT", win.width,
           win.height, win.left, win.top);
    if (differing)
      printf("%ld values differ, by up to %d, all within %d pixel(s) of the window's edge\n",
             differing, largest, deepest + 1);
    else
      printf("identical\n");
    free(full.pixels), free(direct.pixels), free(win.pixels);
  }
}

int main(int argc, char **argv) {
  if (VIPS_INIT(argv[0])) return 1;
  vips_concurrency_set(1);
  vips_cache_set_max(0);
  int timing = argc > 3 && !strcmp(argv[1], "time");
  if (!timing && !(argc > 2 && !strcmp(argv[1], "compare"))) {
    fprintf(stderr, "usage: window time ROUNDS MARGIN FILE... | window compare FILE...\n");
    return 2;
  }
  int first = timing ? 4 : 2, n = 0;
  Photo *photos = calloc(argc, sizeof(Photo));
  for (int i = first; i < argc; i++)
    if (open_photo(argv[i], &photos[n]) == 0) n++;
    else fprintf(stderr, "%s: skipped (not a YCbCr or grey JPEG)\n", argv[i]);
  if (timing) time_all(atoi(argv[2]), atoi(argv[3]), photos, n);
  else compare(photos, n);
  return 0;
}
