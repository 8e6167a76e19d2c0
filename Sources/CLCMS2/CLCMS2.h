#ifndef IMAGETOOL_CLCMS2_H
#define IMAGETOOL_CLCMS2_H
#include <lcms2.h>
#endif
