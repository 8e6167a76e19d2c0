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
 *       returns IMAGETOOL_PLUGIN_ABI_VERSION as the plugin was built with it; the host
 *       refuses a plugin of another version before calling anything else.
 *
 *   int32_t imagetool_plugin_register(const ImageToolHost *host);
 *       calls host->register_processor once per processor; returns 0, or non-zero
 *       when it could not register everything.
 *
 * The host copies every string during register_processor. It never unloads a
 * plugin, so the function pointers stay valid. `process` may be called from many
 * threads at once.
 */

#include <stddef.h>
#include <stdint.h>

#define IMAGETOOL_PLUGIN_ABI_VERSION 1u

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
  uint32_t abi_version;
  void *host;
  /* Returns 0, or non-zero with a message in `error` (a taken name, a bad parameter). */
  int32_t (*register_processor)(void *host, const ImageToolProcessorDefinition *definition,
                                char *error, size_t error_size);
} ImageToolHost;

typedef uint32_t (*ImageToolPluginABIVersion)(void);
typedef int32_t (*ImageToolPluginRegister)(const ImageToolHost *host);

#endif
