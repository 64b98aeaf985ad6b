// SPDX-License-Identifier: MIT
#include "cli.h"

#include <cstdio>
#include <cstring>

#ifdef ATTNSCOPE_WITH_GUI
#include "ui/gui_main.h"
#endif

int main(int argc, char** argv) {
    using namespace attnscope;
    if (argc >= 2) {
        const char* verb = argv[1];
        if (!std::strcmp(verb, "summary")) return cli::summary(argc, argv);
        if (!std::strcmp(verb, "convert")) return cli::convert(argc, argv);
        if (!std::strcmp(verb, "--version") || !std::strcmp(verb, "version")) {
            std::printf("attnscope %s\n", cli::version());
            return cli::kOk;
        }
        if (!std::strcmp(verb, "--help") || !std::strcmp(verb, "-h") || !std::strcmp(verb, "help")) {
            cli::printUsage(argv[0]);
            return cli::kOk;
        }
    }
#ifdef ATTNSCOPE_WITH_GUI
    return ui::guiMain(argc, argv);
#else
    std::fprintf(stderr, "this build has no GUI; use a command:\n");
    cli::printUsage(argv[0]);
    return cli::kUsage;
#endif
}
