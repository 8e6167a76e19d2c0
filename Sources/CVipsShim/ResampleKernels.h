/* Shared by the shim's own loops (not part of its public header): the hand-written
 * vector kernels of Resample.c's passes (ResampleKernels.c). Each computes exactly what
 * the scalar loop it replaces computes: the same integer sums (their order does not
 * matter), or the same double operations in the same order (no fused multiply-add). */
#ifndef CVIPSSHIM_RESAMPLE_KERNELS_H
#define CVIPSSHIM_RESAMPLE_KERNELS_H

#include <stddef.h>
#include <stdint.h>

/* Whether the AVX2 kernels run on this thread: the processor has AVX2 and this thread
 * has not asked for the scalar loops (cvips_resample_set_scalar). */
int resample_uses_avx2(void);

/* Counts `units` of work done by a vector loop on this thread (for tests: that the loop
 * did run, not only that it was chosen). */
void resample_vector_work_done(unsigned long units);

/* One output row of the 8-bit vertical reduce: for each of `samples` samples, the sum of
 * `coefficients[i]` times `rows[i][z]` over `points` rows, rounded and shifted by 12 bits
 * and clipped to 0..255 (libvips's reducev for uchar). The coefficients fit in 16 bits. */
void avx2_reduce_rows_u8(const uint8_t *const *rows, const int *coefficients, int points,
                         uint8_t *out, int samples);

/* One output row of the 8-bit vertical box shrink: (sum of `factor` rows + factor / 2) /
 * factor for each sample (libvips's shrinkv for uchar); `factor` below 258. */
void avx2_shrink_rows_u8(const uint8_t *const *rows, int factor, uint8_t *out, int samples);

/* The coefficients of the horizontal kernel, for pixels of `bands` bands (1 to 4). */
typedef struct {
  int bands;
  int groups;           /* taps in groups of 4: each output pixel reads 4 x groups pixels */
  const int16_t *table; /* per phase, `groups` groups of 16 coefficients (see .c) */
} HorizontalKernel;

/* The coefficient table of `phases` phases of `points` taps each (int rows of libvips's
 * fixed-point matrix), in the layout the horizontal kernel reads; NULL when out of memory
 * or when a coefficient does not fit in 16 bits. Free with free(). */
int16_t *avx2_horizontal_table(const int *coefficients, int points, int phases, int *groups);

/* One row of the 8-bit horizontal reduce: output pixel x (0 to count - 1) is the sum of
 * the table row `phases[x]` times the `points` pixels from column `starts[x]` on (each
 * column clamped to 0..width - 1: libvips's edge extension), rounded, shifted by 12 bits
 * and clipped (libvips's reduceh for uchar); or, when `box` is more than 0, (that sum +
 * box / 2) / box with a table of ones (its shrinkh). `row` holds the row from column
 * `first` on, and `readable` bytes from it may be read (loads of padding taps read past
 * the pixels used, never past that). */
void avx2_convolve_row(const uint8_t *row, int first, int width, size_t readable,
                       const int *starts, const int *phases, const HorizontalKernel *kernel,
                       int points, int box, uint8_t *out, int count);

/* avx2_convolve_row for two rows at once, the same bytes: `row` and the row `rowBytes`
 * after it (`readable` bytes from `row` on, both rows included), their outputs at `out`
 * and `outBytes` after it. Each pixel's coefficients are read once for both rows. */
void avx2_convolve_rows_2(const uint8_t *row, size_t rowBytes, int first, int width,
                          size_t readable, const int *starts, const int *phases,
                          const HorizontalKernel *kernel, int points, int box, uint8_t *out,
                          size_t outBytes, int count);

/* One output row of the float vertical reduce: sum[z] = 0, then sum[z] += weight[i] x
 * rows[i][z] in double for i = 0 to points - 1, stored as float (libvips's reducev for
 * float). */
void avx2_reduce_rows_float(const float *const *rows, const double *weights, int points,
                            float *out, int samples);

/* One row of the float horizontal reduce (libvips's reduceh for float, pixels of 1 to 4
 * bands): output pixel x is, band by band, sum = 0, then sum += weight x sample in
 * double over the `points` pixels from column starts[x] on (clamped to 0..width - 1),
 * table row phases[x], stored as float. `row` holds the row from column `first` on;
 * `readable` floats from it may be read. */
void avx2_reduce_columns_float(const float *row, int first, int width, size_t readable,
                               const int *starts, const int *phases, const double *tables,
                               int points, int bands, float *out, int count);

/* The float horizontal box shrink (libvips's shrinkh for float): output pixel o is, band
 * by band, (float)((sum in double of the `box` pixels from column (lo + o) x box on,
 * clamped to width - 1) / box); `row` and `readable` as above. */
void avx2_shrink_columns_float(const float *row, int first, int width, size_t readable, int lo,
                               int count, int box, int bands, float *out);

/* vips_unpremultiply then vips_cast to 8 bits of premultiplied pixels of 2 or 4 bands:
 * colour x (float)(255.0 / alpha) (0 where |alpha| < 0.01), alpha kept, each clipped to
 * 0..255 and truncated. */
void avx2_unpremultiply_row(const float *p, uint8_t *q, int samples, int bands);

/* The float box shrink's sums, in double, a row at a time: sum[z] += row[z]; then
 * out[z] = (float)(sum[z] / factor). */
void avx2_accumulate_float(double *sum, const float *row, int samples);
void avx2_box_mean_float(const double *sum, int factor, float *out, int samples);

/* vips_premultiply (max alpha 255) of a row of 8-bit pixels of 2 or 4 bands (alpha
 * last): colour x fractions[alpha] in float, alpha kept; stored as float, or added (as
 * double) to `sum`. */
void avx2_premultiply_row(const uint8_t *in, float *out, int samples, int bands,
                          const float *fractions);
void avx2_premultiply_accumulate(double *sum, const uint8_t *in, int samples, int bands,
                                 const float *fractions);
/* The float box shrink of `factor` such rows premultiplied: out[z] = (float)((sum in
 * double of the rows' premultiplied samples, in order) / factor). */
void avx2_premultiply_box(const uint8_t *const *rows, int factor, int samples, int bands,
                          const float *fractions, float *out);

#endif
