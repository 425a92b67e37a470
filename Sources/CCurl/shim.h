#ifndef QAPITAL_CCURL_SHIM_H
#define QAPITAL_CCURL_SHIM_H

/* libcurl's easy and multi API (Debian: libcurl4-openssl-dev), for HTTPTransport's HTTPFetcher.
   curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: these tiny
   functions pass one typed argument each. */

#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

/* The write and header callbacks share one shape. */
typedef size_t (*qc_data_callback)(char *data, size_t size, size_t count, void *context);

static inline CURLcode qc_global_init(void) { return curl_global_init(CURL_GLOBAL_DEFAULT); }

static inline CURLcode qc_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode qc_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
/* Strings: libcurl copies them (all but CURLOPT_POSTFIELDS, which this package never sets). */
static inline CURLcode qc_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
/* Other pointers: callback contexts, CURLOPT_COPYPOSTFIELDS's bytes. */
static inline CURLcode qc_setopt_pointer(CURL *handle, CURLoption option, const void *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode qc_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode qc_setopt_data_callback(CURL *handle, CURLoption option, qc_data_callback value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode qc_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode qc_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

#endif
