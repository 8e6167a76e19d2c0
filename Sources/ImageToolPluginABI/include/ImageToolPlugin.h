#ifndef IMAGETOOL_PLUGIN_H
#define IMAGETOOL_PLUGIN_H

/*
 * The C-level interface between imgtool and a processor plugin (a shared library
 * loaded with `imgtool --plugin PATH.so`). Only C types cross it, so a plugin built
 * separately, in any language, does not depend on Swift type identity. Images cross
 * as libvips `VipsImage *` (as `void *`): the host and the plugin share libvips.
 *
 * A plugin exports two functions:
 *
 *   uint32_t imagetool_plugin_abi_version(void);
 *       returns the interface version the plugin speaks: IMAGETOOL_PLUGIN_ABI_VERSION
 *       as it was built with it, or an older one it is content with. The host refuses a
 *       version it does not know before calling anything else, and then speaks the
 *       plugin's version: `ImageToolHost.abi_version` is the plugin's own.
 *
 *   int32_t imagetool_plugin_register(const ImageToolHost *host);
 *       calls host->register_processor once per processor; returns 0, or non-zero
 *       when it could not register everything.
 *
 * The host copies every string during register_processor. It never unloads a
 * plugin, so the function pointers stay valid. `process` may be called from many
 * threads at once.
 *
 * Versions:
 *   1  the first: processors with parameters, `process` with a context.
 *   2  adds, at the end of ImageToolContext, the host's services for the call: a memo
 *      shared by the formats of one fill (work done once per photo, such as finding
 *      faces, for all the sizes of a family) and running the host's own processors
 *      (a fallback such as "fill(crop: attention)" that is exactly the built-in's).
 *      Every version-1 structure is unchanged, so a version-1 plugin loads as before.
 */

#include <stddef.h>
#include <stdint.h>

#define IMAGETOOL_PLUGIN_ABI_VERSION 2u
/* The oldest version the host still loads, and the one a plugin that needs nothing
 * newer may declare to load in any host since. */
#define IMAGETOOL_PLUGIN_ABI_VERSION_1 1u

/* One parameter a processor takes. */
typedef struct ImageToolParameter {
  const char *name;
  /* "number", "integer", "string", "color", "boolean", or "choice:a|b|c". */
  const char *kind;
  /* The default as a spec writes it ("2", "centre", "#ffffff"), or NULL if required. */
  const char *default_value;
  /* The range of "number" and "integer" parameters. */
  double minimum;
  double maximum;
  const char *summary;
} ImageToolParameter;

/* One checked argument: numbers as decimal text, colours as "#rrggbbaa", strings
 * and words as themselves, booleans as "true" or "false". Every parameter is given. */
typedef struct ImageToolArgument {
  const char *name;
  const char *value;
} ImageToolArgument;

/* What the processor draws for. */
typedef struct ImageToolContext {
  const char *format_name;
  const char *family;
  const char *style; /* "bgra32", "bgr32", "bgr555" or "gray8" */
  const char *entity_id;
  int32_t pixel_width;
  int32_t pixel_height;
  int32_t scale;
  uint8_t background[4]; /* red, green, blue, alpha */

  /* Since version 2: the host's services for this call (a version-1 plugin never reads
   * them). Pass `host_state` back as the first argument. Valid during `process` only. */
  void *host_state;
  /* The numbers stored under `key` for the image this fill decoded: copies up to
   * `capacity` of them into `values` and returns how many there are (call again with
   * more room if that is more than `capacity`), or -1 when nothing is stored. Store
   * only what depends on the decoded image and the key, never on the format: every
   * format of the family reads it. Outside a fill (a single `imgtool apply`), the memo
   * lives for one call. */
  int32_t (*memo_lookup)(void *host_state, const char *key, double *values, int32_t capacity);
  /* Stores `count` numbers under `key` for this fill; returns 0. */
  int32_t (*memo_store)(void *host_state, const char *key, const double *values, int32_t count);
  /* Runs a pipeline of the host's processors (a spec such as "fill(crop: centre)") on
   * `input` (borrowed; any image, such as a crop of this call's input) for this same
   * context; sets *output to a new image (one reference, which the caller takes) and
   * returns 0, or returns non-zero with a message in `error`. Given this call's own
   * input, the host's processors work in the photo's coordinates (the family's decode
   * may be shrunk on load), exactly as the built-ins in the format's pipeline would;
   * given any other image (a cut-out, a rotation, a composite the plugin made), they
   * take that image as the whole photo, pixel for pixel, and the fill's memo is not
   * theirs for it: a "fill" covers the format with the cut-out, unstretched. */
  int32_t (*run_pipeline)(void *host_state, const char *spec, void *input, void **output,
                          char *error, size_t error_size);
} ImageToolContext;

typedef struct ImageToolProcessorDefinition {
  const char *name;
  int32_t version;
  const char *summary;
  const ImageToolParameter *parameters;
  int32_t parameter_count;
  /* Makes a processor from its arguments; returns its state (not NULL), or NULL with
   * a message in `error` to refuse them. */
  void *(*create)(const ImageToolArgument *arguments, int32_t count, char *error, size_t error_size);
  /* Sets *output to a new VipsImage (one reference, which the host takes) made from
   * `input` (borrowed); returns 0, or non-zero with a message in `error`. */
  int32_t (*process)(void *state, void *input, void **output, const ImageToolContext *context,
                     char *error, size_t error_size);
  /* Frees what create made. */
  void (*destroy)(void *state);
} ImageToolProcessorDefinition;

typedef struct ImageToolHost {
  /* The version this session speaks: the one the plugin's imagetool_plugin_abi_version
   * returned. */
  uint32_t abi_version;
  void *host;
  /* Returns 0, or non-zero with a message in `error` (a taken name, a bad parameter). */
  int32_t (*register_processor)(void *host, const ImageToolProcessorDefinition *definition,
                                char *error, size_t error_size);
} ImageToolHost;

typedef uint32_t (*ImageToolPluginABIVersion)(void);
typedef int32_t (*ImageToolPluginRegister)(const ImageToolHost *host);

#endif
