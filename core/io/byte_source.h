// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace attnscope {

// A stream of (decompressed) bytes. Readers pull through reused buffers; nothing here holds a
// whole file in memory.
class ByteSource {
public:
    virtual ~ByteSource() = default;
    // Reads up to n bytes; returns 0 only at the end. Throws LoadError on I/O or format errors.
    virtual std::size_t read(char* dst, std::size_t n) = 0;
    // Bytes consumed from the underlying file (compressed bytes for gzip), for progress.
    virtual std::uint64_t rawPosition() const = 0;
    // Size of the underlying file, 0 when unknown.
    virtual std::uint64_t rawSize() const = 0;
    // Once read() has returned 0: why the bytes ended before the file said they would (a gzip stream cut
    // off by a partial copy); "" when they did not. What came before the cut was read as it was: a
    // trace cut inside its events keeps the complete ones, as a cut plain file does.
    virtual std::string cutShort() const { return {}; }
};

// Opens a file; gzip is recognised by its magic bytes (1f 8b), not by the file name.
std::unique_ptr<ByteSource> openFileSource(const std::string& path);
// The same over bytes in memory (embedded samples, fuzzing); the bytes must outlive the source.
std::unique_ptr<ByteSource> openMemorySource(std::string_view bytes);

} // namespace attnscope
