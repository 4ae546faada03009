// Host tests of the segmented family's decomposition (label host: no GPU needed).
//
// The segmented reduction's kernel is built from host-and-device pieces (merge-path search, the per-thread walk,
// the segmented carry operator, the tile layout, the chunk ranges). An emulation below runs those same pieces in
// the kernel's order — chunks, tiles, threads, the block's exclusive scan of carries, the deferred first segment
// of each chunk and the look-back — on the host, for many segment mixes, tile shapes, chunk counts, vector widths
// and alignments, with a non-commutative operator so that any reordering shows. It checks every segment is written
// exactly once with the sequential reference's value. The segmented scan's pair construction (including the
// shifted-flag exclusive form) is checked the same way, and both carry operators for associativity.
#include <cuprim/device/detail/segmented_reduce_kernel.cuh>
#include <cuprim/device/detail/segmented_scan_kernel.cuh>
#include <cuprim/host/segmented.hpp>

#include "common/test_util.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using cuprim_test::rng;

/// An affine map x -> a·x + b over uint32 (wrapping); composition "f then g" is associative, not commutative.
struct affine {
  std::uint32_t a, b;
  bool operator==(const affine&) const = default;
};
struct compose {
  CUPRIM_HD affine operator()(const affine& f, const affine& g) const { return {f.a * g.a, f.b * g.a + g.b}; }
};

std::ostream& operator<<(std::ostream& os, const affine& f) { return os << "(" << f.a << ", " << f.b << ")"; }

affine random_affine(rng& r) {
  return {static_cast<std::uint32_t>(r.next()) | 1u, static_cast<std::uint32_t>(r.next())};
}

// ---------------------------------------------------------------------------------------------------------
// Segment mixes (lengths)

std::vector<std::int64_t> lengths_for(const std::string& mix, rng& r, std::int64_t segments) {
  std::vector<std::int64_t> len(static_cast<std::size_t>(segments), 0);
  for (auto& l : len) {
    if (mix == "empty") l = 0;
    else if (mix == "tiny") l = r.index(10) < 6 ? 0 : static_cast<std::int64_t>(r.index(3));
    else if (mix == "random") l = static_cast<std::int64_t>(r.index(200));
    else if (mix == "huge") l = 3000 + static_cast<std::int64_t>(r.index(5000));
    else if (mix == "mixed") l = r.index(50) == 0 ? 2000 + static_cast<std::int64_t>(r.index(4000)) : (r.index(2) ? 0 : 1);
  }
  return len;
}

std::vector<std::int64_t> offsets_from(const std::vector<std::int64_t>& len, std::int64_t base) {
  std::vector<std::int64_t> off(len.size() + 1);
  off[0] = base;
  for (std::size_t s = 0; s < len.size(); ++s) off[s + 1] = off[s] + len[s];
  return off;
}

// ---------------------------------------------------------------------------------------------------------
// The emulation of segmented_reduce_kernel (one chunk after another: the look-back's value is the previous chunk's
// inclusive prefix).

template <int NT, int VT, class T, class Op>
std::vector<T> emulate_segmented_reduce(const std::vector<T>& in, const std::vector<std::int64_t>& offsets, T init,
                                        Op op, std::int64_t grid, int V, std::int64_t head,
                                        std::vector<int>& writes) {
  using namespace cuprim::detail;
  constexpr int NV = NT * VT;
  const std::int64_t S = static_cast<std::int64_t>(offsets.size()) - 1;
  std::vector<T> out(static_cast<std::size_t>(S), T{});
  writes.assign(static_cast<std::size_t>(S), 0);
  if (S == 0) return out;
  const std::int64_t base = offsets[0], last = offsets[static_cast<std::size_t>(S)];
  const std::int64_t n = last > base ? last - base : 0, L = n + S;
  const std::int64_t chunks = std::min(grid, L);
  auto end_at = [&](std::int64_t i) { return offsets[static_cast<std::size_t>(i + 1)] - base; };
  auto put = [&](std::int64_t s, const T& v) {
    out[static_cast<std::size_t>(s)] = v;
    ++writes[static_cast<std::size_t>(s)];
  };
  const seg_carry_op<Op> sop{op};
  std::vector<T> prefix(static_cast<std::size_t>(chunks));

  for (std::int64_t c = 0; c < chunks; ++c) {
    std::int64_t d_c0, d_c1;
    chunk_range(c, chunks, L, d_c0, d_c1);
    const std::int64_t i_c0 = merge_path(end_at, std::max<std::int64_t>(0, d_c0 - n), std::min(d_c0, S), d_c0);
    const std::int64_t i_c1 = merge_path(end_at, std::max<std::int64_t>(0, d_c1 - n), std::min(d_c1, S), d_c1);
    const std::int64_t j_c0 = d_c0 - i_c0, j_c1 = d_c1 - i_c1;
    const std::int64_t tiles = (d_c1 - d_c0 + NV - 1) / NV;
    seg_carry<T> carry{init, c == 0, c == 0};
    bool head_has = false;
    std::int64_t head_seg = -1;
    maybe<T> head_value{T{}, false};
    auto split = [&](std::int64_t d) {
      return merge_path(end_at, std::max(i_c0, d - j_c1), std::min(i_c1, d - j_c0), d);
    };
    for (std::int64_t t = 0; t < tiles; ++t) {
      const std::int64_t d0 = d_c0 + t * NV, d1 = std::min(d0 + NV, d_c1);
      const std::int64_t i0 = split(d0), i1 = split(d1);
      const std::int64_t j0 = d0 - i0;
      const int a_count = static_cast<int>(i1 - i0), b_count = static_cast<int>((d1 - i1) - j0);
      const std::int64_t g0 = base + j0, g1 = g0 + b_count;
      const tile_layout lay = make_tile_layout(g0, g1, head, V);
      // Shared memory: values at their vector-aligned slots (poison elsewhere), ends as local positions.
      std::vector<T> vals(NV + 2 * 16, T{0xdeadbeefu, 0xdeadbeefu});
      EXPECT_LE(lay.q_count * V, std::int64_t(vals.size()));
      for (std::int64_t qq = 0; qq < lay.q_count; ++qq) {
        const std::int64_t gv = head + (lay.q_first + qq) * V;
        for (int e = 0; e < V; ++e)
          if (gv + e >= g0 && gv + e < g1) vals[static_cast<std::size_t>(qq * V + e)] = in[static_cast<std::size_t>(gv + e)];
      }
      std::vector<int> ends(static_cast<std::size_t>(a_count));
      for (int k = 0; k < a_count; ++k) ends[static_cast<std::size_t>(k)] = static_cast<int>(end_at(i0 + k) - j0);

      const int count = a_count + b_count;
      std::vector<walk_result<T>> wr(NT, walk_result<T>{{T{}, false}, -1, {T{}, false}});
      for (int tid = 0; tid < NT; ++tid) {
        const int diag = tid * VT;
        const int items = std::clamp(count - diag, 0, VT);
        if (items == 0) continue;
        auto local_end = [&](int k) { return ends[static_cast<std::size_t>(k)]; };
        auto val_at = [&](int b) { return vals[static_cast<std::size_t>(lay.lead + b)]; };
        auto emit = [&](int k, const T& v) { put(i0 + k, v); };
        const int ai = merge_path(local_end, std::max(0, diag - b_count), std::min(diag, a_count), diag);
        wr[tid] = walk_path<VT>(local_end, val_at, a_count, b_count, ai, diag - ai, items, op, init, emit);
      }
      // The block's exclusive scan of carries, seeded with the tile's carry-in.
      seg_carry<T> run = carry;
      seg_carry<T> total{T{}, false, false};
      for (int tid = 0; tid < NT; ++tid) {
        const seg_carry<T> mine{wr[tid].tail.value, wr[tid].tail.has, wr[tid].first_end >= 0};
        const seg_carry<T> before = run;
        run = sop(run, mine);
        total = tid == 0 ? mine : sop(total, mine);
        if (wr[tid].first_end >= 0) {
          const maybe<T> v = combine_maybe(maybe<T>{before.value, before.has}, wr[tid].first, op);
          if (before.flag) {
            EXPECT_TRUE(v.has);
            put(i0 + wr[tid].first_end, v.value);
          } else {
            EXPECT_FALSE(head_has) << "two first segments in chunk " << c;
            head_has = true;
            head_seg = i0 + wr[tid].first_end;
            head_value = v;
          }
        }
      }
      carry = sop(carry, total);
    }
    // Chunk end: the look-back's value is chunk c-1's inclusive prefix.
    EXPECT_TRUE(carry.has) << "chunk " << c << " of " << chunks << " ended without a value";
    if (c == 0) {
      EXPECT_TRUE(carry.flag);
      prefix[0] = carry.value;
    } else if (carry.flag) {
      const T pre = prefix[static_cast<std::size_t>(c - 1)];
      EXPECT_TRUE(head_has);
      if (head_has) put(head_seg, head_value.has ? op(pre, head_value.value) : pre);
      prefix[static_cast<std::size_t>(c)] = carry.value;
    } else {
      EXPECT_FALSE(head_has);
      prefix[static_cast<std::size_t>(c)] = op(prefix[static_cast<std::size_t>(c - 1)], carry.value);
    }
  }
  return out;
}

template <int NT, int VT>
void check_reduce_emulation(const std::string& mix, std::int64_t segments, std::int64_t grid, int V, std::int64_t head,
                            std::int64_t base, rng& r) {
  SCOPED_TRACE("mix " + mix + ", segments " + std::to_string(segments) + ", NT " + std::to_string(NT) + ", VT " +
               std::to_string(VT) + ", grid " + std::to_string(grid) + ", V " + std::to_string(V) + ", head " +
               std::to_string(head) + ", base " + std::to_string(base));
  const auto off = offsets_from(lengths_for(mix, r, segments), base);
  std::vector<affine> in(static_cast<std::size_t>(off.back()));
  for (auto& x : in) x = random_affine(r);
  const affine init = random_affine(r);
  std::vector<affine> ref(static_cast<std::size_t>(segments));
  cuprim::host::segmented_reduce(in.data(), ref.data(), off.data(), segments, compose{}, init);
  std::vector<int> writes;
  const auto got = emulate_segmented_reduce<NT, VT>(in, off, init, compose{}, grid, V, head, writes);
  std::int64_t bad = 0, first = -1;
  for (std::int64_t s = 0; s < segments; ++s) {
    const auto i = static_cast<std::size_t>(s);
    if (writes[i] != 1 || !(got[i] == ref[i])) {
      if (first < 0) first = s;
      ++bad;
    }
  }
  EXPECT_EQ(bad, 0) << "first bad segment " << first << " (written "
                    << (first >= 0 ? writes[static_cast<std::size_t>(first)] : 0) << " times)";
}

TEST(SegmentedReduceEmulation, EveryMixTileShapeAndChunkCount) {
  CUPRIM_TEST_RNG(r);
  for (const char* mix : {"empty", "tiny", "random", "huge", "mixed"})
    for (std::int64_t segments : {1, 2, 7, 64, 300})
      for (std::int64_t grid : {1, 2, 3, 7, 50, 1056})
        for (int V : {1, 4}) {
          const std::int64_t head = V == 1 ? 0 : static_cast<std::int64_t>(r.index(4));
          check_reduce_emulation<8, 3>(mix, segments, grid, V, head, 0, r);
          check_reduce_emulation<32, 5>(mix, segments, grid, V, head, static_cast<std::int64_t>(r.index(9)), r);
        }
}

TEST(SegmentedReduceEmulation, ProductionTileShape) {
  CUPRIM_TEST_RNG(r);
  for (const char* mix : {"empty", "tiny", "random", "huge", "mixed"})
    for (std::int64_t grid : {1, 5, 528})
      for (int V : {1, 4, 8})
        check_reduce_emulation<256, 15>(mix, 2000, grid, V, static_cast<std::int64_t>(r.index(V)), 3, r);
}

TEST(SegmentedReduceEmulation, ZeroAndOneSegment) {
  CUPRIM_TEST_RNG(r);
  check_reduce_emulation<8, 3>("random", 0, 4, 4, 1, 0, r);
  for (std::int64_t grid : {1, 3, 100}) {
    check_reduce_emulation<8, 3>("empty", 1, grid, 4, 2, 5, r);
    check_reduce_emulation<8, 3>("huge", 1, grid, 4, 3, 0, r);
  }
}

TEST(SegmentedReduceEmulation, MergePathSplitsAreConsistent) {
  CUPRIM_TEST_RNG(r);
  using cuprim::detail::merge_path;
  for (int rep = 0; rep < 50; ++rep) {
    const auto off = offsets_from(lengths_for(rep % 2 ? "tiny" : "random", r, 1 + rep * 3), 0);
    const std::int64_t S = static_cast<std::int64_t>(off.size()) - 1, n = off.back(), L = n + S;
    auto end_at = [&](std::int64_t i) { return off[static_cast<std::size_t>(i + 1)]; };
    // Walking the path item by item must agree with the search at every diagonal.
    std::int64_t i = 0, j = 0;
    for (std::int64_t d = 0; d <= L; ++d) {
      ASSERT_EQ(merge_path(end_at, std::max<std::int64_t>(0, d - n), std::min(d, S), d), i) << "diagonal " << d;
      if (d == L) break;
      if (j < n && (i >= S || j < end_at(i))) ++j;
      else ++i;
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// Operators: associativity under arbitrary groupings

template <class T, class Op>
T tree_fold(const std::vector<T>& v, std::size_t lo, std::size_t hi, Op op, rng& r) {
  if (hi - lo == 1) return v[lo];
  const std::size_t mid = lo + 1 + r.index(hi - lo - 1);
  return op(tree_fold(v, lo, mid, op, r), tree_fold(v, mid, hi, op, r));
}

TEST(SegmentedOperators, PairAndCarryOperatorsAreAssociative) {
  CUPRIM_TEST_RNG(r);
  using namespace cuprim::detail;
  for (int rep = 0; rep < 200; ++rep) {
    const std::size_t len = 1 + r.index(40);
    std::vector<seg_pair<affine>> pairs(len);
    std::vector<seg_carry<affine>> carries(len);
    for (std::size_t i = 0; i < len; ++i) {
      pairs[i] = {random_affine(r), r.index(4) == 0};
      carries[i] = {random_affine(r), r.index(5) != 0, r.index(4) == 0};
    }
    const seg_pair_op<compose> pop{compose{}};
    const seg_carry_op<compose> cop{compose{}};
    seg_pair<affine> left = pairs[0];
    seg_carry<affine> cleft = carries[0];
    for (std::size_t i = 1; i < len; ++i) {
      left = pop(left, pairs[i]);
      cleft = cop(cleft, carries[i]);
    }
    const auto tree = tree_fold(pairs, 0, len, pop, r);
    EXPECT_EQ(tree.start, left.start);
    EXPECT_EQ(tree.value, left.value);
    const auto ctree = tree_fold(carries, 0, len, cop, r);
    EXPECT_EQ(ctree.flag, cleft.flag);
    EXPECT_EQ(ctree.has, cleft.has);
    if (ctree.has) EXPECT_EQ(ctree.value, cleft.value);
  }
}

/// The pairs the segmented scan kernel builds, scanned sequentially (inclusive: plain; exclusive: shifted flags,
/// seeded with (start, init)), against the host references.
TEST(SegmentedOperators, ScanPairsGiveSegmentedScans) {
  CUPRIM_TEST_RNG(r);
  using namespace cuprim::detail;
  for (int rep = 0; rep < 100; ++rep) {
    const std::int64_t n = 1 + static_cast<std::int64_t>(r.index(300));
    std::vector<affine> in(static_cast<std::size_t>(n));
    std::vector<std::uint8_t> flags(static_cast<std::size_t>(n));
    for (auto& x : in) x = random_affine(r);
    for (auto& f : flags) f = r.index(rep % 3 + 2) == 0 ? static_cast<std::uint8_t>(1 + r.index(200)) : 0;
    const affine init = random_affine(r);
    std::vector<affine> ref_in(in.size()), ref_ex(in.size());
    cuprim::host::inclusive_segmented_scan(in.data(), flags.data(), ref_in.data(), n, compose{});
    cuprim::host::exclusive_segmented_scan(in.data(), flags.data(), ref_ex.data(), n, compose{}, init);
    const seg_pair_op<compose> pop{compose{}};
    auto start = [&](std::int64_t i) { return i == 0 || flags[static_cast<std::size_t>(i)] != 0; };
    seg_pair<affine> acc{};
    for (std::int64_t i = 0; i < n; ++i) {
      const auto p = make_seg_pair<false>(in[static_cast<std::size_t>(i)], start(i), init);
      acc = i == 0 ? p : pop(acc, p);
      ASSERT_EQ(static_cast<affine>(acc), ref_in[static_cast<std::size_t>(i)]) << "inclusive, element " << i;
    }
    seg_pair<affine> ex{init, true};
    for (std::int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(static_cast<affine>(ex), ref_ex[static_cast<std::size_t>(i)]) << "exclusive, element " << i;
      const bool next_starts = i + 1 < n && start(i + 1);
      ex = pop(ex, make_seg_pair<true>(in[static_cast<std::size_t>(i)], next_starts, init));
    }
  }
}

}  // namespace
