// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>

namespace attnscope {

// Finds where the elements of a JSON array end without parsing them: tracks string state and
// nesting depth across buffer refills. Depth 0 is "between elements of the array".
class JsonElementScanner {
public:
    struct Result {
        // Offset just past the last element that closed within the scanned bytes, or npos.
        std::size_t lastElementEnd = kNone;
        // Offset of the closing bracket at depth 0 (the array's ']', or the '}' of an enclosing
        // object when a single value is scanned) when it was reached (scanning stops there), or npos.
        std::size_t arrayEnd = kNone;
        // Offset of the first byte of an element that began after lastElementEnd (or after the
        // start, when nothing closed), or npos when only separators were seen.
        std::size_t pendingStart = kNone;
    };
    static constexpr std::size_t kNone = static_cast<std::size_t>(-1);

    // With singleValue, scanning stops as soon as the first element closes: for walking past one
    // value of an object instead of the elements of an array.
    explicit JsonElementScanner(bool singleValue = false) { m_state.singleValue = singleValue; }

    // Scans data[from, to). Offsets in the result are relative to data.
    Result scan(const char* data, std::size_t from, std::size_t to);

    // Between elements, with nothing open.
    bool idle() const { return m_state.depth == 0 && !m_state.inString && !m_state.inScalar; }

    // Carried from one scan() to the next.
    struct State {
        int depth = 0;
        bool inString = false;
        bool escape = false;
        bool inScalar = false; // a bare scalar element at depth 0 (number, literal, string)
        bool singleValue = false;
    };

private:
    State m_state;
};

} // namespace attnscope
