// SPDX-License-Identifier: MIT
#include "core/io/trace_format.h"

#include <algorithm>
#include <fstream>

namespace attnscope {

bool isGzip(std::string_view head) {
    return head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f &&
           static_cast<unsigned char>(head[1]) == 0x8b;
}

std::string traceFileHead(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::string head(kTraceHeadBytes, '\0');
    in.read(head.data(), std::streamsize(head.size()));
    head.resize(std::size_t(std::max<std::streamsize>(0, in.gcount())));
    return head;
}

} // namespace attnscope
