// SPDX-License-Identifier: MIT
// Opening a trace of any format (trace_format.h tells which), and whether it fits the memory available.
#include "core/io/trace_loader.h"

#include "core/io/nsys_reader.h"

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
    std::string cutShort() const override { return m_inner->cutShort(); }

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

namespace {

std::shared_ptr<const Trace> readJsonFile(const std::string& path, const LoadOptions& options) {
    // A plain JSON file the machine cannot hold is refused before it is read.
    struct stat st {};
    if (stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
        const std::uint64_t available = availableMemoryBytes();
        if (available && kMemoryPerJsonByte * double(st.st_size) > double(available))
            refuseTooBig(double(st.st_size), false, available);
    }
    return readJsonTrace(*openFileSource(path), path, options);
}

std::shared_ptr<const Trace> readGzipFile(const std::string& path, const LoadOptions& options) {
    ExpansionGuard source(openFileSource(path));
    return readJsonTrace(source, path, options);
}

std::shared_ptr<const Trace> readJsonBytes(std::string_view bytes, const std::string& name,
                                           const LoadOptions& options) {
    return readJsonTrace(*openMemorySource(bytes), name, options);
}

std::shared_ptr<const Trace> refuseNsysBytes(std::string_view, const std::string&, const LoadOptions&) {
    throw LoadError("an Nsight Systems SQLite export is read from its file, not from memory: save it and "
                    "open the file");
}

std::shared_ptr<const Trace> refuseReportFile(const std::string& path, const LoadOptions&) {
    refuseNsysReport(path);
}

std::shared_ptr<const Trace> refuseReportBytes(std::string_view, const std::string& name,
                                               const LoadOptions&) {
    refuseNsysReport(name);
}

} // namespace

const std::vector<TraceReader>& traceReaders() {
    static const std::vector<TraceReader> readers = {
        {TraceFormat::GzipJson,
         "Kineto / Chrome trace JSON, gzipped",
         {".json.gz", ".gz"},
         [](std::string_view head, std::string_view) { return isGzip(head); },
         readGzipFile,
         readJsonBytes},
        {TraceFormat::NsysSqlite,
         "Nsight Systems SQLite export",
         {".sqlite"},
         [](std::string_view head, std::string_view) {
             return head.substr(0, 16) == std::string_view("SQLite format 3\0", 16);
         },
         readNsysSqlite,
         refuseNsysBytes},
        // Not read, but said what to do with: recognized by its name.
        {TraceFormat::NsysReport,
         "Nsight Systems report (export it to SQLite)",
         {".nsys-rep", ".qdrep"},
         [](std::string_view, std::string_view name) {
             return name.ends_with(".nsys-rep") || name.ends_with(".qdrep");
         },
         refuseReportFile,
         refuseReportBytes},
        {TraceFormat::Json, "Kineto / Chrome trace JSON", {".json"}, nullptr, readJsonFile, readJsonBytes},
    };
    return readers;
}

const TraceReader& traceReaderFor(std::string_view head, std::string_view name) {
    for (const TraceReader& r : traceReaders())
        if (!r.recognizes || r.recognizes(head, name)) return r;
    return traceReaders().back();
}

TraceFormat detectTraceFormat(std::string_view head, std::string_view name) {
    return traceReaderFor(head, name).format;
}

std::vector<std::string_view> traceSuffixes() {
    std::vector<std::string_view> out;
    for (const TraceReader& r : traceReaders())
        out.insert(out.end(), r.suffixes.begin(), r.suffixes.end());
    std::stable_sort(out.begin(), out.end(),
                     [](std::string_view a, std::string_view b) { return a.size() > b.size(); });
    return out;
}

std::shared_ptr<const Trace> loadTraceFile(const std::string& path, const LoadOptions& options) {
    return traceReaderFor(traceFileHead(path), path).readFile(path, options);
}

std::shared_ptr<const Trace> loadTraceBytes(std::string_view bytes, const std::string& name,
                                            const LoadOptions& options) {
    return traceReaderFor(bytes.substr(0, kTraceHeadBytes), name).readBytes(bytes, name, options);
}

} // namespace attnscope
