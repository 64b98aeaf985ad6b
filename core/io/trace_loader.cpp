// SPDX-License-Identifier: MIT
// Opening a trace of any format (trace_format.h tells which), and whether it fits the memory available.
#include "core/io/trace_loader.h"

#include "core/io/nsys_reader.h"
#include "core/io/trace_format.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sys/stat.h>
#include <vector>

namespace attnscope {

namespace {

// A JSON trace needs about two thirds of its size in memory at the peak of its load (measured:
// 1.35 GB for 2.15 GB of JSON).
constexpr double kMemoryPerJsonByte = 0.65;

[[noreturn]] void refuseTooBig(double jsonBytes, bool gzip, std::uint64_t available) {
    char text[256];
    std::snprintf(text, sizeof text,
                  "this trace is about %.1f GB of JSON%s and needs about %.1f GB of memory to open; %.1f GB "
                  "are available (memory and swap): close other programs or open it on a bigger machine",
                  jsonBytes / 1e9, gzip ? " once decompressed" : "", kMemoryPerJsonByte * jsonBytes / 1e9,
                  double(available) / 1e9);
    throw LoadError(text);
}

// A gzipped trace's size is known only as it is inflated: its first 64 MB are inflated before the
// reader sees a byte, and how much they expanded tells the whole JSON's size (a decompression bomb
// expands a thousandfold); one the machine cannot hold is refused then. The bytes inflated are kept
// and handed to the reader: nothing is inflated twice.
class ExpansionGuard final : public ByteSource {
public:
    explicit ExpansionGuard(std::unique_ptr<ByteSource> inner) : m_inner(std::move(inner)) {
        m_head.resize(kSample);
        std::size_t got = 0;
        while (got < m_head.size())
            if (const std::size_t n = m_inner->read(m_head.data() + got, m_head.size() - got); n)
                got += n;
            else
                break;
        m_head.resize(got);
        const std::uint64_t consumed = m_inner->rawPosition(), size = m_inner->rawSize();
        const std::uint64_t available = availableMemoryBytes();
        if (got == kSample && consumed && available) {
            const double json = double(got) / double(consumed) * double(size);
            if (kMemoryPerJsonByte * json > double(available)) refuseTooBig(json, true, available);
        }
    }
    std::size_t read(char* dst, std::size_t n) override {
        if (m_pos < m_head.size()) {
            const std::size_t k = std::min(n, m_head.size() - m_pos);
            std::memcpy(dst, m_head.data() + m_pos, k);
            m_pos += k;
            if (m_pos == m_head.size()) std::string().swap(m_head); // the reader has it: free it
            return k;
        }
        return m_inner->read(dst, n);
    }
    std::uint64_t rawPosition() const override { return m_inner->rawPosition(); }
    std::uint64_t rawSize() const override { return m_inner->rawSize(); }

private:
    static constexpr std::size_t kSample = 64u << 20;
    std::unique_ptr<ByteSource> m_inner;
    std::string m_head;
    std::size_t m_pos = 0;
};

[[noreturn]] void refuseNsysReport(const std::string& name) {
    throw LoadError("an Nsight Systems report (" + name.substr(name.rfind('.')) +
                    ") is not read directly: export it with `nsys export --type sqlite " + name +
                    "` and open the .sqlite file it writes");
}

} // namespace

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
    const TraceFormat format = detectTraceFormat(traceFileHead(path), path);
    if (format == TraceFormat::NsysSqlite) return readNsysSqlite(path, options);
    if (format == TraceFormat::NsysReport) refuseNsysReport(path);
    // A plain JSON file the machine cannot hold is refused before it is read.
    struct stat st {};
    if (format == TraceFormat::Json && stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
        const std::uint64_t available = availableMemoryBytes();
        if (available && kMemoryPerJsonByte * double(st.st_size) > double(available))
            refuseTooBig(double(st.st_size), false, available);
    }
    std::unique_ptr<ByteSource> source = openFileSource(path);
    if (format == TraceFormat::GzipJson) source = std::make_unique<ExpansionGuard>(std::move(source));
    return readJsonTrace(*source, path, options);
}

std::shared_ptr<const Trace> loadTraceBytes(std::string_view bytes, const std::string& name,
                                            const LoadOptions& options) {
    switch (detectTraceFormat(bytes.substr(0, kTraceHeadBytes), name)) {
    case TraceFormat::NsysSqlite:
        throw LoadError("an Nsight Systems SQLite export is read from its file, not from memory: save it and "
                        "open the file");
    case TraceFormat::NsysReport:
        refuseNsysReport(name);
    case TraceFormat::Json:
    case TraceFormat::GzipJson:
        break;
    }
    auto source = openMemorySource(bytes);
    return readJsonTrace(*source, name, options);
}

} // namespace attnscope
