// SPDX-License-Identifier: MIT
#include "core/model/block_arena.h"

#include <cstdlib>
#include <new>
#include <string_view>
#include <sys/mman.h>

namespace attnscope {

namespace {
// Below this, malloc's pools are cheaper than a mapping of our own.
constexpr std::size_t kMapThreshold = 1u << 20;
} // namespace

BigBuffer::BigBuffer(std::size_t bytes) : m_size(bytes) {
    if (bytes == 0) return;
    if (bytes >= kMapThreshold) {
        void* p =
            mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
        if (p != MAP_FAILED) {
            m_data = static_cast<char*>(p);
            m_mapped = true;
            return;
        }
    }
    m_data = static_cast<char*>(std::calloc(bytes, 1));
    if (!m_data) throw std::bad_alloc();
}

BigBuffer::~BigBuffer() {
    release();
}

BigBuffer::BigBuffer(BigBuffer&& other) noexcept
    : m_data(other.m_data), m_size(other.m_size), m_mapped(other.m_mapped) {
    other.m_data = nullptr;
    other.m_size = 0;
}

BigBuffer& BigBuffer::operator=(BigBuffer&& other) noexcept {
    if (this != &other) {
        release();
        m_data = other.m_data;
        m_size = other.m_size;
        m_mapped = other.m_mapped;
        other.m_data = nullptr;
        other.m_size = 0;
    }
    return *this;
}

void BigBuffer::release() {
    if (!m_data) return;
    if (m_mapped)
        munmap(m_data, m_size);
    else
        std::free(m_data);
    m_data = nullptr;
    m_size = 0;
}

void* allocateBig(std::size_t bytes) {
    if (bytes >= kMapThreshold) {
        void* p =
            mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
        if (p != MAP_FAILED) return p;
        throw std::bad_alloc();
    }
    void* p = std::malloc(bytes ? bytes : 1);
    if (!p) throw std::bad_alloc();
    return p;
}

void releaseBig(void* p, std::size_t bytes) {
    if (!p) return;
    if (bytes >= kMapThreshold)
        munmap(p, bytes);
    else
        std::free(p);
}

char* BlockArena::allocate(std::size_t n) {
    // An oversized request gets a buffer of its own; the current block stays open for small ones.
    if (n > m_blockBytes / 4) {
        m_large.emplace_back(n);
        return m_large.back().data();
    }
    if (m_blocks.empty() || m_used + n > m_blocks.back().size()) {
        m_blocks.emplace_back(m_blockBytes);
        m_used = 0;
    }
    char* p = m_blocks.back().data() + m_used;
    m_used += n;
    return p;
}

std::string_view BlockArena::store(std::string_view bytes) {
    char* p = allocate(bytes.size());
    std::memcpy(p, bytes.data(), bytes.size());
    return {p, bytes.size()};
}

void BlockArena::adopt(BlockArena&& other) {
    for (auto* blocks : {&other.m_blocks, &other.m_large})
        for (BigBuffer& b : *blocks)
            m_large.push_back(std::move(b));
    other.m_blocks.clear();
    other.m_large.clear();
    other.m_used = 0;
}

std::size_t BlockArena::bytesReserved() const {
    std::size_t total = 0;
    for (const auto& b : m_blocks)
        total += b.size();
    for (const auto& b : m_large)
        total += b.size();
    return total;
}

} // namespace attnscope
