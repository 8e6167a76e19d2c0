#ifndef IMAGETOOL_CCURLSHIM_H
#define IMAGETOOL_CCURLSHIM_H

// One non-variadic function per libcurl call that Swift cannot make itself: the
// variadic curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt, one function
// per argument type, and curl_global_init once per process. No logic lives here: each
// function passes its arguments through.

#include <curl/curl.h>

/// curl_global_init(CURL_GLOBAL_ALL), once per process (pthread_once); its result.
CURLcode ccurl_global_init_once(void);

CURLcode ccurl_easy_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode ccurl_easy_setopt_off(CURL *handle, CURLoption option, curl_off_t value);
CURLcode ccurl_easy_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode ccurl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode ccurl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value);
/// CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION (the same signature).
CURLcode ccurl_easy_setopt_data_function(CURL *handle, CURLoption option,
                                         curl_write_callback function);

CURLcode ccurl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode ccurl_easy_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value);
/// The string stays owned by the handle (NULL when there is none).
CURLcode ccurl_easy_getinfo_string(CURL *handle, CURLINFO info, const char **value);

CURLMcode ccurl_multi_setopt_long(CURLM *multi, CURLMoption option, long value);

/* Makes the handle's sockets close-on-exec from their creation (SOCK_CLOEXEC), so that
 * no child process inherits a connection. */
CURLcode ccurl_easy_open_sockets_close_on_exec(CURL *handle);

#endif
