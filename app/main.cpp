// SPDX-License-Identifier: MIT
#include "cli.h"

#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace {

// The GUI lives in a module loaded only when a window (or a picture) is wanted, so the other
// headless commands start without Qt (and without a display) on GPU servers.
int runModule(const char* entryName, int argc, char** argv) {
    char self[4096];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    std::string dir = n > 0 ? std::string(self, std::size_t(n)) : std::string(argv[0]);
    dir = dir.substr(0, dir.rfind('/') + 1);
    std::string error;
    for (const std::string& candidate :
         {dir + "libattnscope_ui.so", dir + "../lib/attnscope/libattnscope_ui.so"}) {
        void* module = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!module) {
            const char* e = dlerror();
            if (error.empty() && access(candidate.c_str(), F_OK) == 0) error = e ? e : "unknown error";
            continue;
        }
        using GuiMain = int (*)(int, char**);
        auto entry = reinterpret_cast<GuiMain>(dlsym(module, entryName));
        if (entry) return entry(argc, argv);
        error = candidate + " has no " + entryName;
    }
    std::fprintf(stderr,
                 "attnscope: the Qt part of AttnScope cannot load: %s\nThe other commands still work:\n",
                 error.empty() ? "libattnscope_ui.so was not found next to the program" : error.c_str());
    attnscope::cli::printUsage(argv[0]);
    return attnscope::cli::kUsage;
}

bool isFile(const char* path) {
    struct stat st {};
    return stat(path, &st) == 0 && !S_ISDIR(st.st_mode);
}

} // namespace

int main(int argc, char** argv) {
    using namespace attnscope;
    if (argc >= 2) {
        const char* verb = argv[1];
        if (!std::strcmp(verb, "summary")) return cli::summary(argc, argv);
        if (!std::strcmp(verb, "convert")) return cli::convert(argc, argv);
        if (!std::strcmp(verb, "run")) return cli::run(argc, argv);
        if (!std::strcmp(verb, "diff")) return cli::diff(argc, argv);
        if (!std::strcmp(verb, "export")) return runModule("attnscope_gui_export", argc, argv);
        if (!std::strcmp(verb, "--version") || !std::strcmp(verb, "version")) {
            std::printf("attnscope %s\n", cli::version());
            return cli::kOk;
        }
        if (!std::strcmp(verb, "--help") || !std::strcmp(verb, "-h") || !std::strcmp(verb, "help")) {
            cli::printUsage(argv[0]);
            return cli::kOk;
        }
        // Anything else must be trace files to open in the window (or the window's own options).
        for (int i = 1; i < argc; ++i) {
            if (!std::strcmp(argv[i], "--screenshot") && i + 1 < argc) {
                ++i;
                continue;
            }
            if (!std::strcmp(argv[i], "--timing")) continue;
            if (!isFile(argv[i])) {
                std::fprintf(stderr, "attnscope: '%s' is neither a command nor a trace file\n", argv[i]);
                cli::printUsage(argv[0]);
                return cli::kUsage;
            }
        }
    }
    return runModule("attnscope_gui_main", argc, argv);
}
