// libdeflate (Debian's libdeflate0, which libtiff already loads), for the shim's inflate
// of a plain PNG's image data in one call (Sources/CVipsShim/PNGRows.c).
#include <libdeflate.h>
