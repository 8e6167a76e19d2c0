/* Whether a JPEG's scan runs out of data before its last block.
 *
 * libjpeg meets a marker, or the end of the data, inside a scan, warns
 * (JWRN_HIT_MARKER "Corrupt JPEG data: premature end of data segment", or JWRN_JPEG_EOF
 * "Premature end of JPEG file") and fills every block after with zeros: flat grey rows.
 * libvips's truncated level decodes such a file when it ends in an EOI marker all the
 * same, and which warning it was reaches only libvips's one error buffer, shared by
 * every thread. This decodes the file again at 1/8 scale (every coefficient of the
 * entropy-coded data is still read, but few pixels are made) with an error manager of
 * its own, which sees each warning's code; the caller runs it only when the decode
 * warned.
 */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

#include "CVipsShim.h"

struct scan_errors {
  struct jpeg_error_mgr manager;
  jmp_buf escape;
  int ran_out;
  char message[JMSG_LENGTH_MAX];
};

static void on_error(j_common_ptr info) {
  struct scan_errors *errors = (struct scan_errors *)info->err;
  longjmp(errors->escape, 1);
}

static void on_message(j_common_ptr info, int level) {
  struct scan_errors *errors = (struct scan_errors *)info->err;
  if (level >= 0) return;  // trace messages
  errors->manager.num_warnings++;
  const int code = errors->manager.msg_code;
  if ((code == JWRN_HIT_MARKER || code == JWRN_JPEG_EOF) && !errors->ran_out) {
    errors->ran_out = 1;
    errors->manager.format_message(info, errors->message);
  }
}

int cvips_jpeg_scan_runs_out(const void *data, size_t length, char *message,
                             size_t message_size) {
  struct jpeg_decompress_struct info;
  struct scan_errors errors;
  memset(&errors, 0, sizeof(errors));
  info.err = jpeg_std_error(&errors.manager);
  errors.manager.error_exit = on_error;
  errors.manager.emit_message = on_message;
  JSAMPLE *volatile row = NULL;
  if (setjmp(errors.escape)) {
    jpeg_destroy_decompress(&info);
    free(row);
    return -1;
  }
  jpeg_create_decompress(&info);
  jpeg_mem_src(&info, (const unsigned char *)data, (unsigned long)length);
  jpeg_read_header(&info, TRUE);
  info.scale_num = 1;
  info.scale_denom = 8;
  info.dct_method = JDCT_IFAST;
  info.do_fancy_upsampling = FALSE;
  jpeg_start_decompress(&info);
  row = malloc((size_t)info.output_width * (size_t)info.output_components);
  if (!row) {
    jpeg_destroy_decompress(&info);
    return -1;
  }
  while (info.output_scanline < info.output_height) {
    JSAMPROW rows[1] = {row};
    jpeg_read_scanlines(&info, rows, 1);
  }
  jpeg_finish_decompress(&info);
  jpeg_destroy_decompress(&info);
  free(row);
  if (errors.ran_out && message && message_size) {
    snprintf(message, message_size, "%s", errors.message);
  }
  return errors.ran_out;
}
