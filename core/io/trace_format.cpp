// SPDX-License-Identifier: MIT
#include "core/io/trace_format.h"

#include <algorithm>
#include <fstream>

namespace attnscope {

TraceFormat detectTraceFormat(std::string_view head, std::string_view name) {
    if (head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f &&
        static_cast<unsigned char>(head[1]) == 0x8b)
        return TraceFormat::GzipJson;
    if (head.substr(0, 16) == std::string_view("SQLite format 3\0", 16)) return TraceFormat::NsysSqlite;
    if (name.ends_with(".nsys-rep") || name.ends_with(".qdrep")) return TraceFormat::NsysReport;
    return TraceFormat::Json;
}

std::string traceFileHead(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::string head(kTraceHeadBytes, '\0');
    in.read(head.data(), std::streamsize(head.size()));
    head.resize(std::size_t(std::max<std::streamsize>(0, in.gcount())));
    return head;
}

} // namespace attnscope
