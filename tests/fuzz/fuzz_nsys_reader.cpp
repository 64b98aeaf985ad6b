// SPDX-License-Identifier: MIT
// libFuzzer target: any bytes as an Nsight Systems SQLite export (written to a file of this
// process's own, since SQLite reads files), then through the analysis and the summary.
#include "core/analysis/analysis.h"
#include "core/io/nsys_reader.h"
#include "core/report/summary.h"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace attnscope;
    static const std::string path = "/tmp/attnscope-fuzz-nsys-" + std::to_string(getpid()) + ".sqlite";
    if (FILE* f = std::fopen(path.c_str(), "wb")) {
        std::fwrite(data, 1, size, f);
        std::fclose(f);
    } else {
        return 0;
    }
    try {
        const auto trace = readNsysSqlite(path);
        summarize(*trace, 10);
        analyzeTrace(*trace);
    } catch (const LoadError&) {
    }
    return 0;
}
