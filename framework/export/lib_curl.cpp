#include "framework/export/lib_curl.hpp"

#include <dlfcn.h>

#include <mutex>
#include <string>

namespace ringscope::exporter {
namespace {

template <class F>
bool bind(void* lib, const char* name, F& out, std::string& missing) {
    out = reinterpret_cast<F>(::dlsym(lib, name));
    if (!out && missing.empty()) missing = name;
    return out != nullptr;
}

}  // namespace

Expected<const LibCurl*> LibCurl::get() {
    static LibCurl curl;
    static std::string failure;
    static std::once_flag once;
    std::call_once(once, [] {
        // The soname of Debian's libcurl4 (any TLS flavour); the ABI has been 4 since 2006.
        void* lib = ::dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
        if (!lib) {
            const char* why = ::dlerror();
            failure =
                std::string("cannot load libcurl.so.4 (needed by export): ") + (why ? why : "unknown error");
            return;
        }
        std::string missing;
        bind(lib, "curl_global_init", curl.global_init, missing);
        bind(lib, "curl_easy_init", curl.easy_init, missing);
        bind(lib, "curl_easy_cleanup", curl.easy_cleanup, missing);
        bind(lib, "curl_easy_reset", curl.easy_reset, missing);
        bind(lib, "curl_easy_setopt", curl.easy_setopt, missing);
        bind(lib, "curl_easy_perform", curl.easy_perform, missing);
        bind(lib, "curl_easy_getinfo", curl.easy_getinfo, missing);
        bind(lib, "curl_easy_strerror", curl.easy_strerror, missing);
        bind(lib, "curl_easy_escape", curl.easy_escape, missing);
        bind(lib, "curl_free", curl.free, missing);
        bind(lib, "curl_slist_append", curl.slist_append, missing);
        bind(lib, "curl_slist_free_all", curl.slist_free_all, missing);
        if (!missing.empty()) {
            failure = "libcurl.so.4 has no " + missing + " (needed by export)";
            return;
        }
        if (CURLcode rc = curl.global_init(CURL_GLOBAL_DEFAULT); rc != CURLE_OK)
            failure = std::string("curl_global_init failed: ") + curl.easy_strerror(rc);
    });
    if (!failure.empty()) return Error(Errc::io, failure);
    return &curl;
}

}  // namespace ringscope::exporter
