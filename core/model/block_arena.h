// SPDX-License-Identifier: MIT
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

namespace attnscope {

// Large zero-initialised memory from the OS, in huge pages where the kernel gives them and pre-faulted
// where it does not (block_arena.cpp says why), so the model's big arrays and byte stores take their
// memory from here instead of growing vectors.
class BigBuffer {
public:
    BigBuffer() = default;
    // lazy: pages are faulted in when first touched, never up front (memory kept for growth that a
    // growing array may never reach costs nothing until it does).
    explicit BigBuffer(std::size_t bytes, bool lazy = false);
    ~BigBuffer();
    BigBuffer(BigBuffer&& other) noexcept;
    BigBuffer& operator=(BigBuffer&& other) noexcept;
    BigBuffer(const BigBuffer&) = delete;
    BigBuffer& operator=(const BigBuffer&) = delete;

    char* data() const { return m_data; }
    std::size_t size() const { return m_size; }

private:
    void release();
    char* m_data = nullptr;
    std::size_t m_size = 0;
    bool m_mapped = false;
};

// An array of trivially copyable T in a BigBuffer. Copies share the memory (a copy is cheap and
// writing through one is seen by the others), and an array can be extended without moving what it
// holds: a growing trace's snapshots each see their own prefix of the same columns while later
// events are appended past their ends (trace_append.h).
template <class T> class PodArray {
public:
    PodArray() = default;
    explicit PodArray(std::size_t n) : m_size(n) {
        if (n == 0) return;
        m_storage = std::make_shared<Storage>(n * sizeof(T), false);
        m_storage->used = n;
        m_data = reinterpret_cast<T*>(m_storage->buffer.data());
    }

    T* data() { return m_data; }
    const T* data() const { return m_data; }
    std::size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    T& operator[](std::size_t i) { return m_data[i]; }
    const T& operator[](std::size_t i) const { return m_data[i]; }
    const T* begin() const { return m_data; }
    const T* end() const { return m_data + m_size; }
    std::span<const T> span() const { return {m_data, m_size}; }
    std::size_t bytes() const { return m_size * sizeof(T); }
    // Elements its memory holds: how far extended() may go in place.
    std::size_t capacity() const { return m_storage ? m_storage->buffer.size() / sizeof(T) : 0; }

    // An array of newSize elements whose first size() are these; the rest are zero. When this is the
    // longest array made on its memory so far and the memory has room, the two share it and nothing is
    // copied (this one, and every shorter copy, reads on unchanged: nothing before newSize is written);
    // otherwise the elements are copied into new memory with room for twice as many (room not written is
    // not resident: a growing trace's columns are copied, and their pages faulted in, once each time it
    // doubles). One writer at a time.
    PodArray extended(std::size_t newSize) const {
        if (newSize <= m_size) return *this;
        PodArray out;
        out.m_size = newSize;
        if (m_storage && m_storage->used == m_size && m_storage->buffer.size() >= newSize * sizeof(T)) {
            out.m_storage = m_storage;
            out.m_data = m_data;
        } else {
            const std::size_t room = std::max(newSize, 2 * m_size) + 1024;
            out.m_storage = std::make_shared<Storage>(room * sizeof(T), true);
            out.m_data = reinterpret_cast<T*>(out.m_storage->buffer.data());
            if (m_size) std::memcpy(static_cast<void*>(out.m_data), m_data, m_size * sizeof(T));
        }
        out.m_storage->used = newSize;
        return out;
    }

private:
    struct Storage {
        Storage(std::size_t bytes, bool lazy) : buffer(bytes, lazy) {}
        BigBuffer buffer;
        std::size_t used = 0; // elements handed out on it: only past these may an extension write
    };
    std::shared_ptr<Storage> m_storage;
    T* m_data = nullptr;
    std::size_t m_size = 0;
};

// An allocator for std::vector whose large buffers come pre-faulted from the OS (BigBuffer's
// reasoning): the builder's temporary arrays are tens of MB and are written once, front to back.
void* allocateBig(std::size_t bytes);
void releaseBig(void* p, std::size_t bytes);

template <class T> struct BigAllocator {
    using value_type = T;
    BigAllocator() = default;
    template <class U> BigAllocator(const BigAllocator<U>&) {}
    T* allocate(std::size_t n) { return static_cast<T*>(allocateBig(n * sizeof(T))); }
    void deallocate(T* p, std::size_t n) { releaseBig(p, n * sizeof(T)); }
    template <class U> bool operator==(const BigAllocator<U>&) const { return true; }
};

template <class T> using BigVector = std::vector<T, BigAllocator<T>>;

// Append-only byte storage in big blocks; returned pointers stay valid for the arena's lifetime.
class BlockArena {
public:
    explicit BlockArena(std::size_t blockBytes = 8u << 20) : m_blockBytes(blockBytes) {}

    // Returns storage for n bytes, never moved afterwards.
    char* allocate(std::size_t n);
    std::string_view store(std::string_view bytes);
    std::size_t bytesReserved() const;
    // Takes over other's blocks; what was allocated there stays valid and in place.
    void adopt(BlockArena&& other);

private:
    std::size_t m_blockBytes;
    std::vector<BigBuffer> m_blocks;
    std::vector<BigBuffer> m_large;
    std::size_t m_used = 0; // bytes used in the last block
};

} // namespace attnscope
