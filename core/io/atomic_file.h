// SPDX-License-Identifier: MIT
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace attnscope {

// Writes a file through a temporary beside it and renames it into place on commit(), so a reader
// never sees half a file. Compresses with gzip when asked. Throws std::runtime_error on failure.
class AtomicFile {
public:
    AtomicFile(const std::string& path, bool gzip);
    ~AtomicFile(); // without commit(), the temporary is removed
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    void write(std::string_view bytes);
    void commit();

private:
    struct Impl;
    std::unique_ptr<Impl> m;
};

bool endsWith(std::string_view s, std::string_view suffix);

} // namespace attnscope
