#ifndef IMAGETOOL_CVIPS_H
#define IMAGETOOL_CVIPS_H
#include <vips/vips.h>
#endif
