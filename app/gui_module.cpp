// SPDX-License-Identifier: MIT
#include "gui_module.h"

#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <unistd.h>

namespace attnscope::app {

void* guiEntry(const char* argv0, const char* entryName, std::string& error) {
    char self[4096];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    std::string dir = n > 0 ? std::string(self, std::size_t(n)) : std::string(argv0);
    dir = dir.substr(0, dir.rfind('/') + 1);
    for (const std::string& candidate :
         {dir + "libattnscope_ui.so", dir + "../lib/attnscope/libattnscope_ui.so"}) {
        void* module = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!module) {
            const char* e = dlerror();
            if (error.empty() && access(candidate.c_str(), F_OK) == 0) error = e ? e : "unknown error";
            continue;
        }
        if (void* entry = dlsym(module, entryName)) return entry;
        error = candidate + " has no " + entryName;
    }
    if (error.empty()) error = "libattnscope_ui.so was not found next to the program";
    return nullptr;
}

void* headlessEntry(const char* argv0, const char* entryName, const char* verb) {
    // Pictures need Qt's painting and fonts, not a screen.
    if (!haveDisplay()) setenv("QT_QPA_PLATFORM", "offscreen", 1);
    std::string error;
    void* entry = guiEntry(argv0, entryName, error);
    if (!entry) std::fprintf(stderr, "%s: the Qt part of AttnScope cannot load: %s\n", verb, error.c_str());
    return entry;
}

bool haveDisplay() {
    const char* platform = std::getenv("QT_QPA_PLATFORM");
    if (platform && *platform) return true; // the user chose (offscreen, xcb, wayland…)
    const char* x = std::getenv("DISPLAY");
    const char* wayland = std::getenv("WAYLAND_DISPLAY");
    return (x && *x) || (wayland && *wayland);
}

} // namespace attnscope::app
