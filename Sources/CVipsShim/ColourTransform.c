/* An embedded ICC profile applied to 8-bit pixels with lcms2 directly, giving the bytes
 * of libvips 8.14's
 *
 *   vips_icc_transform(in, &out, "srgb", "embedded", TRUE,
 *                      "input_profile", fallback, "depth", 8, NULL)
 *
 * but with each profile's transform made once per process instead of once per image,
 * and made for a fraction of what lcms's build costs.
 *
 * Why: building a transform (cmsCreateTransform) costs about 8 ms for a common 3 KB sRGB
 * profile and 45 ms for CMYK to sRGB, and libvips builds one for every photo; a batch
 * from one camera embeds one profile throughout, but a render of a few dozen photos
 * meets several, and a build then costs more than applying it to a photo's entries.
 * So the transform is made in one of three ways, each giving lcms's own bytes:
 * - an RGB matrix-shaper profile (nearly every photo's): MatrixShaper.c computes the
 *   tables lcms's optimiser would (the sRGB side once per process), about 0.05 ms;
 * - a CMYK profile: CMYKGrid.c, lcms's 17-point grid computed node by node as pixels
 *   need them (a photo needs a few thousand of its 83,521 nodes);
 * - any other (grey): lcms's transform, as libvips builds it.
 *
 * What libvips does (colour/icc_transform.c and colour/colour.c at v8.14.1), and this
 * file repeats:
 * - The input profile is the embedded one if it is usable, else the `input_profile`
 *   named one, else the built-in "cmyk" (image tagged CMYK) or "srgb"; usable means
 *   lcms opens it, its colour space is one libvips knows, the image has at least as
 *   many bands as that space, an image tagged CMYK does not get a 3-band profile, and
 *   the profile supports the relative colorimetric intent as input.
 * - The output profile is libvips's built-in "srgb", output 8-bit RGB (TYPE_RGB_8),
 *   intent relative colorimetric, flags cmsFLAGS_NOCACHE only (no black point
 *   compensation), one device-to-device transform (no PCS detour).
 * - The first `profile bands` bands go through lcms packed (TYPE_GRAY_8, TYPE_RGB_8,
 *   TYPE_CMYK_8 for 8-bit input); any further bands (alpha) are copied after the three
 *   output bands. The output is tagged sRGB, uchar.
 *
 * Declined (return 1, the caller uses libvips): samples not 8-bit, coded images, a
 * chosen profile whose space is not grey, RGB or CMYK (Lab, XYZ, n-colour: libvips
 * converts through float or refuses), a transform lcms cannot build (libvips fails),
 * and no usable profile at all (libvips fails with its own error).
 *
 * Sharing: the matrix-shaper tables are only read, a grid's nodes are atomic words (see
 * CMYKGrid.c), and lcms 2.14's cmsDoTransform only reads the transform; with cmsFLAGS_NOCACHE
 * there is not even the one-pixel cache (which 2.14 copies to the stack anyway), which
 * is how libvips itself calls one transform from all its worker threads. Cache entries
 * are reference counted, so one evicted while another thread still uses it lives on
 * until that thread is done.
 */
#include "CMYKGrid.h"
#include "CVipsShim.h"
#include "LcmsArithmetic.h"
#include "MatrixShaper.h"
#include "ResampleKernels.h"
#include "RowStrips.h"

#include <lcms2.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum {
  CACHE_CAPACITY = 8 /* transforms kept, least recently used evicted first */
};

/* A built transform for one input profile. The key is the profile's bytes: the input
 * format follows from them (only 8-bit images come here), and the image's bands are
 * checked against `bands` at each use. */
typedef struct {
  uint8_t *bytes;
  size_t length;
  uint64_t hash;
  int bands;                  /* colour bands the profile takes */
  cmsUInt32Number in_format;  /* TYPE_GRAY_8, TYPE_RGB_8 or TYPE_CMYK_8 */
  MatrixShaper *shaper;       /* an RGB matrix-shaper profile's tables, else NULL */
  CMYKGrid *grid;             /* a CMYK profile's grid, filled as pixels need it, else NULL */
  cmsHTRANSFORM transform;    /* else lcms's transform */
  int references;             /* the cache's own plus one per caller using it */
  uint64_t last_used;
} Entry;

/* pthread mutexes, not GLib's GMutex: GMutex locks with a bare futex that ThreadSanitizer
 * does not see, so an app built with --sanitize=thread saw races on the cache. */
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER; /* entries, clock, counts */
/* One build at a time: two photos with a new profile build once. */
static pthread_mutex_t build_lock = PTHREAD_MUTEX_INITIALIZER;
static Entry *cache[CACHE_CAPACITY];
static uint64_t clock_ticks;
static GHashTable *builds_by_hash; /* FNV-1a of a profile's bytes -> transforms built */

static uint64_t fnv1a(const uint8_t *bytes, size_t length) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < length; i++) hash = (hash ^ bytes[i]) * 0x100000001b3ULL;
  return hash;
}

static void entry_release(Entry *entry) {
  pthread_mutex_lock(&cache_lock);
  int left = --entry->references;
  pthread_mutex_unlock(&cache_lock);
  if (left > 0) return;
  if (entry->transform) cmsDeleteTransform(entry->transform);
  matrix_shaper_free(entry->shaper);
  cmyk_grid_free(entry->grid);
  free(entry->bytes);
  free(entry);
}

/* The cached entry for these bytes, retained for the caller, or NULL. */
static Entry *cache_find(const uint8_t *bytes, size_t length, uint64_t hash) {
  Entry *found = NULL;
  pthread_mutex_lock(&cache_lock);
  for (int i = 0; i < CACHE_CAPACITY; i++) {
    Entry *entry = cache[i];
    if (entry && entry->hash == hash && entry->length == length &&
        memcmp(entry->bytes, bytes, length) == 0) {
      entry->last_used = ++clock_ticks;
      entry->references++;
      found = entry;
      break;
    }
  }
  pthread_mutex_unlock(&cache_lock);
  return found;
}

/* Adds a new entry (with the cache's reference), evicting the least recently used. */
static void cache_insert(Entry *entry) {
  Entry *evicted = NULL;
  pthread_mutex_lock(&cache_lock);
  int slot = 0;
  for (int i = 0; i < CACHE_CAPACITY; i++) {
    if (!cache[i]) {
      slot = i;
      break;
    }
    if (cache[i]->last_used < cache[slot]->last_used) slot = i;
  }
  evicted = cache[slot];
  entry->last_used = ++clock_ticks;
  cache[slot] = entry;
  if (!builds_by_hash)
    builds_by_hash = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
  gint64 *key = g_new(gint64, 1);
  *key = (gint64)entry->hash;
  int built = GPOINTER_TO_INT(g_hash_table_lookup(builds_by_hash, key));
  g_hash_table_replace(builds_by_hash, key, GINT_TO_POINTER(built + 1));
  pthread_mutex_unlock(&cache_lock);
  if (evicted) entry_release(evicted);
}

/* The lcms 8-bit format and band count libvips uses for a profile's colour space as
 * vips_icc_transform's input, 0 for a space libvips knows but this file declines, -1
 * for one libvips does not know (then the profile is unusable to libvips). */
static int input_format(cmsColorSpaceSignature space, cmsUInt32Number *format, int *bands) {
  switch (space) {
  case cmsSigGrayData:
    *format = TYPE_GRAY_8;
    *bands = 1;
    return 1;
  case cmsSigRgbData:
    *format = TYPE_RGB_8;
    *bands = 3;
    return 1;
  case cmsSigCmykData:
    *format = TYPE_CMYK_8;
    *bands = 4;
    return 1;
  /* libvips's table: Lab and XYZ (converted through float), 4-colour (accepted as a
   * profile, then refused by vips_icc_build), 5- to 12-colour. */
  case cmsSigLabData:
  case cmsSigXYZData:
    *bands = 3;
    return 0;
  case cmsSig4colorData:
    *bands = 4;
    return 0;
  case cmsSig5colorData:
  case cmsSig6colorData:
  case cmsSig7colorData:
  case cmsSig8colorData:
  case cmsSig9colorData:
  case cmsSig10colorData:
  case cmsSig11colorData:
  case cmsSig12colorData:
    *bands = 5 + (int)(space - cmsSig5colorData);
    return 0;
  default:
    return -1;
  }
}

typedef enum { UNUSABLE, DECLINED, USABLE } Verdict;

/* The warnings libvips gives for each profile it rejects, kept until the image is
 * handled here (when it is declined, libvips runs and gives them itself). */
typedef struct {
  const char *messages[3];
  int count;
} Warnings;

static void reject(Warnings *warnings, const char *message) {
  if (warnings->count < 3) warnings->messages[warnings->count++] = message;
}

/* vips_icc_load_profile_blob's checks of a profile's bands against the image. */
static int fits_image(VipsImage *in, int bands, Warnings *warnings) {
  if (in->Bands < bands || (in->Type == VIPS_INTERPRETATION_CMYK && bands == 3)) {
    reject(warnings, "profile incompatible with image");
    return 0;
  }
  return 1;
}

/* Builds the transform from an opened input profile to libvips's built-in sRGB and
 * caches it: *entry is then retained for the caller. DECLINED when lcms cannot build
 * it (libvips then fails, and says why). */
static Verdict cache_new_transform(cmsHPROFILE profile, cmsUInt32Number format, int bands,
                                   const uint8_t *bytes, size_t length, uint64_t hash,
                                   Entry **entry) {
  /* An RGB matrix-shaper profile: lcms's tables without lcms's transform. */
  MatrixShaper *shaper = format == TYPE_RGB_8 ? matrix_shaper_new(profile) : NULL;
  /* Else the output profile opened afresh from libvips's built-in bytes, as libvips does. */
  VipsBlob *srgb = NULL;
  cmsHPROFILE output = NULL;
  cmsHTRANSFORM transform = NULL;
  if (!shaper && !vips_profile_load("srgb", &srgb, NULL) && srgb) {
    size_t srgb_length;
    const void *srgb_bytes = vips_blob_get(srgb, &srgb_length);
    output = cmsOpenProfileFromMem(srgb_bytes, (cmsUInt32Number)srgb_length);
  }
  /* A CMYK profile: lcms's grid, each node computed when a pixel first needs it. */
  CMYKGrid *grid = output && format == TYPE_CMYK_8 ? cmyk_grid_new(profile, output, TYPE_RGB_8)
                                                   : NULL;
  if (output && !grid)
    transform = cmsCreateTransform(profile, format, output, TYPE_RGB_8,
                                   INTENT_RELATIVE_COLORIMETRIC, cmsFLAGS_NOCACHE);
  if (output) cmsCloseProfile(output);
  if (srgb) vips_area_unref(VIPS_AREA(srgb));

  Entry *built = transform || shaper || grid ? calloc(1, sizeof(Entry)) : NULL;
  uint8_t *copy = built ? malloc(length) : NULL;
  if (!copy) {
    free(built);
    if (transform) cmsDeleteTransform(transform);
    matrix_shaper_free(shaper);
    cmyk_grid_free(grid);
    return DECLINED;
  }
  memcpy(copy, bytes, length);
  *built = (Entry){.bytes = copy, .length = length, .hash = hash, .bands = bands,
                   .in_format = format, .shaper = shaper, .grid = grid,
                   .transform = transform, .references = 2};
  cache_insert(built);
  *entry = built;
  return USABLE;
}

/* Judges a profile not in the cache as vips_icc_load_profile_blob does for `in`, and
 * when it is usable and in a space this file handles, builds its transform and caches
 * it: *entry is then retained for the caller. Called with build_lock held. */
static Verdict build_entry(VipsImage *in, const uint8_t *bytes, size_t length, uint64_t hash,
                           Entry **entry, Warnings *warnings) {
  cmsHPROFILE profile = cmsOpenProfileFromMem(bytes, (cmsUInt32Number)length);
  if (!profile) {
    reject(warnings, "corrupt profile");
    return UNUSABLE;
  }
  cmsUInt32Number format = 0;
  int bands = 0;
  const int known = input_format(cmsGetColorSpace(profile), &format, &bands);
  Verdict verdict = UNUSABLE;
  if (known < 0)
    reject(warnings, "unsupported profile");
  else if (fits_image(in, bands, warnings)) {
    if (!cmsIsIntentSupported(profile, INTENT_RELATIVE_COLORIMETRIC, LCMS_USED_AS_INPUT))
      reject(warnings, "profile does not support relative input intent");
    else if (known == 0)
      verdict = DECLINED;
    else
      verdict = cache_new_transform(profile, format, bands, bytes, length, hash, entry);
  }
  cmsCloseProfile(profile);
  return verdict;
}

/* Whether libvips would take `bytes` as the input profile of `in`, and if so its
 * transform to sRGB, from the cache or built now: *entry is retained for the caller. */
static Verdict profile_for(VipsImage *in, const uint8_t *bytes, size_t length, Entry **entry,
                           Warnings *warnings) {
  *entry = NULL;
  const uint64_t hash = fnv1a(bytes, length);
  Entry *cached = cache_find(bytes, length, hash);
  if (!cached) {
    pthread_mutex_lock(&build_lock);
    cached = cache_find(bytes, length, hash); /* built while this thread waited */
    if (!cached) {
      Verdict verdict = build_entry(in, bytes, length, hash, entry, warnings);
      pthread_mutex_unlock(&build_lock);
      return verdict;
    }
    pthread_mutex_unlock(&build_lock);
  }
  /* The cache holds profiles that passed every check but those of the image's bands. */
  if (!fits_image(in, cached->bands, warnings)) {
    entry_release(cached);
    return UNUSABLE;
  }
  *entry = cached;
  return USABLE;
}

/* vips_icc_set_import's choice: the embedded profile, the named fallback, the built-in
 * profile for the image's interpretation. */
static Verdict choose_profile(VipsImage *in, const char *fallback, Entry **entry,
                              Warnings *warnings) {
  const void *data;
  size_t length;
  if (vips_image_get_typeof(in, VIPS_META_ICC_NAME) &&
      !vips_image_get_blob(in, VIPS_META_ICC_NAME, &data, &length)) {
    Verdict verdict = profile_for(in, data, length, entry, warnings);
    if (verdict != UNUSABLE) return verdict;
  }
  const char *names[2] = {fallback, in->Type == VIPS_INTERPRETATION_CMYK ? "cmyk" : "srgb"};
  for (int i = 0; i < 2; i++) {
    VipsBlob *blob = NULL;
    if (!names[i] || vips_profile_load(names[i], &blob, NULL) || !blob) continue;
    data = vips_blob_get(blob, &length);
    Verdict verdict = profile_for(in, data, length, entry, warnings);
    vips_area_unref(VIPS_AREA(blob));
    if (verdict != UNUSABLE) return verdict;
  }
  return UNUSABLE;
}

/* One row: `in` pixels of `in_bands` bands, the profile's first `entry->bands` through
 * lcms (packed as libvips's vips_extract_band would give them), the rest copied after the
 * three output bands. `scratch` holds a row of packed bands, or of a grid's samples. */
static void transform_row(const Entry *entry, const VipsPel *in, int in_bands, VipsPel *out,
                          int width, VipsPel *packed_in, VipsPel *packed_out) {
  const int colour = entry->bands;
  if (entry->shaper) {
    matrix_shaper_row(entry->shaper, in, in_bands, out, width);
    return;
  }
  if (entry->grid) {
    /* lcms's 16-bit samples, packed to bytes as its Pack3Bytes does. */
    cmsUInt16Number *samples = (cmsUInt16Number *)packed_in;
    cmyk_grid_row(entry->grid, in, in_bands, samples, width);
    const int extra = in_bands - colour;
    for (int x = 0; x < width; x++) {
      VipsPel *q = out + (size_t)x * (3 + extra);
      for (int c = 0; c < 3; c++) q[c] = LCMS_FROM_16_TO_8(samples[3 * x + c]);
      memcpy(q + 3, in + (size_t)x * in_bands + colour, extra);
    }
    return;
  }
  if (in_bands == colour) {
    cmsDoTransform(entry->transform, in, out, (cmsUInt32Number)width);
    return;
  }
  const int extra = in_bands - colour;
  for (int x = 0; x < width; x++)
    memcpy(packed_in + (size_t)x * colour, in + (size_t)x * in_bands, colour);
  cmsDoTransform(entry->transform, packed_in, packed_out, (cmsUInt32Number)width);
  for (int x = 0; x < width; x++) {
    VipsPel *q = out + (size_t)x * (3 + extra);
    memcpy(q, packed_out + (size_t)x * 3, 3);
    memcpy(q + 3, in + (size_t)x * in_bands + colour, extra);
  }
}

typedef struct {
  const Entry *entry;
  int in_bands;
  VipsPel *packed; /* for images with extra bands: the colour bands in, then out */
  VipsImage *out;
} ProfileRows;

static void profile_row(const VipsPel *in, int y, int width, void *context) {
  const ProfileRows *rows = context;
  transform_row(rows->entry, in, rows->in_bands, VIPS_IMAGE_ADDR(rows->out, 0, y), width,
                rows->packed,
                rows->packed ? rows->packed + (size_t)width * rows->entry->bands : NULL);
}

int cvips_icc_transform_to_srgb_cached(VipsImage *in, VipsImage **out,
                                       const char *fallback_input_profile) {
  *out = NULL;
  if (in->BandFmt != VIPS_FORMAT_UCHAR || in->Coding != VIPS_CODING_NONE) return 1;
  Entry *entry = NULL;
  Warnings warnings = {.count = 0};
  if (choose_profile(in, fallback_input_profile, &entry, &warnings) != USABLE) return 1;
  for (int i = 0; i < warnings.count; i++)
    g_log("VIPS", G_LOG_LEVEL_WARNING, "%s", warnings.messages[i]);

  const int width = in->Xsize, in_bands = in->Bands;
  const int out_bands = 3 + in_bands - entry->bands;
  VipsImage *image = vips_image_new_memory();
  VipsPel *packed = NULL;
  if (vips_image_pipelinev(image, VIPS_DEMAND_STYLE_THINSTRIP, in, NULL)) goto fail;
  image->Bands = out_bands;
  image->BandFmt = VIPS_FORMAT_UCHAR;
  image->Type = VIPS_INTERPRETATION_sRGB;
  image->Coding = VIPS_CODING_NONE;
  /* libvips tags its output with the sRGB profile, which the caller then drops. */
  vips_image_remove(image, VIPS_META_ICC_NAME);
  if (vips_image_write_prepare(image)) goto fail;
  if (entry->grid || (in_bands != entry->bands && !entry->shaper)) {
    packed = malloc((size_t)width * (entry->grid ? 3 * sizeof(cmsUInt16Number)
                                                 : (size_t)entry->bands + 3));
    if (!packed) {
      vips_error("icc_transform", "out of memory");
      goto fail;
    }
  }

  ProfileRows rows = {entry, in_bands, packed, image};
  if (each_row(in, profile_row, &rows)) goto fail;
  free(packed);
  entry_release(entry);
  *out = image;
  return 0;

fail:
  free(packed);
  entry_release(entry);
  g_object_unref(image);
  return -1;
}

int cvips_icc_transforms_built(const void *profile, size_t length) {
  const uint64_t hash = fnv1a(profile, length);
  gint64 key = (gint64)hash;
  pthread_mutex_lock(&cache_lock);
  int built = builds_by_hash ? GPOINTER_TO_INT(g_hash_table_lookup(builds_by_hash, &key)) : 0;
  pthread_mutex_unlock(&cache_lock);
  return built;
}

/* vips_CMYK2XYZ of libvips 8.14 for 8-bit CMYK, the first step of vips_colourspace from
 * CMYK: libvips attaches its built-in "cmyk" profile (replacing any other) and runs
 * vips_icc_import to XYZ: lcms from that profile (TYPE_CMYK_8) to cmsCreateXYZProfile()
 * (TYPE_XYZ_16), intent relative colorimetric, cmsFLAGS_NOCACHE, then each 16-bit XYZ
 * value scaled to libvips's D65 float XYZ (decode_xyz). The profile never changes, so
 * its transform is made once per process (libvips builds it for every image, about 18 ms
 * of lcms each time), as a CMYKGrid: the same 16-bit XYZ, computing only the nodes of
 * lcms's grid that pixels need. */

/* icc_transform.c's decode_xyz factors. */
#define CMYK_X_FAC (VIPS_D50_X0 * 32768 / (VIPS_D65_X0 * 100))
#define CMYK_Y_FAC (VIPS_D50_Y0 * 32768 / (VIPS_D65_Y0 * 100))
#define CMYK_Z_FAC (VIPS_D50_Z0 * 32768 / (VIPS_D65_Z0 * 100))

static gint cmyk_imports_built, cmyk_imports_made;

static CMYKGrid *cmyk_import; /* made once by build_cmyk_import, NULL if that failed */

/* Run through pthread_once, which ThreadSanitizer sees (GLib's g_once it does not). */
static void build_cmyk_import(void) {
  g_atomic_int_inc(&cmyk_imports_built);
  VipsBlob *blob = NULL;
  CMYKGrid *grid = NULL;
  if (vips_profile_load("cmyk", &blob, NULL) || !blob) return;
  size_t length;
  const void *bytes = vips_blob_get(blob, &length);
  cmsHPROFILE cmyk = cmsOpenProfileFromMem(bytes, (cmsUInt32Number)length);
  cmsHPROFILE xyz = cmsCreateXYZProfile();
  if (cmyk && xyz) grid = cmyk_grid_new(cmyk, xyz, TYPE_XYZ_16);
  if (cmyk) cmsCloseProfile(cmyk);
  if (xyz) cmsCloseProfile(xyz);
  vips_area_unref(VIPS_AREA(blob));
  cmyk_import = grid;
}

typedef struct {
  CMYKGrid *grid;
  cmsUInt16Number *fixed; /* one row of lcms's 16-bit XYZ */
  VipsImage *out;
} CMYKRows;

/* icc_import's line: lcms to 16-bit XYZ, then decode_xyz to libvips's float XYZ. */
static void cmyk_row(const VipsPel *in, int y, int width, void *context) {
  const CMYKRows *rows = context;
  cmyk_grid_row(rows->grid, in, 4, rows->fixed, width);
  float *q = (float *)VIPS_IMAGE_ADDR(rows->out, 0, y);
  const cmsUInt16Number *p = rows->fixed;
  for (int x = 0; x < width; x++) {
    q[3 * x] = (double)p[3 * x] / CMYK_X_FAC;
    q[3 * x + 1] = (double)p[3 * x + 1] / CMYK_Y_FAC;
    q[3 * x + 2] = (double)p[3 * x + 2] / CMYK_Z_FAC;
  }
}

/* libvips 8.14's 8-bit linear-to-sRGB table (LabQ2sRGB.c, calcul_tables(256)), with its
 * extra last element for the interpolation. Made by pthread_once. */
static int linear_to_srgb_8[257];

static void prepare_linear_to_srgb_8(void) {
  for (int i = 0; i < 256; i++) {
    const float f = (float)i / 255;
    float v;
    if (f <= 0.0031308)
      v = 12.92 * f;
    else
      v = (1.0 + 0.055) * pow(f, 1.0 / 2.4) - 0.055;
    linear_to_srgb_8[i] = (int)rint(255 * v);
  }
  linear_to_srgb_8[256] = linear_to_srgb_8[255];
}

/* vips_col_scRGB2sRGB_8's arithmetic for one channel (LabQ2sRGB.c): clip to the table,
 * interpolate between its two nearest points in float, round to even. The channel is
 * never NaN here: it comes from 16-bit XYZ. */
static inline int linear_channel_to_srgb_8(float channel) {
  float index = channel * 255;
  if (index < 0)
    index = 0;
  else if (index > 255)
    index = 255;
  const int low = (int)index;
  const float v = linear_to_srgb_8[low] +
                  (linear_to_srgb_8[low + 1] - linear_to_srgb_8[low]) * (index - low);
  return (int)rint(v);
}

#pragma clang fp contract(off)
/* One pixel's three 16-bit XYZ samples to its three sRGB bytes (cmyk_srgb_row below says
 * whose arithmetic). */
static inline void xyz16_to_srgb_8(const cmsUInt16Number *p, VipsPel *q) {
  const float X = (double)p[0] / CMYK_X_FAC, Y = (double)p[1] / CMYK_Y_FAC,
              Z = (double)p[2] / CMYK_Z_FAC;
  const float R = 3.2406 / VIPS_D65_Y0 * X + -1.5372 / VIPS_D65_Y0 * Y +
                  -0.4986 / VIPS_D65_Y0 * Z;
  const float G = -0.9689 / VIPS_D65_Y0 * X + 1.8758 / VIPS_D65_Y0 * Y +
                  0.0415 / VIPS_D65_Y0 * Z;
  const float B = 0.0557 / VIPS_D65_Y0 * X + -0.2040 / VIPS_D65_Y0 * Y +
                  1.0570 / VIPS_D65_Y0 * Z;
  q[0] = (VipsPel)linear_channel_to_srgb_8(R);
  q[1] = (VipsPel)linear_channel_to_srgb_8(G);
  q[2] = (VipsPel)linear_channel_to_srgb_8(B);
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#define HAVE_AVX2_XYZ_TO_SRGB 1
#include <immintrin.h>

/* xyz16_to_srgb_8's double steps for four lanes: the sample over its factor, stored to
 * float (as X, Y and Z are) and back to double. */
__attribute__((target("avx2"))) static inline __m256d xyz_lane(__m128i samples, double factor) {
  return _mm256_cvtps_pd(
      _mm256_cvtpd_ps(_mm256_div_pd(_mm256_cvtepi32_pd(samples), _mm256_set1_pd(factor))));
}

/* One matrix row, a X + b Y + c Z in double, left to right, stored to float. */
__attribute__((target("avx2"))) static inline __m128 matrix_lane(__m256d X, __m256d Y,
                                                                __m256d Z, double a, double b,
                                                                double c) {
  const __m256d sum = _mm256_add_pd(
      _mm256_add_pd(_mm256_mul_pd(_mm256_set1_pd(a), X), _mm256_mul_pd(_mm256_set1_pd(b), Y)),
      _mm256_mul_pd(_mm256_set1_pd(c), Z));
  return _mm256_cvtpd_ps(sum);
}

/* linear_channel_to_srgb_8 for eight floats: the same float steps, the table read by
 * gathers, rint's rounding (to even) as the float rounding it is. */
__attribute__((target("avx2"))) static inline __m256i channel_to_srgb_8(__m256 channel) {
  __m256 index = _mm256_mul_ps(channel, _mm256_set1_ps(255));
  index = _mm256_min_ps(_mm256_max_ps(index, _mm256_setzero_ps()), _mm256_set1_ps(255));
  const __m256i low = _mm256_cvttps_epi32(index);
  const __m256i t0 = _mm256_i32gather_epi32(linear_to_srgb_8, low, 4);
  const __m256i t1 = _mm256_i32gather_epi32(linear_to_srgb_8 + 1, low, 4);
  const __m256 v = _mm256_add_ps(
      _mm256_cvtepi32_ps(t0),
      _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(t1, t0)),
                    _mm256_sub_ps(index, _mm256_cvtepi32_ps(low))));
  return _mm256_cvttps_epi32(_mm256_round_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}

/* Eight pixels at a time; returns how many pixels it did (the scalar loop does the
 * rest). Each lane's arithmetic is xyz16_to_srgb_8's, operation for operation. */
__attribute__((target("avx2"))) static int xyz16_to_srgb_8_avx2(const cmsUInt16Number *p,
                                                                VipsPel *q, int width) {
  int x = 0;
  for (; x + 8 <= width; x += 8, p += 24, q += 24) {
    int32_t xs[8], ys[8], zs[8];
    for (int i = 0; i < 8; i++) xs[i] = p[3 * i], ys[i] = p[3 * i + 1], zs[i] = p[3 * i + 2];
    __m128 r[2], g[2], b[2];
    for (int half = 0; half < 2; half++) {
      const __m256d X = xyz_lane(_mm_loadu_si128((const __m128i *)(xs + 4 * half)), CMYK_X_FAC);
      const __m256d Y = xyz_lane(_mm_loadu_si128((const __m128i *)(ys + 4 * half)), CMYK_Y_FAC);
      const __m256d Z = xyz_lane(_mm_loadu_si128((const __m128i *)(zs + 4 * half)), CMYK_Z_FAC);
      r[half] = matrix_lane(X, Y, Z, 3.2406 / VIPS_D65_Y0, -1.5372 / VIPS_D65_Y0,
                            -0.4986 / VIPS_D65_Y0);
      g[half] = matrix_lane(X, Y, Z, -0.9689 / VIPS_D65_Y0, 1.8758 / VIPS_D65_Y0,
                            0.0415 / VIPS_D65_Y0);
      b[half] = matrix_lane(X, Y, Z, 0.0557 / VIPS_D65_Y0, -0.2040 / VIPS_D65_Y0,
                            1.0570 / VIPS_D65_Y0);
    }
    int32_t rs[8], gs[8], bs[8];
    _mm256_storeu_si256((__m256i *)rs, channel_to_srgb_8(_mm256_set_m128(r[1], r[0])));
    _mm256_storeu_si256((__m256i *)gs, channel_to_srgb_8(_mm256_set_m128(g[1], g[0])));
    _mm256_storeu_si256((__m256i *)bs, channel_to_srgb_8(_mm256_set_m128(b[1], b[0])));
    for (int i = 0; i < 8; i++)
      q[3 * i] = (VipsPel)rs[i], q[3 * i + 1] = (VipsPel)gs[i], q[3 * i + 2] = (VipsPel)bs[i];
  }
  return x;
}
#endif

/* The same XYZ floats, then on to 8-bit sRGB as vips_colourspace goes from XYZ
 * (vips_XYZ2scRGB, then vips_scRGB2sRGB at depth 8): vips_col_XYZ2scRGB's and
 * vips_col_scRGB2sRGB_8's arithmetic inline, operation for operation (in double where
 * libvips's constants are, stored to float where it stores), no multiply fused with an
 * add: one pass, no float image between, no call per pixel; eight pixels at a time with
 * AVX2 where the vector kernels run (the same operations in each lane). */
static void cmyk_srgb_row(const VipsPel *in, int y, int width, void *context) {
  const CMYKRows *rows = context;
  cmyk_grid_row(rows->grid, in, 4, rows->fixed, width);
  VipsPel *q = VIPS_IMAGE_ADDR(rows->out, 0, y);
  const cmsUInt16Number *p = rows->fixed;
  int x = 0;
#ifdef HAVE_AVX2_XYZ_TO_SRGB
  /* Counted (resample_uses_avx2), so that a test knows which path ran. */
  if (resample_uses_avx2()) {
    x = xyz16_to_srgb_8_avx2(p, q, width);
    resample_vector_work_done((unsigned long)x / 8);
  }
#endif
  for (; x < width; x++) xyz16_to_srgb_8(p + 3 * x, q + 3 * x);
}
#pragma clang fp contract(on)

/* libvips's CMYK import of `in` to float XYZ, or on to 8-bit sRGB. */
static int cmyk_import_of(VipsImage *in, VipsImage **out, int to_srgb) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  *out = NULL;
  if (in->BandFmt != VIPS_FORMAT_UCHAR || in->Coding != VIPS_CODING_NONE || in->Bands != 4 ||
      in->Type != VIPS_INTERPRETATION_CMYK)
    return 1;
  pthread_once(&once, build_cmyk_import);
  static pthread_once_t table_once = PTHREAD_ONCE_INIT;
  if (to_srgb) pthread_once(&table_once, prepare_linear_to_srgb_8);
  CMYKGrid *grid = cmyk_import;
  if (!grid) return 1;

  VipsImage *image = vips_image_new_memory();
  CMYKRows rows = {grid, malloc(sizeof(cmsUInt16Number) * 3 * (size_t)in->Xsize), image};
  if (!rows.fixed || vips_image_pipelinev(image, VIPS_DEMAND_STYLE_THINSTRIP, in, NULL))
    goto fail;
  image->Bands = 3;
  image->BandFmt = to_srgb ? VIPS_FORMAT_UCHAR : VIPS_FORMAT_FLOAT;
  image->Type = to_srgb ? VIPS_INTERPRETATION_sRGB : VIPS_INTERPRETATION_XYZ;
  if (vips_image_write_prepare(image) ||
      each_row(in, to_srgb ? cmyk_srgb_row : cmyk_row, &rows))
    goto fail;
  free(rows.fixed);
  g_atomic_int_inc(&cmyk_imports_made);
  *out = image;
  return 0;

fail:
  free(rows.fixed);
  g_object_unref(image);
  return -1;
}

int cvips_cmyk_to_xyz_cached(VipsImage *in, VipsImage **out) {
  return cmyk_import_of(in, out, 0);
}

int cvips_cmyk_to_srgb_cached(VipsImage *in, VipsImage **out) {
  return cmyk_import_of(in, out, 1);
}

void cvips_cmyk_import_counts(int *built, int *made) {
  *built = g_atomic_int_get(&cmyk_imports_built);
  *made = g_atomic_int_get(&cmyk_imports_made);
}
