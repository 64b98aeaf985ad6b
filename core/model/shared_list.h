// SPDX-License-Identifier: MIT
#pragma once

#include <atomic>
#include <cstddef>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

namespace attnscope {

// A list whose copies share its memory until one of them is written: the elements are held in chunks,
// and writing an element (or appending to a chunk) that another copy still holds copies that chunk
// alone first. A grown document's snapshot and the join of the next step are two copies of one list: the
// join writes the chunks that the step's elements go into, and shares every other with the snapshot on
// show, where a vector had to be copied whole (persistent vectors, as Clojure's and immer's).
//
// The first chunk is any size (a list made whole, or grown while no copy holds it); after it the chunks
// hold 2^Bits elements each, so an index finds its element with a compare, a shift and a mask. Reading a
// copy on one thread while another copy is written on another is safe; one copy is written by one thread.
template <class T, unsigned Bits = 11> class SharedList {
    static constexpr std::size_t kChunk = std::size_t(1) << Bits, kMask = kChunk - 1;
    using Chunk = std::vector<T>;

public:
    template <class V, class Owner> class Iterator {
    public:
        using iterator_category = std::random_access_iterator_tag;
        using value_type = T;
        using difference_type = std::ptrdiff_t;
        using pointer = V*;
        using reference = V&;
        Iterator() = default;
        Iterator(Owner* owner, std::size_t i) : m_owner(owner), m_i(i) {}
        V& operator*() const { return (*m_owner)[m_i]; }
        V* operator->() const { return &(*m_owner)[m_i]; }
        V& operator[](difference_type n) const { return (*m_owner)[std::size_t(difference_type(m_i) + n)]; }
        Iterator& operator++() { return ++m_i, *this; }
        Iterator& operator--() { return --m_i, *this; }
        Iterator operator++(int) { return {m_owner, m_i++}; }
        Iterator operator--(int) { return {m_owner, m_i--}; }
        Iterator& operator+=(difference_type n) { return m_i = std::size_t(difference_type(m_i) + n), *this; }
        Iterator& operator-=(difference_type n) { return m_i = std::size_t(difference_type(m_i) - n), *this; }
        friend Iterator operator+(Iterator it, difference_type n) { return it += n; }
        friend Iterator operator+(difference_type n, Iterator it) { return it += n; }
        friend Iterator operator-(Iterator it, difference_type n) { return it -= n; }
        friend difference_type operator-(const Iterator& a, const Iterator& b) {
            return difference_type(a.m_i) - difference_type(b.m_i);
        }
        friend bool operator==(const Iterator& a, const Iterator& b) { return a.m_i == b.m_i; }
        friend bool operator!=(const Iterator& a, const Iterator& b) { return a.m_i != b.m_i; }
        friend bool operator<(const Iterator& a, const Iterator& b) { return a.m_i < b.m_i; }
        friend bool operator>(const Iterator& a, const Iterator& b) { return a.m_i > b.m_i; }
        friend bool operator<=(const Iterator& a, const Iterator& b) { return a.m_i <= b.m_i; }
        friend bool operator>=(const Iterator& a, const Iterator& b) { return a.m_i >= b.m_i; }

    private:
        Owner* m_owner = nullptr;
        std::size_t m_i = 0;
    };
    using value_type = T;
    using size_type = std::size_t;
    using iterator = Iterator<T, SharedList>;
    using const_iterator = Iterator<const T, const SharedList>;

    SharedList() = default;
    SharedList(std::vector<T> elements) { // NOLINT: made whole, as a vector is
        if (!elements.empty()) adopt(std::move(elements));
    }
    SharedList(std::initializer_list<T> elements) : SharedList(std::vector<T>(elements)) {}
    SharedList(const SharedList&) = default;
    SharedList& operator=(const SharedList&) = default;
    // A list moved from is empty.
    SharedList(SharedList&& other) noexcept
        : m_chunks(std::move(other.m_chunks)), m_size(std::exchange(other.m_size, 0)),
          m_first(std::exchange(other.m_first, 0)) {
        other.m_chunks.clear();
    }
    SharedList& operator=(SharedList&& other) noexcept {
        if (this != &other) {
            m_chunks = std::move(other.m_chunks);
            other.m_chunks.clear();
            m_size = std::exchange(other.m_size, 0);
            m_first = std::exchange(other.m_first, 0);
        }
        return *this;
    }

    std::size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }

    const T& operator[](std::size_t i) const {
        if (i < m_first) return (*m_chunks[0])[i];
        const std::size_t j = i - m_first;
        return (*m_chunks[1 + (j >> Bits)])[j & kMask];
    }
    // Written: its chunk copied first when another copy of the list holds it.
    T& operator[](std::size_t i) {
        if (i < m_first) return (*own(0))[i];
        const std::size_t j = i - m_first;
        return (*own(1 + (j >> Bits)))[j & kMask];
    }
    const T& at(std::size_t i) const {
        if (i >= m_size) throw std::out_of_range("SharedList::at");
        return (*this)[i];
    }
    const T& front() const { return (*this)[0]; }
    const T& back() const { return (*this)[m_size - 1]; }
    T& front() { return (*this)[0]; }
    T& back() { return (*this)[m_size - 1]; }

    const_iterator begin() const { return {this, 0}; }
    const_iterator end() const { return {this, m_size}; }
    // Writing through these copies only the chunks written.
    iterator begin() { return {this, 0}; }
    iterator end() { return {this, m_size}; }

    template <class... Args> T& emplace_back(Args&&... args) {
        if (m_chunks.size() == 1 && m_chunks[0].use_count() == 1) { // the first chunk grows while alone
            std::atomic_thread_fence(std::memory_order_acquire);
            m_chunks[0]->resize(m_first); // what a shortened list left there goes
            m_chunks[0]->emplace_back(std::forward<Args>(args)...);
            ++m_first;
        } else {
            if (m_chunks.size() <= 1 || m_chunks.back()->size() == kChunk) {
                m_chunks.push_back(std::make_shared<Chunk>());
                m_chunks.back()->reserve(m_chunks.size() > 1 ? kChunk : 0);
            }
            own(m_chunks.size() - 1)->emplace_back(std::forward<Args>(args)...);
            if (m_chunks.size() == 1) ++m_first;
        }
        ++m_size;
        return back();
    }
    void push_back(const T& value) { emplace_back(value); }
    void push_back(T&& value) { emplace_back(std::move(value)); }

    void clear() {
        m_chunks.clear();
        m_size = m_first = 0;
    }
    // Room for n in the first chunk, while it is the only one and no copy holds it.
    void reserve(std::size_t n) {
        if (m_chunks.empty()) m_chunks.push_back(std::make_shared<Chunk>());
        if (m_chunks.size() == 1) own(0)->reserve(n);
    }
    void resize(std::size_t n) {
        if (n == m_size) return;
        if (m_chunks.size() <= 1) {
            if (n < m_size) { // what is left beyond goes when the chunk is next written alone
                m_size = m_first = n;
                return;
            }
            if (m_chunks.empty()) m_chunks.push_back(std::make_shared<Chunk>());
            Chunk* first = own(0);
            first->resize(m_first);
            first->resize(n);
            m_size = m_first = n;
            return;
        }
        while (m_size > n) { // whole chunks let go, then the last shortened
            if (m_chunks.size() == 1) {
                m_size = m_first = n;
                break;
            }
            const std::size_t inLast = m_chunks.back()->size();
            if (m_size - inLast >= n) {
                m_chunks.pop_back();
                m_size -= inLast;
            } else {
                own(m_chunks.size() - 1)->resize(inLast - (m_size - n));
                m_size = n;
            }
        }
        while (m_size < n)
            emplace_back();
    }
    // The elements in one piece: a list made whole, or grown alone (null when they are in several).
    T* data() { return m_chunks.size() == 1 ? own(0)->data() : nullptr; }

    // Drops the elements pred holds for (the list made whole again): the erase_if of a vector.
    template <class Pred> friend std::size_t erase_if(SharedList& list, Pred pred) {
        std::vector<T> kept;
        kept.reserve(list.size());
        for (const T& e : std::as_const(list))
            if (!pred(e)) kept.push_back(e);
        const std::size_t erased = list.size() - kept.size();
        list = SharedList(std::move(kept));
        return erased;
    }

    friend bool operator==(const SharedList& a, const SharedList& b) {
        if (a.size() != b.size()) return false;
        for (std::size_t i = 0; i < a.size(); ++i)
            if (!(a[i] == b[i])) return false;
        return true;
    }

    // The chunks of this list that `other` holds too (the memory they share).
    std::size_t sharedChunks(const SharedList& other) const {
        std::size_t n = 0;
        for (const auto& c : m_chunks)
            for (const auto& o : other.m_chunks)
                n += c == o;
        return n;
    }
    std::size_t chunks() const { return m_chunks.size(); }

private:
    void adopt(std::vector<T> elements) {
        m_size = m_first = elements.size();
        m_chunks.push_back(std::make_shared<Chunk>(std::move(elements)));
    }
    // The chunk, copied first when another copy holds it.
    Chunk* own(std::size_t c) {
        std::shared_ptr<Chunk>& chunk = m_chunks[c];
        if (chunk.use_count() > 1) {
            auto copy = std::make_shared<Chunk>();
            const std::size_t held = c == 0 ? m_first : chunk->size(); // a shortened first chunk's
            copy->reserve(c == 0 ? held : kChunk);
            copy->assign(chunk->begin(), chunk->begin() + std::ptrdiff_t(held));
            chunk = std::move(copy);
        } else {
            // The last other holder's reads (another thread's) come before these writes.
            std::atomic_thread_fence(std::memory_order_acquire);
        }
        return chunk.get();
    }

    std::vector<std::shared_ptr<Chunk>> m_chunks;
    std::size_t m_size = 0;
    std::size_t m_first = 0; // the first chunk's elements
};

} // namespace attnscope
