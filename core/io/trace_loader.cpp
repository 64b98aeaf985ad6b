// SPDX-License-Identifier: MIT
// Format detection: what a file is (gzipped or plain JSON, nsys SQLite), from its first bytes, and
// whether it fits the memory available before it is read.
#include "core/io/trace_loader.h"

#include "core/io/nsys_reader.h"

#include <zlib.h>

#include <cstring>
#include <fstream>
#include <sys/stat.h>
#include <vector>

namespace attnscope {

// How many times its size a gzip file expands, from inflating its start until 64 MB came out (1
// when it cannot tell).
double gzipExpansion(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    z_stream z{};
    if (inflateInit2(&z, 15 + 32) != Z_OK) return 1;
    std::vector<unsigned char> input(1 << 16), output(1 << 20);
    std::uint64_t consumed = 0, produced = 0;
    int rc = Z_OK;
    while (produced < (64u << 20) && rc != Z_STREAM_END) {
        in.read(reinterpret_cast<char*>(input.data()), std::streamsize(input.size()));
        const auto got = std::size_t(in.gcount());
        if (got == 0) break;
        z.next_in = input.data();
        z.avail_in = unsigned(got);
        while (z.avail_in > 0 && rc != Z_STREAM_END && produced < (64u << 20)) {
            z.next_out = output.data();
            z.avail_out = unsigned(output.size());
            rc = inflate(&z, Z_NO_FLUSH);
            produced += output.size() - z.avail_out;
            if (rc != Z_OK && rc != Z_STREAM_END) break;
            if (rc == Z_STREAM_END && z.avail_in > 0) { // the next gzip member
                inflateReset(&z);
                rc = Z_OK;
            }
        }
        consumed += got - z.avail_in;
        if (rc != Z_OK && rc != Z_STREAM_END) break;
    }
    inflateEnd(&z);
    return consumed ? std::max(1.0, double(produced) / double(consumed)) : 1.0;
}

std::uint64_t availableMemoryBytes() {
    std::ifstream in("/proc/meminfo");
    std::string key;
    std::uint64_t kb = 0, total = 0;
    std::string unit;
    while (in >> key >> kb) {
        std::getline(in, unit);
        if (key == "MemAvailable:" || key == "SwapFree:") total += kb * 1024;
    }
    return total;
}

std::shared_ptr<const Trace> loadTraceFile(const std::string& path, const LoadOptions& options) {
    if (isSqliteFile(path)) return readNsysSqlite(path, options); // an Nsight Systems export
    // Nsight Systems' own report is a format of its own; its SQLite export is what can be read.
    if (path.ends_with(".nsys-rep") || path.ends_with(".qdrep"))
        throw LoadError("an Nsight Systems report (" + path.substr(path.rfind('.')) +
                        ") is not read directly: export it with `nsys export --type sqlite " + path +
                        "` and open the .sqlite file it writes");
    // A JSON trace needs about two thirds of its size in memory at the peak of its load (measured:
    // 1.35 GB for 2.15 GB of JSON): one the machine cannot hold — a decompression bomb among them —
    // is refused before it is read.
    struct stat st {};
    if (stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
        std::ifstream head(path, std::ios::binary);
        unsigned char magic[2] = {};
        head.read(reinterpret_cast<char*>(magic), 2);
        const bool gzip = head.gcount() == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
        // gzip: the JSON's size is estimated from how much the first few MB expand (a bomb expands
        // a thousandfold), without reading the rest.
        const double need = 0.65 * (gzip ? gzipExpansion(path) : 1.0) * double(st.st_size);
        const std::uint64_t available = availableMemoryBytes();
        if (available && need > double(available)) {
            char text[256];
            std::snprintf(
                text, sizeof text,
                "this trace is about %.1f GB of JSON%s and needs about %.1f GB of memory to open; %.1f GB "
                "are available (memory and swap): close other programs or open it on a bigger machine",
                need / 0.65 / 1e9, gzip ? " once decompressed" : "", need / 1e9, double(available) / 1e9);
            throw LoadError(text);
        }
    }
    auto source = openFileSource(path);
    return readJsonTrace(*source, path, options);
}

} // namespace attnscope
