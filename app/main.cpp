// SPDX-License-Identifier: MIT
#include "cli.h"

#include <cstdio>
#include <cstring>
#include <sys/stat.h>

namespace {

bool isFile(const char* path) {
    struct stat st {};
    return stat(path, &st) == 0 && !S_ISDIR(st.st_mode);
}

bool isHelp(const char* arg) {
    return !std::strcmp(arg, "--help") || !std::strcmp(arg, "-h") || !std::strcmp(arg, "help");
}

} // namespace

int main(int argc, char** argv) {
    using namespace attnscope;
    if (argc >= 2) {
        if (isHelp(argv[1])) {
            cli::printHelp(argv[0]);
            return cli::kOk;
        }
        if (!std::strcmp(argv[1], "--version")) return cli::findVerb("version")->handler(argc, argv);
        if (const cli::Verb* verb = cli::findVerb(argv[1])) {
            for (int i = 2; i < argc; ++i)
                if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
                    cli::printVerbHelp(argv[0], *verb);
                    return cli::kOk;
                }
            return verb->handler(argc, argv);
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
    return cli::window(argc, argv);
}
