// SPDX-License-Identifier: MIT
#pragma once

#include "core/io/byte_source.h"
#include "core/io/load_error.h"
#include "core/io/trace_format.h"
#include "core/model/trace.h"

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace attnscope {

struct LoadOptions {
    // Called now and then with bytes of the file consumed so far and the file size (0 if unknown).
    std::function<void(std::uint64_t done, std::uint64_t total)> progress;
    // Checked between chunks; when it becomes true the load stops with LoadCancelled.
    const std::atomic<bool>* cancel = nullptr;
    // Threads that parse events: 0 picks one per core (traces over ~16 MB); 1 parses everything on
    // the calling thread.
    unsigned threads = 0;
    // Bytes read at a time, which is also about the size of the chunks parsed at once.
    std::size_t readBytes = 4u << 20;
};

// Reads Kineto / Chrome trace JSON from a stream. Throws LoadError (with the byte offset of the
// uncompressed JSON) or LoadCancelled. Problems that do not stop the load become warnings.
std::shared_ptr<const Trace> readJsonTrace(ByteSource& source, const std::string& path,
                                           const LoadOptions& options = {});

// A format AttnScope reads, as one entry (in the spirit of Perfetto's trace-reader registry): how it is
// recognized, what a file dialog calls it and which suffixes it offers, and how it is read from a file
// and from bytes in memory. Adding a format is a reader and a line in traceReaders().
struct TraceReader {
    TraceFormat format;
    std::string_view description;           // "Kineto / Chrome trace JSON"
    std::vector<std::string_view> suffixes; // ".json", ".json.gz": offered by file dialogs
    // Whether a file whose first kTraceHeadBytes are head, named name, is of this format; null: the
    // format anything unrecognised is tried as (the last reader).
    bool (*recognizes)(std::string_view head, std::string_view name);
    std::shared_ptr<const Trace> (*readFile)(const std::string& path, const LoadOptions& options);
    std::shared_ptr<const Trace> (*readBytes)(std::string_view bytes, const std::string& name,
                                              const LoadOptions& options);
};
// Every reader, the one tried when none recognizes a file last.
const std::vector<TraceReader>& traceReaders();
const TraceReader& traceReaderFor(std::string_view head, std::string_view name);
// Every reader's suffixes, longest first ("" none): file dialogs, and the names AttnScope suggests.
std::vector<std::string_view> traceSuffixes();

// Memory and swap the kernel says are available now (/proc/meminfo), or 0 when unknown.
std::uint64_t availableMemoryBytes();

// Opens a trace file of any supported format (plain or gzipped JSON, nsys SQLite). A JSON file too
// big for the memory available is refused before it is read (gzip: once its first 64 MB expanded).
std::shared_ptr<const Trace> loadTraceFile(const std::string& path, const LoadOptions& options = {});
// The same over bytes in memory (embedded samples, pasted traces); name is the one messages use. An
// Nsight Systems export is read from its file only: it is refused here with why.
std::shared_ptr<const Trace> loadTraceBytes(std::string_view bytes, const std::string& name,
                                            const LoadOptions& options = {});

} // namespace attnscope
