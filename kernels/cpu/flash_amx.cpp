// SPDX-License-Identifier: MIT
// The fused CPU kernel for bf16 inputs on AMX, the tile matrix unit of Intel's Sapphire Rapids and newer
// (built with -mamx-tile -mamx-bf16 and AVX-512; chosen at run time only where the CPU has it and the
// OS lets the process use it). Both products run on the tiles in bf16 with fp32 accumulation, as
// FlashAttention does on tensor cores; the online softmax runs on AVX-512 in fp32, and P is rounded to
// bf16 for P·V.
//
// A tile product C[16×16] += A[16×32] · B[32×16] wants B's rows in pairs (the "VNNI" layout): row r
// of the tile holds, for each of its 16 columns, the two elements of rows 2r and 2r+1. K and V are
// put in that layout once per K/V head (packAmxKeys, packAmxValues): for Sᵀ's B operand the pairs
// run along the head dimension, for P·V's along the keys. Per block of 64 query rows and 128 keys:
//   S = Q·Kᵀ      2 × 2 tiles of fp32 accumulators at a time, dim/32 products each;
//   softmax       per row on AVX-512: scale, causal mask, running maximum (moved lazily) and sum,
//                 P in bf16;
//   O += P·V      2 × 2 tiles of O loaded, 2 products each, stored back.
// The naive attention's two products in bf16 (amxScoresGemm, amxOutputGemm) are here too: the same
// tiles and packings over whole rows of scores.
#include "flash_rows.h"
#include "simd.h"

#include <immintrin.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace attnscope::kernels {

namespace {

constexpr int BR = 64;          // query rows per block: 4 row tiles
constexpr int KB = 128;         // keys per block: 8 key tiles
constexpr int kTileElems = 512; // bf16 elements in a 16 × 64-byte tile
constexpr float kLazyShift = 8; // a row's shift moves when its maximum passes it by more (powers of 2)
using Vec = Avx512;

struct alignas(64) TileConfig {
    std::uint8_t palette = 1;
    std::uint8_t startRow = 0;
    std::uint8_t reserved[14] = {};
    std::uint16_t colsb[16] = {};
    std::uint8_t rows[16] = {};
};

// 2^x for finite x ≤ 2^kLazyShift: Vec::exp2 without its guard against −∞.
Vec::T exp2Finite(Vec::T x) {
    const Vec::T n = _mm512_roundscale_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    return _mm512_scalef_ps(exp2Fraction<Vec>(Vec::sub(x, n)), n);
}

// Eight tiles of 16 rows × 64 bytes: 0–3 accumulators, 4–5 A operands, 6–7 B operands.
void configureTiles() {
    TileConfig c;
    for (int t = 0; t < 8; ++t) {
        c.rows[t] = 16;
        c.colsb[t] = 64;
    }
    _tile_loadconfig(&c);
}

// One step of a 2 × 2 block of accumulators (tiles 0–3): two row tiles of A from a (rows 16 apart,
// aStride bytes per row) into 4 and 5, two packed tiles of B from b and b + nextColumns into 6 and 7,
// and the four products.
inline void tileStep(const std::uint16_t* a, int aStride, const std::uint16_t* b, std::size_t nextColumns) {
    _tile_loadd(4, a, aStride);
    _tile_loadd(5, a + 8 * std::size_t(aStride), aStride);
    _tile_loadd(6, b, 64);
    _tile_loadd(7, b + nextColumns, 64);
    _tile_dpbf16ps(0, 4, 6);
    _tile_dpbf16ps(1, 4, 7);
    _tile_dpbf16ps(2, 5, 6);
    _tile_dpbf16ps(3, 5, 7);
}

} // namespace

std::size_t amxPackedElements(std::size_t keys, std::size_t dim) {
    return (keys + KB - 1) / KB * KB * dim;
}

void packAmxKeys(const float* k, std::size_t keys, std::size_t dim, std::uint16_t* out) {
    // Tile (key tile g, dim chunk dc) at (g·dim/32 + dc)·512; element (r, n, e) is
    // K[g·16 + n][dc·32 + 2r + e], at r·32 + n·2 + e: as 32-bit pairs, pair r of key n at
    // r·16 + n. A key's 32 values of a chunk are 16 pairs, scattered down the tile's rows.
    const std::size_t chunks = dim / 32, padded = (keys + KB - 1) / KB * KB;
    const __m512i rowsOfPairs = _mm512_mullo_epi32(
        _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15), _mm512_set1_epi32(16));
    for (std::size_t key = 0; key < padded; ++key)
        for (std::size_t dc = 0; dc < chunks; ++dc) {
            auto* tile = reinterpret_cast<int*>(out + (key / 16 * chunks + dc) * kTileElems) + key % 16;
            __m512i pairs = _mm512_setzero_si512();
            if (key < keys) {
                const float* src = k + key * dim + dc * 32;
                pairs = (__m512i)_mm512_cvtne2ps_pbh(_mm512_loadu_ps(src + 16), _mm512_loadu_ps(src));
            }
            _mm512_i32scatter_epi32(tile, rowsOfPairs, pairs, 4);
        }
}

void packAmxValues(const float* v, std::size_t keys, std::size_t dim, std::uint16_t* out) {
    // Tile (key chunk kc, column group dg) at (kc·dim/16 + dg)·512; element (r, n, e)
    // is V[kc·32 + 2r + e][dg·16 + n], at r·32 + n·2 + e: row r of the tile is keys 2r and 2r+1
    // interleaved, 16 columns of each.
    const std::size_t groups = dim / 16, padded = (keys + KB - 1) / KB * KB;
    for (std::size_t key = 0; key < padded; key += 2)
        for (std::size_t dg = 0; dg < groups; ++dg) {
            std::uint16_t* row = out + (key / 32 * groups + dg) * kTileElems + (key % 32) / 2 * 32;
            auto half = [&](std::size_t at) {
                if (at >= keys) return _mm512_setzero_si512();
                const __m256bh h = _mm512_cvtneps_pbh(_mm512_loadu_ps(v + at * dim + dg * 16));
                return _mm512_cvtepu16_epi32((__m256i)h);
            };
            _mm512_storeu_si512(row, _mm512_or_si512(half(key), _mm512_slli_epi32(half(key + 1), 16)));
        }
}

// Long on purpose: the block loop of the kernel, its three steps in order (see the top of the file).
void flashRowsAmx(const FlashRows& in) {
    const std::size_t dim = in.dim, chunks = dim / 32;
    thread_local std::vector<std::uint16_t> qb, pb;
    thread_local std::vector<float> s, o;
    qb.assign(std::size_t(BR) * dim, 0);
    pb.assign(std::size_t(BR) * KB, 0);
    s.resize(std::size_t(BR) * KB);
    o.resize(std::size_t(BR) * dim);
    alignas(64) float m[BR], l[BR], lim[BR];
    configureTiles();
    const double shift = double(in.totalKeys ? in.totalKeys : in.keys) - double(in.seq) - double(in.keyBegin);
    const Vec::T scale = Vec::set1(in.scaleLog2e), minusInf = Vec::set1(-INFINITY);
    const Vec::T lanes = _mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    for (std::size_t t0 = in.first; t0 < in.first + in.count; t0 += BR) {
        const std::size_t rows = std::min<std::size_t>(BR, in.first + in.count - t0);
        const std::size_t rowTiles = (rows + 15) / 16;
        float highest = -1, lowest = float(in.keys);
        for (std::size_t r = 0; r < std::size_t(BR); ++r) {
            for (std::size_t c = 0; c < dim; c += 32) {
                const float* src = in.q + (t0 + r) * dim + c;
                const __m512i row =
                    r < rows ? (__m512i)_mm512_cvtne2ps_pbh(_mm512_loadu_ps(src + 16), _mm512_loadu_ps(src))
                             : _mm512_setzero_si512();
                _mm512_storeu_si512(qb.data() + r * dim + c, row);
            }
            const double last = in.causal ? std::fmin(double((t0 + r) % in.seq) + shift, double(in.keys - 1))
                                          : double(in.keys - 1);
            lim[r] = r < rows ? float(last < -1 ? -1 : last) : -1.0f;
            if (r < rows) highest = std::max(highest, lim[r]), lowest = std::min(lowest, lim[r]);
            m[r] = -INFINITY;
            l[r] = 0;
        }
        std::fill(o.begin(), o.end(), 0.0f);
        std::fill(pb.begin(), pb.end(), std::uint16_t(0));
        const std::size_t end = std::size_t(highest + 1);
        // The three steps as a pipeline: the next block's S runs on the tiles between a block's softmax
        // and its P·V, so neither unit reads what the other has only just written to memory (a tile load
        // of freshly stored vector data, or the reverse, waits for the stores to drain).
        auto scoresOf = [&](std::size_t j0) {
            // S = Q·Kᵀ, 32 rows × 32 keys at a time: two row tiles (4, 5) against two key tiles (6, 7)
            // into four accumulators, every operand loaded once and used twice.
            for (std::size_t rp = 0; rp < rowTiles; rp += 2)
                for (std::size_t kp = 0; kp < std::size_t(KB / 16); kp += 2) {
                    _tile_zero(0);
                    _tile_zero(1);
                    _tile_zero(2);
                    _tile_zero(3);
                    for (std::size_t dc = 0; dc < chunks; ++dc) {
                        const std::uint16_t* kt = in.kPacked + ((j0 / 16 + kp) * chunks + dc) * kTileElems;
                        tileStep(qb.data() + rp * 16 * dim + dc * 32, int(dim * 2), kt, chunks * kTileElems);
                    }
                    float* st = s.data() + rp * 16 * KB + kp * 16;
                    _tile_stored(0, st, KB * 4);
                    _tile_stored(1, st + 16, KB * 4);
                    _tile_stored(2, st + 16 * KB, KB * 4);
                    _tile_stored(3, st + 16 * KB + 16, KB * 4);
                }
        };
        auto softmaxOf = [&](std::size_t j0) {
            // The online softmax per row: keys past the row's last visible one (or the end) are −∞. The
            // shift a row's probabilities are taken against moves only when the block's maximum passes
            // it by more than kLazyShift (FlashAttention-4's lazy rescaling): probabilities stay below
            // 2^kLazyShift, and O, which lives in memory between the tiles' products, is rescaled by
            // the vector unit only then — rarely after the first blocks. A block that every row sees
            // whole (most of them) needs no mask and has no −∞ to guard against.
            auto rowsOf = [&](auto whole) {
                for (std::size_t r = 0; r < rows; ++r) {
                    float* row = s.data() + r * KB;
                    Vec::T v[KB / 16];
                    Vec::T top = minusInf;
                    const Vec::T limit = Vec::set1(lim[r]);
                    for (int x = 0; x < KB / 16; ++x) {
                        v[x] = Vec::mul(Vec::load(row + x * 16), scale);
                        if constexpr (!whole) {
                            const Vec::T idx = Vec::add(Vec::set1(float(j0 + std::size_t(x) * 16)), lanes);
                            v[x] = Vec::keepAtMost(v[x], idx, limit, minusInf);
                        }
                        top = Vec::max(top, v[x]);
                    }
                    const float blockMax = _mm512_reduce_max_ps(top);
                    if (blockMax > m[r] + kLazyShift) {
                        if (m[r] != -INFINITY) { // O and l hold sums against the old shift: scale them down
                            const float c = std::exp2(m[r] - blockMax);
                            l[r] *= c;
                            float* orow = o.data() + r * dim;
                            for (std::size_t x = 0; x < dim; x += 16)
                                Vec::store(orow + x, Vec::mul(Vec::load(orow + x), Vec::set1(c)));
                        }
                        m[r] = blockMax;
                    }
                    const Vec::T sh = Vec::set1(m[r] == -INFINITY ? 0.0f : m[r]);
                    Vec::T sum = Vec::zero();
                    std::uint16_t* prow = pb.data() + r * KB;
                    for (int x = 0; x < KB / 16; ++x) {
                        Vec::T p;
                        if constexpr (whole)
                            p = exp2Finite(Vec::sub(v[x], sh));
                        else
                            p = Vec::zeroWhereMinusInf(Vec::exp2(Vec::sub(v[x], sh)), v[x]);
                        sum = Vec::add(sum, p);
                        const __m256bh h = _mm512_cvtneps_pbh(p);
                        std::memcpy(prow + x * 16, &h, 32);
                    }
                    l[r] += _mm512_reduce_add_ps(sum);
                }
            };
            if (float(j0 + KB - 1) <= lowest)
                rowsOf(std::true_type());
            else
                rowsOf(std::false_type());
        };
        auto outputsOf = [&](std::size_t j0) {
            // O += P·V, 32 rows × 32 columns at a time: O's tiles loaded, two row tiles of P (4, 5)
            // against two column tiles of V (6, 7) per 32 keys, stored back.
            for (std::size_t rp = 0; rp < rowTiles; rp += 2)
                for (std::size_t c0 = 0; c0 < dim; c0 += 32) {
                    float* ot = o.data() + rp * 16 * dim + c0;
                    _tile_loadd(0, ot, int(dim * 4));
                    _tile_loadd(1, ot + 16, int(dim * 4));
                    _tile_loadd(2, ot + 16 * dim, int(dim * 4));
                    _tile_loadd(3, ot + 16 * dim + 16, int(dim * 4));
                    for (std::size_t kc = 0; kc < std::size_t(KB / 32); ++kc) {
                        const std::uint16_t* vt =
                            in.vPacked + ((j0 / 32 + kc) * (dim / 16) + c0 / 16) * kTileElems;
                        tileStep(pb.data() + rp * 16 * KB + kc * 32, KB * 2, vt, kTileElems);
                    }
                    _tile_stored(0, ot, int(dim * 4));
                    _tile_stored(1, ot + 16, int(dim * 4));
                    _tile_stored(2, ot + 16 * dim, int(dim * 4));
                    _tile_stored(3, ot + 16 * dim + 16, int(dim * 4));
                }
        };
        if (end > 0) scoresOf(0);
        for (std::size_t j0 = 0; j0 < end; j0 += KB) {
            softmaxOf(j0);
            if (j0 + KB < end) scoresOf(j0 + KB);
            outputsOf(j0);
        }
        for (std::size_t r = 0; r < rows; ++r) {
            float* out = in.o + (t0 + r) * dim;
            const float inv = l[r] > 0 ? 1.0f / l[r] : 0.0f;
            for (std::size_t c = 0; c < dim; ++c)
                out[c] = o[r * dim + c] * inv;
        }
    }
    _tile_release();
}

namespace {

// Rows [r0, r0 + 32) of a row-major fp32 matrix (rows × cols) as bf16 into strip (32 × stride, zeros past
// the matrix's rows and columns): an A operand of the tile products.
void bf16Strip(const float* m, std::size_t rows, std::size_t cols, std::size_t r0, std::size_t stride,
               std::uint16_t* strip) {
    for (std::size_t r = 0; r < 32; ++r) {
        std::uint16_t* out = strip + r * stride;
        std::size_t c = 0;
        if (r0 + r < rows) {
            const float* in = m + (r0 + r) * cols;
            for (; c + 32 <= cols; c += 32)
                _mm512_storeu_si512(out + c, (__m512i)_mm512_cvtne2ps_pbh(_mm512_loadu_ps(in + c + 16),
                                                                          _mm512_loadu_ps(in + c)));
            for (; c < cols; ++c) {
                const __m128bh h = _mm_cvtneps_pbh(_mm_set_ss(in[c]));
                std::memcpy(out + c, &h, 2);
            }
        }
        std::memset(out + c, 0, (stride - c) * 2);
    }
}

// Stores four accumulator tiles (a 32 × 32 block at (r0, c0) of a rows × cols fp32 matrix), the
// parts inside it: whole tiles straight into the matrix, edge tiles through a buffer.
void storeBlock(float* m, std::size_t rows, std::size_t cols, std::size_t r0, std::size_t c0) {
    alignas(64) float edge[16 * 16];
    auto store = [&](int tile, std::size_t r, std::size_t c) {
        if (r >= rows || c >= cols) return;
        float* at = m + r * cols + c;
        if (r + 16 <= rows && c + 16 <= cols) {
            switch (tile) {
            case 0:
                _tile_stored(0, at, int(cols * 4));
                break;
            case 1:
                _tile_stored(1, at, int(cols * 4));
                break;
            case 2:
                _tile_stored(2, at, int(cols * 4));
                break;
            default:
                _tile_stored(3, at, int(cols * 4));
                break;
            }
            return;
        }
        switch (tile) {
        case 0:
            _tile_stored(0, edge, 64);
            break;
        case 1:
            _tile_stored(1, edge, 64);
            break;
        case 2:
            _tile_stored(2, edge, 64);
            break;
        default:
            _tile_stored(3, edge, 64);
            break;
        }
        for (std::size_t x = 0; x < 16 && r + x < rows; ++x)
            std::memcpy(at + x * cols, edge + x * 16, std::min<std::size_t>(16, cols - c) * 4);
    };
    store(0, r0, c0);
    store(1, r0, c0 + 16);
    store(2, r0 + 16, c0);
    store(3, r0 + 16, c0 + 16);
}

// C (n × cols, fp32) = A (n × depth, fp32, rounded to bf16) · B in 32 × 32 blocks, B in a packed
// layout: tileOf(c0, step) is B's tile for columns [c0, c0 + 16) and depth [32·step, 32·step + 32),
// nextColumns elements before the tile of the next 16 columns.
template <class TileOf>
void amxGemm(const float* a, std::size_t n, std::size_t depth, TileOf tileOf, std::size_t nextColumns,
             std::size_t cols, float* c) {
    const std::size_t padded = (depth + 31) / 32 * 32;
    thread_local std::vector<std::uint16_t> strip;
    strip.resize(32 * padded);
    configureTiles();
    for (std::size_t r0 = 0; r0 < n; r0 += 32) {
        bf16Strip(a, n, depth, r0, padded, strip.data());
        for (std::size_t c0 = 0; c0 < cols; c0 += 32) {
            _tile_zero(0);
            _tile_zero(1);
            _tile_zero(2);
            _tile_zero(3);
            for (std::size_t step = 0; step < padded / 32; ++step) {
                tileStep(strip.data() + step * 32, int(padded * 2), tileOf(c0, step), nextColumns);
            }
            storeBlock(c, n, cols, r0, c0);
        }
    }
    _tile_release();
}

} // namespace

void amxScoresGemm(const float* q, std::size_t n, const std::uint16_t* kPacked, std::size_t keys,
                   std::size_t dim, float* scores) {
    const std::size_t chunks = dim / 32;
    auto keyTile = [&](std::size_t j0, std::size_t dc) {
        return kPacked + (j0 / 16 * chunks + dc) * kTileElems;
    };
    amxGemm(q, n, dim, keyTile, chunks * kTileElems, keys, scores);
}

void amxOutputGemm(const float* p, std::size_t n, std::size_t keys, const std::uint16_t* vPacked,
                   std::size_t dim, float* o) {
    auto valueTile = [&](std::size_t c0, std::size_t kc) {
        return vPacked + (kc * (dim / 16) + c0 / 16) * kTileElems;
    };
    amxGemm(p, n, keys, valueTile, kTileElems, dim, o);
}

} // namespace attnscope::kernels
