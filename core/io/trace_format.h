// SPDX-License-Identifier: MIT
#pragma once

// What a trace is, told once for files and for bytes in memory alike: from its first bytes (gzip's
// magic, SQLite's header) and, for formats that cannot be read, its name. Never from the suffix of a
// readable file: a .json that is gzipped is read as gzip. Each format's reader is one entry of
// traceReaders() (trace_loader.h): how it is recognized, its suffixes and how it is read.
#include <cstddef>
#include <string>
#include <string_view>

namespace attnscope {

enum class TraceFormat {
    Json,       // Kineto / Chrome trace JSON (also what anything unrecognised is tried as)
    GzipJson,   // the same, gzipped (one member or several)
    NsysSqlite, // an Nsight Systems SQLite export
    NsysReport, // an Nsight Systems report (.nsys-rep, .qdrep): exported to SQLite first
};

// What a trace's summary says it was read from (TraceInfo::format).
inline constexpr std::string_view kKinetoJsonFormat = "kineto-json";
inline constexpr std::string_view kChromeJsonFormat = "chrome-json";
inline constexpr std::string_view kNsysSqliteFormat = "nsys-sqlite";

// The bytes detection needs: the first kTraceHeadBytes of a file (fewer when it is shorter).
inline constexpr std::size_t kTraceHeadBytes = 16;
TraceFormat detectTraceFormat(std::string_view head,
                              std::string_view name); // the first reader recognizing it
bool isGzip(std::string_view head);
// A file's first kTraceHeadBytes ("" when it cannot be read).
std::string traceFileHead(const std::string& path);

} // namespace attnscope
