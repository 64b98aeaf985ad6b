// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/block_arena.h"

#include <cstddef>
#include <iterator>
#include <vector>

namespace attnscope {

// A growing array of trivially copyable T in fixed blocks of 2^Bits elements: appending never moves
// what is already there (a vector copies everything at each doubling, into fresh memory the kernel
// must zero first), and an index finds its element with a shift and a mask.
template <class T, unsigned Bits = 17> class BlockVector {
    static constexpr std::size_t kBlock = std::size_t(1) << Bits, kMask = kBlock - 1;

public:
    template <class V, class Owner> class Iterator {
    public:
        using iterator_category = std::forward_iterator_tag;
        using value_type = T;
        using difference_type = std::ptrdiff_t;
        using pointer = V*;
        using reference = V&;
        Iterator(Owner* owner, std::size_t i) : m_owner(owner), m_i(i) {}
        V& operator*() const { return (*m_owner)[m_i]; }
        Iterator& operator++() {
            ++m_i;
            return *this;
        }
        bool operator==(const Iterator& other) const { return m_i == other.m_i; }

    private:
        Owner* m_owner;
        std::size_t m_i;
    };

    void push_back(const T& value) {
        if (m_size >> Bits == m_blocks.size()) m_blocks.emplace_back(kBlock);
        (*this)[m_size++] = value;
    }
    T& operator[](std::size_t i) { return m_blocks[i >> Bits][i & kMask]; }
    const T& operator[](std::size_t i) const { return m_blocks[i >> Bits][i & kMask]; }
    T& back() { return (*this)[m_size - 1]; }
    std::size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    void clear() {
        m_blocks.clear();
        m_size = 0;
    }

    Iterator<T, BlockVector> begin() { return {this, 0}; }
    Iterator<T, BlockVector> end() { return {this, m_size}; }
    Iterator<const T, const BlockVector> begin() const { return {this, 0}; }
    Iterator<const T, const BlockVector> end() const { return {this, m_size}; }

private:
    std::vector<PodArray<T>> m_blocks;
    std::size_t m_size = 0;
};

} // namespace attnscope
