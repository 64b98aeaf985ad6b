// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace attnscope {

// A file that cannot be read: what is wrong and, where known, the byte offset.
class LoadError : public std::runtime_error {
public:
    explicit LoadError(const std::string& what, std::optional<std::uint64_t> offset = std::nullopt)
        : std::runtime_error(offset ? what + " (at byte " + std::to_string(*offset) + ")" : what),
          m_offset(offset) {}
    std::optional<std::uint64_t> offset() const { return m_offset; }

private:
    std::optional<std::uint64_t> m_offset;
};

// The load was cancelled by the caller.
class LoadCancelled : public std::runtime_error {
public:
    LoadCancelled() : std::runtime_error("load cancelled") {}
};

} // namespace attnscope
