#ifndef IMAGETOOL_CCURL_H
#define IMAGETOOL_CCURL_H
#include <curl/curl.h>
#endif
