#ifndef IMAGETOOL_CVIPSSHIM_H
#define IMAGETOOL_CVIPSSHIM_H

// One non-variadic function per libvips call that Swift cannot make itself:
// variadic operations and macros. No logic lives here: each function passes its
// arguments through, with the optional arguments named explicitly.

#include <stdint.h>
#include <vips/vips.h>

int cvips_init(const char *argv0);

// Loading.
int cvips_image_new_from_file(const char *filename, VipsImage **out, VipsAccess access,
                              VipsFailOn fail_on);
int cvips_image_new_from_buffer(const void *data, size_t length, VipsImage **out,
                                VipsAccess access, VipsFailOn fail_on);
int cvips_image_new_from_buffer_options(const void *data, size_t length,
                                        const char *option_string, VipsImage **out,
                                        VipsAccess access, VipsFailOn fail_on);
int cvips_thumbnail_source(VipsSource *source, VipsImage **out, int width, int height,
                           VipsInteresting crop, VipsSize size, const char *option_string,
                           const char *output_profile);
int cvips_thumbnail_buffer(void *data, size_t length, VipsImage **out, int width, int height,
                           VipsInteresting crop, VipsSize size, const char *option_string,
                           const char *output_profile);
int cvips_thumbnail_image(VipsImage *in, VipsImage **out, int width, int height,
                          VipsInteresting crop, VipsSize size, const char *output_profile);

// Geometry.
int cvips_resize(VipsImage *in, VipsImage **out, double hscale, double vscale);
int cvips_extract_area(VipsImage *in, VipsImage **out, int left, int top, int width,
                       int height);
int cvips_smartcrop(VipsImage *in, VipsImage **out, int width, int height,
                    VipsInteresting interesting);
int cvips_smartcrop_attention_centre(VipsImage *in, VipsImage **out, int width, int height,
                                     int *attention_x, int *attention_y);
int cvips_embed(VipsImage *in, VipsImage **out, int x, int y, int width, int height,
                VipsExtend extend, const double *background, int background_count);
int cvips_join(VipsImage *first, VipsImage *second, VipsImage **out, VipsDirection direction,
               int shim, const double *background, int background_count);
int cvips_rot(VipsImage *in, VipsImage **out, VipsAngle angle);
int cvips_autorot(VipsImage *in, VipsImage **out);
int cvips_arrayjoin(VipsImage **in, VipsImage **out, int count, int across, int shim,
                    const double *background, int background_count);

// Colour and pixel format.
int cvips_colourspace(VipsImage *in, VipsImage **out, VipsInterpretation space);
int cvips_icc_transform_embedded(VipsImage *in, VipsImage **out, const char *output_profile,
                                 const char *fallback_input_profile);
// A profile built into libvips ("srgb", "cmyk", "p3"), or one from a file.
int cvips_profile_load(const char *name, VipsBlob **profile);
int cvips_cast(VipsImage *in, VipsImage **out, VipsBandFormat format, gboolean shift);
int cvips_copy_interpretation(VipsImage *in, VipsImage **out,
                              VipsInterpretation interpretation);
int cvips_copy(VipsImage *in, VipsImage **out);
/* vips_image_copy_memory computed on the calling thread, a strip of rows at a time,
 * instead of by a threadpool: for a decode that one worker of many computes, where the
 * pool's threads and their hand-offs cost more than they share. */
int cvips_copy_memory_on_this_thread(VipsImage *in, VipsImage **out);
/* vips_image_write_to_memory computed on the calling thread, a strip at a time: packed
 * rows in a buffer for g_free, *size bytes; NULL with libvips's error. */
void *cvips_write_to_memory_on_this_thread(VipsImage *in, size_t *size);
/* The time limit of the photo this thread decodes (Deadline.c). A limit begins with
 * its deadline, a monotonic time in microseconds (g_get_monotonic_time), and returns
 * what its end restores (an outer limit of this thread, or none); limits nest. Every
 * image tracked while it runs, with everything upstream of it, is killed with
 * vips_image_set_kill by a watchdog thread at the deadline, and revived at its end. */
void *cvips_deadline_begin(gint64 monotonic_microseconds);
void cvips_deadline_end(void *outer);
/* This thread's deadline, 0 for none; whether it has passed. */
gint64 cvips_deadline_get(void);
int cvips_deadline_passed(void);
/* Records `image` (and its upstream) in this thread's limits; nothing without one. */
void cvips_deadline_track(VipsImage *image);
/* Kills `image` when this thread's deadline has passed; 1 if it did. */
int cvips_kill_if_deadline_passed(VipsImage *image);
/* vips_image_write_to_memory and vips_image_copy_memory, watched as above. */
void *cvips_write_to_memory_watched(VipsImage *in, size_t *size);
VipsImage *cvips_copy_memory_watched(VipsImage *in);
int cvips_flatten(VipsImage *in, VipsImage **out, const double *background,
                  int background_count);
int cvips_premultiply(VipsImage *in, VipsImage **out);
int cvips_unpremultiply(VipsImage *in, VipsImage **out);
int cvips_extract_band(VipsImage *in, VipsImage **out, int band, int count);
int cvips_bandjoin2(VipsImage *left, VipsImage *right, VipsImage **out);
int cvips_bandjoin_const(VipsImage *in, VipsImage **out, const double *constants, int count);

// Filters and compositing.
int cvips_recomb(VipsImage *in, VipsImage **out, VipsImage *matrix);
int cvips_gaussblur(VipsImage *in, VipsImage **out, double sigma);
int cvips_sharpen(VipsImage *in, VipsImage **out, double sigma);
int cvips_composite2(VipsImage *base, VipsImage *overlay, VipsImage **out,
                     VipsBlendMode mode);
int cvips_ifthenelse_blend(VipsImage *condition, VipsImage *then_image,
                           VipsImage *else_image, VipsImage **out);

// Arithmetic, used to build masks.
/* Mask.c: a one-band 8-bit coverage mask of a `width` x `height` rectangle with corners
 * rounded by `radius` (at most half the shorter side; half a square's side is a disc):
 * 255 inside, 0 outside, a one-pixel anti-aliased edge. A memory image. */
int cvips_rounded_rectangle_mask(int width, int height, double radius, VipsImage **out);
int cvips_black(VipsImage **out, int width, int height, int bands);
int cvips_linear(VipsImage *in, VipsImage **out, const double *a, const double *b, int count,
                 gboolean uchar);
int cvips_add(VipsImage *left, VipsImage *right, VipsImage **out);
int cvips_multiply(VipsImage *left, VipsImage *right, VipsImage **out);
int cvips_subtract(VipsImage *left, VipsImage *right, VipsImage **out);
int cvips_abs(VipsImage *in, VipsImage **out);
int cvips_bandmean(VipsImage *in, VipsImage **out);
int cvips_pow_const(VipsImage *in, VipsImage **out, double exponent);
int cvips_avg(VipsImage *in, double *out);
int cvips_max(VipsImage *in, double *out);

// Text.
int cvips_text(VipsImage **out, const char *text, const char *font, int width, int dpi);

// Saving.
int cvips_pngsave_buffer(VipsImage *in, void **data, size_t *length, int compression);
int cvips_jpegsave_buffer(VipsImage *in, void **data, size_t *length, int quality);
int cvips_webpsave_buffer(VipsImage *in, void **data, size_t *length, int quality,
                          gboolean lossless);
int cvips_pngsave(VipsImage *in, const char *filename, int compression);
int cvips_jpegsave(VipsImage *in, const char *filename, int quality);
int cvips_webpsave(VipsImage *in, const char *filename, int quality, gboolean lossless);
// Any saver, chosen by the file name's extension; saver options in brackets after it
// ("photo.tif[compression=lzw]"), as libvips parses them.
int cvips_image_write_to_file(VipsImage *in, const char *filename_with_options);

/* Resample.c: vips_resize's arithmetic (lanczos3, gap 2) for an 8-bit image held in
 * memory and scales <= 1, on the calling thread (the same bytes but where libvips's
 * regions restart its sampling position: up to 2 levels there); and its enlargement
 * (Enlarge.c: vips_affine's bicubic, the same bytes) for scales >= 1 on both axes.
 * Returns 1 (and leaves *out NULL) when the image is not for this path (one axis
 * shrinking and the other growing, not 8-bit, not in memory): then use vips_resize. */
int cvips_resize_uchar_in_memory(VipsImage *in, VipsImage **out, double hscale, double vscale);
/* The window `width` x `height` at (`left`, `top`) of what cvips_resize_uchar_in_memory
 * gives, computing only what the window needs (a fill's crop, made while resizing): the
 * same bytes as resizing the whole and cropping. 1 when the image is not for it; -1
 * with libvips's error when the window is not inside the resize. */
int cvips_resize_uchar_in_memory_window(VipsImage *in, VipsImage **out, double hscale,
                                        double vscale, int left, int top, int width,
                                        int height);
/* The same for an 8-bit image with alpha (last band), as libvips 8.14's thumbnail
 * resizes one: vips_premultiply, vips_resize in float, vips_unpremultiply, vips_cast
 * back to 8 bits. Returns 1 when the image is not for this path. */
int cvips_resize_premultiplied_uchar_in_memory(VipsImage *in, VipsImage **out, double hscale,
                                               double vscale);
/* The window `width` x `height` at (`left`, `top`) of what
 * cvips_resize_premultiplied_uchar_in_memory gives, computing only what the window
 * needs: the same bytes as resizing the whole and cropping. 1 when the image is not for it; -1 with libvips's error when the
 * window is not inside the resize. */
int cvips_resize_premultiplied_uchar_in_memory_window(VipsImage *in, VipsImage **out,
                                                      double hscale, double vscale, int left,
                                                      int top, int width, int height);
/* The same resize stopped before vips_unpremultiply: vips_resize of vips_premultiply's
 * float output, as vips_smartcrop resizes an image with alpha. Returns 1 when the image
 * is not for this path. */
int cvips_resize_premultiplied_float_in_memory(VipsImage *in, VipsImage **out, double hscale,
                                               double vscale);
/* The premultiplied float resize as bare pixels (packed rows, in->Bands samples a
 * pixel, for the caller to free): no VipsImage made. Returns 1 (and *pixels NULL) when
 * `in` is not for this path. */
int cvips_resize_premultiplied_float_pixels(VipsImage *in, double hscale, double vscale,
                                            float **pixels, int *width, int *height);

/* Attention.c: where vips_smartcrop's attention measure puts the centre of a
 * `width` x `height` window of `in`, as vips_smartcrop(interesting: attention) reports
 * it in attention_x/attention_y, with its 32x32 miniature made by Resample.c when `in`
 * is an 8-bit image in memory. */
int cvips_attention_centre(VipsImage *in, int width, int height, int *x, int *y);
/* The same measure computed in C loops over the miniature (no libvips operation after
 * the miniature is made), or 1 when `in` is not for that path (not 8-bit, or neither
 * sRGB nor B_W); cvips_attention_centre uses it whenever it does not decline. */
int cvips_attention_centre_in_c(VipsImage *in, int width, int height, int *x, int *y);
/* cvips_attention_centre_in_c with the embedded ICC profile of an RGB image (three
 * bands or four) applied to the miniature before it is measured: thumbnail's order,
 * which measures after applying its export profile. */
int cvips_attention_centre_of_managed_in_c(VipsImage *in, int width, int height, int *x,
                                           int *y);

/* ColourTransform.c: vips_icc_transform(in, out, "srgb", "embedded", TRUE,
 * "input_profile", fallback_input_profile, "depth", 8) for an 8-bit image, with lcms2
 * called directly on this thread and each input profile's transform built once per
 * process (a small least-recently-used cache, shared by all threads). The same bytes;
 * the result is a memory image without an ICC profile (libvips's output with its sRGB
 * profile removed). Returns 1 (and leaves *out NULL) when the image or its profile is
 * not for this path: then use vips_icc_transform. */
int cvips_icc_transform_to_srgb_cached(VipsImage *in, VipsImage **out,
                                       const char *fallback_input_profile);
/* vips_CMYK2XYZ (libvips's built-in CMYK profile, imported to float XYZ) for an 8-bit,
 * 4-band CMYK image, the same floats, with the lcms transform built once per process.
 * A memory image; 1 (and *out NULL) when `in` is not for this path. vips_colourspace
 * from the result to sRGB finishes libvips's CMYK to sRGB route. */
int cvips_cmyk_to_xyz_cached(VipsImage *in, VipsImage **out);
/* How many times this process built the CMYK import's transform (at most once), and
 * how many images cvips_cmyk_to_xyz_cached (or cvips_cmyk_to_srgb_cached) imported. */
void cvips_cmyk_import_counts(int *built, int *made);
/* How many transforms ColourTransform.c has built for an input profile with these
 * bytes in this process (more than 1 only when it was evicted and needed again). */
int cvips_icc_transforms_built(const void *profile, size_t length);

/* libvips's vector path (liborc); <vips/vector.h> is not part of <vips/vips.h>. */
void cvips_vector_set_enabled(int enabled);
int cvips_vector_isenabled(void);

/* ColourTransform.c: cvips_cmyk_to_xyz_cached's import and then
 * on to 8-bit sRGB in the same pass, the bytes of vips_colourspace(in, sRGB) for such an
 * image (its XYZ -> scRGB -> sRGB steps through the same per-pixel functions
 * vips_col_XYZ2scRGB and vips_col_scRGB2sRGB_8). A memory image; 1 (and *out NULL) when
 * `in` is not for this path. */
int cvips_cmyk_to_srgb_cached(VipsImage *in, VipsImage **out);

/* Mask.c: whether `image` holds its pixels in memory (a memory image
 * that libvips or the shim wrote, not a pipeline computed on demand). */
int cvips_image_is_in_memory(VipsImage *image);
/* vips_bandjoin2(in, mask) for an opaque 8-bit `in` (1 to 3 bands) and a one-band 8-bit
 * `mask` of its size, both in memory: the same bytes and header, as a memory image.
 * Returns 1 (and leaves *out NULL) when the images are not for this path. */
int cvips_join_mask_in_memory(VipsImage *in, VipsImage *mask, VipsImage **out);
/* The alpha of an 8-bit image with alpha in memory multiplied by a one-band 8-bit mask
 * in memory, as libvips's multiply and linear([1 / 255], [0.5], uchar) give it, the
 * colour bands kept: a new memory image in *out (0), 1 when an input does not qualify,
 * -1 on failure (Mask.c). */
int cvips_mask_alpha_in_memory(VipsImage *in, VipsImage *mask, VipsImage **out);
/* JPEGScanCheck.c: 1 when a scan of the JPEG in `data` runs out of data before its last
 * block (libjpeg's warning text into `message`), 0 when none does, -1 when libjpeg cannot
 * read it at all. Decodes at 1/8 scale. */
int cvips_jpeg_scan_runs_out(const void *data, size_t length, char *message,
                             size_t message_size);

/* JPEGDecode.c: the JPEG in `data` decoded by libjpeg alone, shrunk by `shrink` (1, 2,
 * 4 or 8) on load, into a memory image with `probe`'s metadata (libvips's header of the
 * same bytes): the pixels libvips's jpegload gives. 0 and *out on success; 1 (*out NULL)
 * when libjpeg warns or fails or the file is not for this path (the caller loads with
 * libvips, which judges it); 2 when this thread's time limit passed during the decode. */
int cvips_jpeg_decode_like(VipsImage *probe, const void *data, size_t length, int shrink,
                           VipsImage **out);

/* PNGDecode.c: the PNG in `data` decoded by libpng alone into a memory image with
 * `probe`'s metadata (libvips's header of the same bytes): the pixels libvips's pngload
 * gives. 0 and *out on success; 1 (*out NULL) when libpng warns or fails or the file is
 * not for this path (the caller loads with libvips, which judges it); 2 when this
 * thread's time limit passed during the decode. */
int cvips_png_decode_like(VipsImage *probe, const void *data, size_t length, VipsImage **out);

/* PNGRows.c: a plain PNG's image data (its IDAT chunks) inflated by libdeflate and
 * unfiltered, in place of libpng's row reads (PNGDecode.c). */

/* Bytes the output of cvips_png_rows_decode needs beyond height * stride. */
#define CVIPS_PNG_ROWS_SLACK(height) ((size_t)(height) + 16)

/* The largest image data (filter bytes included) cvips_png_rows_decode inflates in one
 * call: 64 MiB, about 0.1 s of libdeflate; a larger image is read by libpng a row at a
 * time, its time limit checked after every row. */
#define CVIPS_PNG_ROWS_LIMIT ((size_t)64 << 20)

enum { CVIPS_PNG_ROWS_DONE = 0, CVIPS_PNG_ROWS_NOT_TAKEN = 1, CVIPS_PNG_ROWS_TIMED_OUT = 2 };

/* Decodes the image data of the PNG in `data` (`length` bytes) whose first IDAT chunk's
 * data starts at `offset` (where libpng's png_read_info stops) into `out`: `height` rows
 * of `stride` bytes, each pair of bytes (a 16-bit sample) swapped when `swap` (as
 * libpng's png_set_swap, on a little-endian machine).
 * `bytes_per_pixel` is the filters' (1 to 8, dividing `stride`). `out` holds height * stride +
 * CVIPS_PNG_ROWS_SLACK(height) bytes: the data is inflated into it and unfiltered in
 * place.
 *
 * CVIPS_PNG_ROWS_NOT_TAKEN, `out` then undefined, unless every IDAT chunk's CRC holds
 * and none is longer than libpng allows (nor all of them an eighth longer than the
 * rows), the chunks hold one zlib stream that ends at their end, Adler-32 included, whose
 * window (32 KiB, or all of the data) holds every distance, and it inflates to exactly
 * the rows, each with a filter type of 0 to 4: libpng then reads the rows (and judges
 * what is wrong). CVIPS_PNG_ROWS_TIMED_OUT once `deadline` (monotonic microseconds, 0
 * for none) has passed. */
int cvips_png_rows_decode(const uint8_t *data, size_t length, size_t offset, uint8_t *out,
                          size_t stride, uint32_t height, int bytes_per_pixel, int swap,
                          gint64 deadline);

/* 1: the calling thread's unfilters take the scalar filters, which run where SSE2 is
 * not there, so that tests check them; 0: SSE2 where it is. Returns the setting before. */
int cvips_png_rows_set_scalar(int scalar);

/* WebPDecode.c: the still WebP in `data` decoded by libwebp alone, scaled on load to
 * rint(size / factor) as libvips's webpload `scale` does, into a memory image with
 * `probe`'s metadata: the pixels libvips's webpload gives. 0 and *out on success; 1
 * (*out NULL) for an animation or when libwebp fails (the caller loads with libvips,
 * which judges it); 2 when this thread's time limit passed. */
int cvips_webp_decode_like(VipsImage *probe, const void *data, size_t length, int factor,
                           VipsImage **out);

/* ThreadWarnings.c: the warnings libvips raises on this thread between begin and end,
 * one a line (g_free the text; NULL when there were none). The log handler offers each
 * warning; it is kept only while this thread collects. */
void cvips_thread_warnings_begin(void);
int cvips_thread_warnings_offer(const char *message);
char *cvips_thread_warnings_end(void);

/* libvips's error messages raised on this thread (not on a libvips worker) since the
 * last take, one per line, or NULL; the caller frees with g_free. Sources/CVipsShim/
 * ThreadErrors.c says how they are kept apart from other threads'. */
char *cvips_thread_errors_take(void);

/* Forgets this thread's libvips error messages. */
void cvips_thread_errors_clear(void);

/* MemoryImage.c: a memory image with `in`'s header and metadata (as
 * vips_image_pipelinev gives them) whose pixels are allocated but not zeroed, freed with
 * the image: for pixels about to be written whole. NULL with libvips's error. */
VipsImage *cvips_unzeroed_memory_image_like(VipsImage *in);
/* MemoryImage.c: a memory image of `pixels` (g_malloc'd, taken: freed with the image,
 * or at once on failure), `width` x `height` packed pixels of `like`'s bands and format,
 * with `like`'s header fields and metadata (a decoder's: libvips's header of the same
 * bytes). NULL with libvips's error. */
VipsImage *cvips_memory_image_taking(VipsImage *like, void *pixels, int width, int height);
/* A codec's decode (JPEGDecode.c, PNGDecode.c, WebPDecode.c) as a memory image with
 * `like`'s fields, taking `pixels`: 0 and *out, or 1 (the decoder's "declined") with
 * libvips's error text dropped when the image cannot be made. */
int cvips_decoded_image(VipsImage *like, void *pixels, int width, int height, VipsImage **out);

/* Resample.c's AVX2 kernels (ResampleKernels.c): the in-memory
 * resizes run them when the processor has AVX2, and its scalar loops otherwise, with the
 * same bytes. cvips_resample_set_scalar(1) makes the calling thread take the scalar loops
 * (for tests of the fallback on an AVX2 machine), (0) undoes it; it returns the previous
 * setting. */
int cvips_resample_set_scalar(int scalar);
/* Whether this processor runs the AVX2 kernels. */
int cvips_resample_has_vector_kernels(void);
/* Whether the in-memory resizes run the AVX2 kernels on the calling thread now. */
int cvips_resample_uses_vector_kernels(void);
/* How many times the resizes on the calling thread chose the AVX2 kernels and the scalar
 * loops, since the thread began (for tests: that the path compared really ran). */
void cvips_resample_choices(unsigned long *vector, unsigned long *scalar);
/* How many units of work (each loop's own: 8 pixels, a column) the vector loops did on
 * the calling thread since it began: a test knows the loop ran, not only its choice. */
unsigned long cvips_resample_vector_work(void);

/* Resample.c's lanczos3 weight tables (reads part): the 65 phases x `points` weights
 * (libvips's matrixf) of (points, shrink) into `out`, from the process-wide cache the
 * resizes use (`cached` 1) or computed afresh (0), for tests that the two are the same.
 * 0, or -1 for bad arguments or no memory. */
int cvips_lanczos3_weight_tables(int points, double shrink, int cached, double *out);

/* WebPCheck.c: 0 when libwebp fails to decode a (not animated) WebP whose decode shrunk
 * on load by `factor` is one strip of rows or fewer, which libvips would return black
 * instead of failing; 1 otherwise (taller decodes are not checked: libvips fails them). */
int cvips_webp_decodes_whole(const uint8_t *data, size_t size, int factor);

/* StylePixels.c: a row of 8-bit RGBA as premultiplied BGRA ((c x a + 127) / 255), and a
 * row of RGB as BGR with a fourth byte of 255; `count` pixels. */
void cvips_store_premultiplied_bgra(const uint8_t *restrict rgba, uint8_t *restrict bgra,
                                    int count);
void cvips_store_bgrx(const uint8_t *restrict rgb, uint8_t *restrict bgrx, int count);

/* CodecDebugLines.c: drops libjxl's debug trace ("./lib/jxl/file.cc:12: ...") from what C
 * code writes to `stderr`, passing every other byte on to file descriptor 2. For the
 * command line only; installed once, later calls do nothing. */
void cvips_drop_codec_debug_lines(void);
/* The line filter itself, for tests: feeds `size` bytes and writes those to pass on to
 * `out` (room for `size` + 16 bytes), returning their count. Starts zeroed. */
enum { CODEC_DEBUG_UNDECIDED = 0, CODEC_DEBUG_PASSING = 1, CODEC_DEBUG_DROPPING = 2 };
typedef struct {
  int state;
  size_t held_count;
  char held[16];
} CodecDebugFilter;
size_t cvips_codec_debug_filter(CodecDebugFilter *filter, const char *data, size_t size,
                                char *out);

#endif
