// SPDX-License-Identifier: MIT
#pragma once
// Helpers of the command-line tests: the attnscope binary run as a user runs it.
#include "core/analysis/analysis.h"
#include "core/document/document.h"
#include "core/io/trace_loader.h"
#include "core/report/summary.h"
#include "kernels/cuda_backend.h"
#include "support/test_support.h"
#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

namespace attnscope::test {

using namespace attnscope;

struct CliRun {
    int exitCode = -1;
    std::string out;
};

// Runs the attnscope binary with stderr folded into stdout when asked, as on a machine without a
// display (a QT_QPA_PLATFORM from the test's environment would make `attnscope FILE` a window);
// environment: "VAR=value …" added to its environment.
inline CliRun run(const std::string& args, bool withStderr = false, const std::string& environment = {}) {
    const std::string cmd = std::string("env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM ") +
                            environment + " " + ATTNSCOPE_BINARY + " " + args +
                            (withStderr ? " 2>&1" : " 2>/dev/null");
    CliRun r;
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) return r;
    std::array<char, 65536> buf;
    while (std::size_t n = fread(buf.data(), 1, buf.size(), p))
        r.out.append(buf.data(), n);
    const int status = pclose(p);
    r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

} // namespace attnscope::test
