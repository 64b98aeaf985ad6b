// SPDX-License-Identifier: MIT
#pragma once

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
    explicit BigBuffer(std::size_t bytes);
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

// A fixed-size array of trivially copyable T in a BigBuffer.
template <class T> class PodArray {
public:
    PodArray() = default;
    explicit PodArray(std::size_t n) : m_buffer(n * sizeof(T)), m_size(n) {}

    T* data() { return reinterpret_cast<T*>(m_buffer.data()); }
    const T* data() const { return reinterpret_cast<const T*>(m_buffer.data()); }
    std::size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    T& operator[](std::size_t i) { return data()[i]; }
    const T& operator[](std::size_t i) const { return data()[i]; }
    const T* begin() const { return data(); }
    const T* end() const { return data() + m_size; }
    std::span<const T> span() const { return {data(), m_size}; }
    std::size_t bytes() const { return m_buffer.size(); }

private:
    BigBuffer m_buffer;
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
