// SPDX-License-Identifier: MIT
#include "cli.h"

#include <cstdio>
#include <cstring>

namespace {

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
    }
    return cli::window(argc, argv);
}
