// SPDX-License-Identifier: MIT
#pragma once

// The project's CUDA kernels run on the host, for tests on machines without a GPU. A kernel's body
// (the .cuh files) compiles as C++ with ATTNSCOPE_HOST_EMULATION defined; this header gives it the
// CUDA built-ins it uses. Each block runs on one OS thread, its threads as fibers (ucontext) that run
// until they reach a point where CUDA threads wait for each other:
//   __syncthreads()             a barrier over the block: nobody resumes until everyone has arrived;
//   __shfl_xor_sync, mma.sync,  warp-wide: each lane deposits its operands, the last lane to arrive
//   ldmatrix                    computes every lane's result from all of them, as the warp would;
//   cp.async                    copies are queued per thread and land only at cp.async.wait_group,
//                               so a kernel that reads before waiting reads stale shared memory (or,
//                               in the other timing, land as issued: see CopyTiming).
// A thread that reaches a different kind of warp-wide operation than its warp, or a barrier some
// threads never reach, is reported (std::runtime_error), not hung.
//
// The fragment layouts are the PTX ISA's ("Matrix Fragments for mma.m16n8k16", "ldmatrix"); a layout
// can be broken on purpose (setBrokenLayout) so the tests show the harness catches a wrong one.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <vector_functions.h>
#include <vector_types.h>

#include <ucontext.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace attnscope_emu {

struct Dim3 {
    unsigned x = 1, y = 1, z = 1;
    unsigned count() const { return x * y * z; }
};

enum class Broken { None, MmaA, LdmatrixTrans };

class Block;

// What one lane hands to a warp-wide operation, and what it gets back.
struct Deposit {
    std::uint32_t a[4] = {};
    std::uint32_t b[2] = {};
    float c[4] = {};
    float f = 0;
    int laneMask = 0;
    const void* address = nullptr;
};
struct Result {
    float d[4] = {};
    std::uint32_t r[4] = {};
    float f = 0;
};

enum class Kind { None, Shfl, MmaF16, MmaBf16, Ldmatrix, LdmatrixTrans };

struct CopyRequest {
    void* dst;
    const void* src;
    std::size_t bytes, total;
    unsigned group;
};

struct Thread {
    ucontext_t context{};
    Dim3 index;
    unsigned linear = 0;
    bool started = false, done = false;
    enum class Wait { Running, Barrier, Warp } wait = Wait::Running;
    unsigned barrierGeneration = 0, warpGeneration = 0;
    std::vector<CopyRequest> copies; // cp.async in flight
    unsigned committedGroups = 0;
};

struct Warp {
    unsigned lanes = 0, deposited = 0, generation = 0;
    Kind kind = Kind::None;
    std::array<Deposit, 32> in{};
    std::array<Result, 32> out{};
};

// The block being run (one at a time, on the calling thread).
inline Block*& currentBlock() {
    static thread_local Block* block = nullptr;
    return block;
}
// When cp.async's copies land: at the latest (their wait: a kernel that reads before waiting sees
// stale data) or at the earliest (as issued: a kernel that refills a buffer other warps still read,
// without a barrier between, overwrites it under them). The tests run kernels both ways.
enum class CopyTiming { AtWait, AtIssue };
inline CopyTiming& copyTiming() {
    static CopyTiming timing = CopyTiming::AtWait;
    return timing;
}

inline Broken& brokenLayout() {
    static Broken broken = Broken::None;
    return broken;
}
// Breaks one fragment layout on purpose, for the harness's own negative tests.
inline void setBrokenLayout(Broken b) {
    brokenLayout() = b;
}

inline float toFloat(std::uint16_t bits, Kind kind) {
    if (kind == Kind::MmaBf16) {
        const std::uint32_t u = std::uint32_t(bits) << 16;
        float f;
        std::memcpy(&f, &u, 4);
        return f;
    }
    __half_raw raw;
    raw.x = bits;
    return __half2float(__half(raw));
}

class Block {
public:
    Block(Dim3 grid, Dim3 blockIdx, Dim3 blockDim, std::size_t sharedBytes,
          std::size_t stackBytes = 96 * 1024)
        : gridDim(grid), blockIdx(blockIdx), blockDim(blockDim), m_threads(blockDim.count()),
          m_warps((blockDim.count() + 31) / 32), m_shared(sharedBytes + 16), m_stacks(blockDim.count()) {
        for (unsigned i = 0; i < m_threads.size(); ++i) {
            Thread& t = m_threads[i];
            t.linear = i;
            t.index = {i % blockDim.x, (i / blockDim.x) % blockDim.y, i / (blockDim.x * blockDim.y)};
            m_warps[i / 32].lanes++;
            m_stacks[i].reset(new char[stackBytes]);
            getcontext(&t.context);
            t.context.uc_stack.ss_sp = m_stacks[i].get();
            t.context.uc_stack.ss_size = stackBytes;
            t.context.uc_link = &m_scheduler;
            makecontext(&t.context, reinterpret_cast<void (*)()>(&Block::trampoline), 0);
        }
    }

    const Dim3 gridDim, blockIdx, blockDim;

    // Runs body once per thread of the block until all return.
    void run(const std::function<void()>& body) {
        m_body = &body;
        Block* previous = currentBlock();
        currentBlock() = this;
        try {
            schedule();
        } catch (...) {
            currentBlock() = previous;
            throw;
        }
        currentBlock() = previous;
        if (!m_error.empty()) throw std::runtime_error(m_error);
    }

    Thread& self() { return m_threads[m_current]; }
    unsigned lane() { return self().linear % 32; }
    void* dynamicShared() { return m_shared.data(); }

    void syncthreads() {
        Thread& t = self();
        t.wait = Thread::Wait::Barrier;
        t.barrierGeneration = m_barrierGeneration;
        yield();
    }

    // A warp-wide operation: every lane deposits; the last computes all the lanes' results.
    Result collective(Kind kind, const Deposit& d) {
        Thread& t = self();
        Warp& w = m_warps[t.linear / 32];
        if (w.deposited == 0)
            w.kind = kind;
        else if (w.kind != kind)
            fail("lanes of one warp reached different warp-wide operations");
        const unsigned lane = t.linear % 32;
        w.in[lane] = d;
        t.warpGeneration = w.generation;
        if (++w.deposited == w.lanes) {
            complete(w);
            w.deposited = 0;
            ++w.generation;
        } else {
            t.wait = Thread::Wait::Warp;
            yield();
        }
        return w.out[lane];
    }

    // cp.async: bytes from src (0: none), the rest of total zeros; lands at its group's wait.
    void asyncCopy(void* dst, const void* src, std::size_t bytes, std::size_t total) {
        Thread& t = self();
        if (copyTiming() == CopyTiming::AtIssue) {
            std::memcpy(dst, src, bytes);
            std::memset(static_cast<char*>(dst) + bytes, 0, total - bytes);
            return;
        }
        t.copies.push_back({dst, src, bytes, total, t.committedGroups});
    }
    void commitGroup() { ++self().committedGroups; }
    // Lands every copy but those of the newest `pending` committed groups (and any not yet committed).
    void waitGroup(unsigned pending) {
        Thread& t = self();
        std::vector<CopyRequest> keep;
        for (const CopyRequest& c : t.copies) {
            if (c.group + pending < t.committedGroups) {
                std::memcpy(c.dst, c.src, c.bytes);
                std::memset(static_cast<char*>(c.dst) + c.bytes, 0, c.total - c.bytes);
            } else
                keep.push_back(c);
        }
        t.copies = std::move(keep);
    }

private:
    static void trampoline() {
        Block* b = currentBlock();
        (*b->m_body)();
        b->self().done = true;
    }

    void yield() { swapcontext(&self().context, &m_scheduler); }

    // From inside a fiber: nothing may unwind across its stack, so the thread stops here for good and
    // the scheduler, back on the caller's stack, reports the error.
    void fail(const std::string& message) {
        if (m_error.empty()) m_error = message;
        self().done = true;
        yield();
    }

    bool runnable(const Thread& t) const {
        if (t.done) return false;
        switch (t.wait) {
        case Thread::Wait::Running:
            return true;
        case Thread::Wait::Barrier:
            return t.barrierGeneration != m_barrierGeneration;
        case Thread::Wait::Warp:
            return m_warps[t.linear / 32].generation != t.warpGeneration;
        }
        return false;
    }

    void schedule() {
        while (true) {
            bool any = false, progressed = false;
            unsigned atBarrier = 0, alive = 0;
            for (unsigned i = 0; i < m_threads.size(); ++i) {
                Thread& t = m_threads[i];
                if (t.done) continue;
                ++alive;
                if (t.wait == Thread::Wait::Barrier && t.barrierGeneration == m_barrierGeneration)
                    ++atBarrier;
            }
            if (alive == 0) return;
            // Everyone is at the barrier: it opens. Threads that returned never reach it (the CUDA
            // guide: a barrier in code not all of the block's threads run is undefined).
            if (atBarrier > 0 && atBarrier == alive) {
                if (alive < m_threads.size())
                    throw std::runtime_error("__syncthreads() reached by " + std::to_string(atBarrier) +
                                             " of " + std::to_string(m_threads.size()) +
                                             " threads: the others returned before it");
                ++m_barrierGeneration;
            }
            // Warp by warp: each warp runs as far as it can (until its lanes wait at a barrier) before
            // the next one moves, so warps drift as far apart as CUDA lets them, and a missing barrier
            // shows as one warp overwriting what another has yet to read.
            for (unsigned w = 0; w < m_warps.size(); ++w) {
                const unsigned first = w * 32,
                               last = std::min<unsigned>(first + 32, unsigned(m_threads.size()));
                for (bool moved = true; moved;) {
                    moved = false;
                    for (unsigned i = first; i < last; ++i) {
                        Thread& t = m_threads[i];
                        if (!runnable(t)) continue;
                        any = moved = true;
                        m_current = i;
                        t.wait = Thread::Wait::Running;
                        swapcontext(&m_scheduler, &t.context);
                        progressed = true;
                        if (!m_error.empty()) throw std::runtime_error(m_error);
                    }
                }
            }
            if (!any && !progressed) {
                if (atBarrier > 0 && atBarrier < alive)
                    throw std::runtime_error("__syncthreads() reached by " + std::to_string(atBarrier) +
                                             " of " + std::to_string(alive) +
                                             " threads: the others exited or wait elsewhere");
                throw std::runtime_error("the block's threads wait on each other (a warp-wide operation some "
                                         "lanes never reach)");
            }
        }
    }

    void complete(Warp& w) {
        switch (w.kind) {
        case Kind::Shfl:
            for (unsigned l = 0; l < w.lanes; ++l)
                w.out[l].f = w.in[(l ^ unsigned(w.in[l].laneMask)) % w.lanes].f;
            break;
        case Kind::MmaF16:
        case Kind::MmaBf16:
            mma(w);
            break;
        case Kind::Ldmatrix:
        case Kind::LdmatrixTrans:
            ldmatrix(w, w.kind == Kind::LdmatrixTrans);
            break;
        case Kind::None:
            break;
        }
    }

    // mma.sync.m16n8k16.row.col, f32 += f16/bf16 · f16/bf16 (PTX ISA: "Matrix Fragments for
    // mma.m16n8k16 with floating point type"): lane l, group g = l/4, t = l%4. A (16×16): a0 holds
    // (g, 2t) and (g, 2t+1), a1 (g+8, …), a2 (g, 2t+8 …), a3 (g+8, 2t+8 …). B (16×8): b0 holds
    // (2t, g) and (2t+1, g), b1 (2t+8, g) and (2t+9, g). C/D (16×8): c0 (g, 2t), c1 (g, 2t+1),
    // c2 (g+8, 2t), c3 (g+8, 2t+1). In each 32-bit register the first element is the low half.
    void mma(Warp& w) {
        float a[16][16], b[16][8], c[16][8];
        const bool brokenA = brokenLayout() == Broken::MmaA;
        for (unsigned l = 0; l < 32; ++l) {
            const unsigned g = l / 4, t = l % 4;
            const Deposit& d = w.in[l];
            auto lo = [&](std::uint32_t r) { return toFloat(std::uint16_t(r & 0xFFFF), w.kind); };
            auto hi = [&](std::uint32_t r) { return toFloat(std::uint16_t(r >> 16), w.kind); };
            const std::uint32_t a1 = brokenA ? d.a[2] : d.a[1], a2 = brokenA ? d.a[1] : d.a[2];
            a[g][2 * t] = lo(d.a[0]);
            a[g][2 * t + 1] = hi(d.a[0]);
            a[g + 8][2 * t] = lo(a1);
            a[g + 8][2 * t + 1] = hi(a1);
            a[g][2 * t + 8] = lo(a2);
            a[g][2 * t + 9] = hi(a2);
            a[g + 8][2 * t + 8] = lo(d.a[3]);
            a[g + 8][2 * t + 9] = hi(d.a[3]);
            b[2 * t][g] = lo(d.b[0]);
            b[2 * t + 1][g] = hi(d.b[0]);
            b[2 * t + 8][g] = lo(d.b[1]);
            b[2 * t + 9][g] = hi(d.b[1]);
            c[g][2 * t] = d.c[0];
            c[g][2 * t + 1] = d.c[1];
            c[g + 8][2 * t] = d.c[2];
            c[g + 8][2 * t + 1] = d.c[3];
        }
        for (unsigned l = 0; l < 32; ++l) {
            const unsigned g = l / 4, t = l % 4;
            const unsigned rows[4] = {g, g, g + 8, g + 8}, cols[4] = {2 * t, 2 * t + 1, 2 * t, 2 * t + 1};
            for (int e = 0; e < 4; ++e) {
                float sum = c[rows[e]][cols[e]];
                for (int k = 0; k < 16; ++k)
                    sum += a[rows[e]][k] * b[k][cols[e]];
                w.out[l].d[e] = sum;
            }
        }
    }

    // ldmatrix.sync.aligned.m8n8.x4(.trans).shared.b16 (PTX ISA: "ldmatrix"): lanes 8i…8i+7 give the
    // addresses of matrix i's eight rows (16 bytes each). Lane l gets, in register i, the elements
    // (l/4, 2·(l%4)) and (l/4, 2·(l%4)+1) of matrix i, or with .trans those of its transpose:
    // (2·(l%4), l/4) and (2·(l%4)+1, l/4).
    void ldmatrix(Warp& w, bool trans) {
        const bool broken = trans && brokenLayout() == Broken::LdmatrixTrans;
        for (unsigned l = 0; l < 32; ++l)
            for (unsigned i = 0; i < 4; ++i) {
                const unsigned row = l / 4, col = 2 * (l % 4);
                std::uint16_t e[2];
                for (unsigned k = 0; k < 2; ++k) {
                    unsigned r = row, cc = col + k;
                    if (trans && !broken) std::swap(r, cc);
                    const auto* base = static_cast<const std::uint16_t*>(w.in[8 * i + r].address);
                    e[k] = base[cc];
                }
                w.out[l].r[i] = std::uint32_t(e[0]) | std::uint32_t(e[1]) << 16;
            }
    }

    ucontext_t m_scheduler{};
    std::vector<Thread> m_threads;
    std::vector<Warp> m_warps;
    std::vector<unsigned char> m_shared;
    std::vector<std::unique_ptr<char[]>> m_stacks;
    const std::function<void()>* m_body = nullptr;
    unsigned m_current = 0, m_barrierGeneration = 0;
    std::string m_error;
};

inline Block& block() {
    return *currentBlock();
}

// kernel<<<grid, threads, sharedBytes>>>(…): the blocks one after another, each on fibers.
inline void launch(Dim3 grid, Dim3 threads, std::size_t sharedBytes, const std::function<void()>& body) {
    for (unsigned z = 0; z < grid.z; ++z)
        for (unsigned y = 0; y < grid.y; ++y)
            for (unsigned x = 0; x < grid.x; ++x) {
                Block b(grid, {x, y, z}, threads, sharedBytes);
                b.run(body);
            }
}

// The built-ins, as the kernels call them.
inline float shflXor(float v, int laneMask) {
    Deposit d;
    d.f = v;
    d.laneMask = laneMask;
    return block().collective(Kind::Shfl, d).f;
}

template <class T> inline void mma(float c[4], const std::uint32_t a[4], std::uint32_t b0, std::uint32_t b1) {
    Deposit d;
    std::copy(a, a + 4, d.a);
    d.b[0] = b0;
    d.b[1] = b1;
    std::copy(c, c + 4, d.c);
    const Result r = block().collective(std::is_same_v<T, __nv_bfloat16> ? Kind::MmaBf16 : Kind::MmaF16, d);
    std::copy(r.d, r.d + 4, c);
}

inline void ldmatrixX4(std::uint32_t out[4], const void* rowAddress, bool trans) {
    Deposit d;
    d.address = rowAddress;
    const Result r = block().collective(trans ? Kind::LdmatrixTrans : Kind::Ldmatrix, d);
    std::copy(r.r, r.r + 4, out);
}

} // namespace attnscope_emu

// The CUDA surface the kernels use (the toolkit's headers define some of these for host compilers).
#undef __global__
#undef __device__
#undef __forceinline__
#undef __launch_bounds__
#undef __align__
#undef __shared__
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __align__(n) alignas(n)
#define threadIdx (attnscope_emu::block().self().index)
#define blockIdx (attnscope_emu::block().blockIdx)
#define blockDim (attnscope_emu::block().blockDim)
#define gridDim (attnscope_emu::block().gridDim)
#define __syncthreads() attnscope_emu::block().syncthreads()
#define __shfl_xor_sync(mask, v, laneMask) attnscope_emu::shflXor((v), (laneMask))
// Blocks run one at a time: a function's static locals are the block's shared memory.
#define __shared__ static
#define ATTNSCOPE_DYNAMIC_SHARED(type, name)                                                                 \
    type* name = static_cast<type*>(attnscope_emu::block().dynamicShared())
using std::max;
using std::min;
