// SPDX-License-Identifier: MIT
#pragma once

#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace attnscope {

// Runs f(0) … f(count - 1) on up to `threads` threads (the caller's included), each index once.
template <class F> void parallelFor(std::size_t count, unsigned threads, F&& f) {
    std::atomic<std::size_t> next{0};
    auto work = [&] {
        for (std::size_t i = next++; i < count; i = next++)
            f(i);
    };
    std::vector<std::thread> helpers;
    for (unsigned k = 1; k < threads && k < count; ++k)
        helpers.emplace_back(work);
    work();
    for (std::thread& h : helpers)
        h.join();
}

} // namespace attnscope
