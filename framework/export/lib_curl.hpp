// libcurl, loaded with dlopen on the first export rather than linked: linking it made every
// ringscope process (and every SDK program) load libcurl and its 30 libraries at start-up, about
// 3 ms each time, for a command only `export` uses.
#pragma once

#include <curl/curl.h>

#include <ringscope/error.hpp>

namespace ringscope::exporter {

struct LibCurl {
    decltype(&curl_global_init) global_init;
    decltype(&curl_easy_init) easy_init;
    decltype(&curl_easy_cleanup) easy_cleanup;
    decltype(&curl_easy_reset) easy_reset;
    decltype(&curl_easy_setopt) easy_setopt;
    decltype(&curl_easy_perform) easy_perform;
    decltype(&curl_easy_getinfo) easy_getinfo;
    decltype(&curl_easy_strerror) easy_strerror;
    decltype(&curl_easy_escape) easy_escape;
    decltype(&curl_free) free;
    decltype(&curl_slist_append) slist_append;
    decltype(&curl_slist_free_all) slist_free_all;

    // The library, loaded and initialised once (thread-safe); an error naming what is missing.
    static Expected<const LibCurl*> get();
};

}  // namespace ringscope::exporter
