// SPDX-License-Identifier: MIT
#include "cli.h"

#include <cstring>

int main(int argc, char** argv) {
    using namespace attnscope;
    if (argc >= 2) {
        const char* first = argv[1];
        if (!std::strcmp(first, "--help") || !std::strcmp(first, "-h") || !std::strcmp(first, "help")) {
            cli::printHelp(argv[0]);
            return cli::kOk;
        }
        if (!std::strcmp(first, "--version")) return cli::runVerb(*cli::findVerb("version"), argc, argv);
        if (const cli::Verb* verb = cli::findVerb(first)) return cli::runVerb(*verb, argc, argv);
    }
    return cli::window(argc, argv);
}
