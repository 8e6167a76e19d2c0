#include "CCurlShim.h"

#include <sys/socket.h>

#include <pthread.h>

static pthread_once_t global_init_once = PTHREAD_ONCE_INIT;
static CURLcode global_init_result = CURLE_FAILED_INIT;

static void global_init(void) { global_init_result = curl_global_init(CURL_GLOBAL_ALL); }

CURLcode ccurl_global_init_once(void) {
  pthread_once(&global_init_once, global_init);
  return global_init_result;
}

CURLcode ccurl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
  return curl_easy_setopt(handle, option, value);
}

CURLcode ccurl_easy_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
  return curl_easy_setopt(handle, option, value);
}

CURLcode ccurl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
  return curl_easy_setopt(handle, option, value);
}

CURLcode ccurl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
  return curl_easy_setopt(handle, option, value);
}

CURLcode ccurl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
  return curl_easy_setopt(handle, option, value);
}

CURLcode ccurl_easy_setopt_data_function(CURL *handle, CURLoption option,
                                         curl_write_callback function) {
  return curl_easy_setopt(handle, option, function);
}

CURLcode ccurl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
  return curl_easy_getinfo(handle, info, value);
}

CURLcode ccurl_easy_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value) {
  return curl_easy_getinfo(handle, info, value);
}

CURLcode ccurl_easy_getinfo_string(CURL *handle, CURLINFO info, const char **value) {
  return curl_easy_getinfo(handle, info, value);
}

CURLMcode ccurl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
  return curl_multi_setopt(multi, option, value);
}

/* Sockets made close-on-exec when they are made (SOCK_CLOEXEC): libcurl 7.88 makes them
 * without, so a child process started while a transfer is open (a test's imgtool, an
 * app's helper) inherited the connection and held it open after the transfer was
 * cancelled and closed here (a server saw no close for 100 s). */
static curl_socket_t open_close_on_exec(void *data, curlsocktype purpose,
                                        struct curl_sockaddr *address) {
  (void)data;
  (void)purpose;
  return socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
}

CURLcode ccurl_easy_open_sockets_close_on_exec(CURL *handle) {
  return curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, open_close_on_exec);
}
