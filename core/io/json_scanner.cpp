// SPDX-License-Identifier: MIT
#include "core/io/json_scanner.h"

#include <cstdint>
#include <cstring>
#include <initializer_list>
#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace attnscope {

namespace {
inline bool isSeparator(char c) {
    return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == ',';
}
} // namespace

#define ATTNSCOPE_SCAN_NS scan_baseline
#include "core/io/json_scanner_impl.inc"
#undef ATTNSCOPE_SCAN_NS

#if defined(__x86_64__) && defined(__GNUC__)
// The same body again, compiled for AVX2 (GCC and clang spell "these functions get a target" differently).
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2")
#endif
#define ATTNSCOPE_SCAN_NS scan_avx2
#define ATTNSCOPE_SCAN_AVX2
#include "core/io/json_scanner_impl.inc"
#undef ATTNSCOPE_SCAN_AVX2
#undef ATTNSCOPE_SCAN_NS
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#endif

JsonElementScanner::Result JsonElementScanner::scan(const char* data, std::size_t from, std::size_t to) {
#if defined(__x86_64__) && defined(__GNUC__)
    static const bool avx2 = __builtin_cpu_supports("avx2");
    if (avx2) return scan_avx2::scan(m_state, data, from, to);
#endif
    return scan_baseline::scan(m_state, data, from, to);
}

} // namespace attnscope
