// Radix sort API: double-buffer forms, explicit workspaces, argsort, bit ranges, values of every width (user
// structs, the gather path for wide values), low-entropy keys, and the huge cases (2^28 keys; n > 2^31 uint8 keys).
#include "device/radix_sort_cases.hpp"

#include <algorithm>
#include <numeric>

namespace {

using radix_test::make_keys;
using radix_test::same_keys;
using radix_test::same_values;
using radix_test::shape;

class RadixSortApi : public cuprim_test::gpu_test {};

constexpr std::int64_t sizes[] = {1, 1000, 4096, 6144 * 3 + 17, 65536, 65537, (1 << 20) + 3};
static_assert(cuprim::radix_sort_policy_for(90, 4, 0).onchip_tile() == 65536,
              "the sizes above straddle the on-chip limit of the sm_90 rows");
/// Inputs up to this size are sorted on chip: the double-buffer forms leave the result in current().
std::int64_t onchip() { return radix_test::tuned_policy<std::uint32_t>(0).onchip_tile(); }

TEST_F(RadixSortApi, DoubleBufferKeys) {
  CUPRIM_TEST_RNG(r);
  for (std::int64_t n : sizes)
    for (int bits : {32, 24, 8, 3}) {
      SCOPED_TRACE(::testing::Message() << "n=" << n << " end_bit=" << bits);
      const auto keys = make_keys<std::uint32_t>(n, shape::random, r);
      std::vector<std::uint32_t> want(keys.size());
      cuprim::host::radix_sort_keys(keys.data(), want.data(), n, false, 0, bits);
      cuprim::device_buffer<std::uint32_t> a(static_cast<std::size_t>(n)), b(static_cast<std::size_t>(n));
      cuprim_test::upload(a.data(), keys);
      cuprim_test::poison(b);
      cuprim::double_buffer<std::uint32_t> db(a.data(), b.data());
      cuprim::radix_sort_keys(db, n, cuprim::radix_sort_options{.end_bit = bits});
      EXPECT_TRUE(same_keys(cuprim_test::download(db.current(), std::size_t(n)), want));
      const int passes = (bits + 7) / 8;
      if (n > onchip()) EXPECT_EQ(db.selector, passes & 1);
      else EXPECT_EQ(db.selector, 0);
    }
}

TEST_F(RadixSortApi, DoubleBufferPairsWithWorkspace) {
  CUPRIM_TEST_RNG(r);
  for (std::int64_t n : sizes)
    for (bool desc : {false, true}) {
      const auto keys = make_keys<std::int64_t>(n, shape::few_values, r);
      std::vector<std::uint32_t> idx(keys.size()), want_idx(keys.size());
      std::iota(idx.begin(), idx.end(), 0u);
      std::vector<std::int64_t> want(keys.size());
      cuprim::host::radix_sort_pairs(keys.data(), want.data(), idx.data(), want_idx.data(), n, desc);
      cuprim::device_buffer<std::int64_t> a(static_cast<std::size_t>(n)), b(static_cast<std::size_t>(n));
      cuprim::device_buffer<std::uint32_t> va(static_cast<std::size_t>(n)), vb(static_cast<std::size_t>(n));
      cuprim_test::upload(a.data(), keys);
      cuprim_test::upload(va.data(), idx);
      cuprim::double_buffer<std::int64_t> dk(a.data(), b.data());
      cuprim::double_buffer<std::uint32_t> dv(va.data(), vb.data());
      const std::size_t bytes = cuprim::radix_sort_pairs_workspace_bytes<std::int64_t, std::uint32_t>(n, true);
      EXPECT_LE(bytes, (cuprim::radix_sort_pairs_workspace_bytes<std::int64_t, std::uint32_t>(n)));
      cuprim::device_buffer<unsigned char> ws(std::max<std::size_t>(bytes, 1));
      cuprim_test::poison(ws);
      cuprim::radix_sort_pairs(dk, dv, n, cuprim::workspace{ws.data(), bytes},
                               {desc ? cuprim::sort_order::descending : cuprim::sort_order::ascending});
      EXPECT_TRUE(same_keys(cuprim_test::download(dk.current(), std::size_t(n)), want));
      EXPECT_TRUE(same_values(cuprim_test::download(dv.current(), std::size_t(n)), want_idx));
    }
}

TEST_F(RadixSortApi, PlainFormWithWorkspace) {
  CUPRIM_TEST_RNG(r);
  for (std::int64_t n : sizes) {
    const auto keys = make_keys<float>(n, shape::random, r);
    std::vector<float> want(keys.size());
    cuprim::host::radix_sort_keys(keys.data(), want.data(), n);
    cuprim::device_buffer<float> in(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n));
    cuprim_test::upload(in.data(), keys);
    cuprim_test::poison(out);
    const std::size_t bytes = cuprim::radix_sort_keys_workspace_bytes<float>(n);
    cuprim::device_buffer<unsigned char> ws(std::max<std::size_t>(bytes, 1));
    cuprim_test::poison(ws);
    cuprim::radix_sort_keys(in.data(), out.data(), n, cuprim::workspace{ws.data(), bytes});
    EXPECT_TRUE(same_keys(cuprim_test::download(out.data(), std::size_t(n)), want)) << "n=" << n;
  }
}

TEST_F(RadixSortApi, Argsort) {
  CUPRIM_TEST_RNG(r);
  for (std::int64_t n : sizes)
    for (bool desc : {false, true}) {
      const auto keys = make_keys<__half>(n, shape::random, r);
      std::vector<std::int64_t> want(keys.size());
      cuprim::host::argsort(keys.data(), want.data(), n, desc);
      cuprim::device_buffer<__half> in(static_cast<std::size_t>(n));
      cuprim::device_buffer<std::int64_t> out(static_cast<std::size_t>(n));
      cuprim::device_buffer<std::int32_t> out32(static_cast<std::size_t>(n));
      cuprim_test::upload(in.data(), keys);
      cuprim_test::poison(out);
      const cuprim::radix_sort_options opt{desc ? cuprim::sort_order::descending : cuprim::sort_order::ascending};
      cuprim::argsort(in.data(), out.data(), n, opt);
      EXPECT_EQ(cuprim_test::download(out.data(), std::size_t(n)), want) << "n=" << n;
      cuprim::argsort(in.data(), out32.data(), n, opt);
      const auto got32 = cuprim_test::download(out32.data(), std::size_t(n));
      EXPECT_TRUE(std::equal(got32.begin(), got32.end(), want.begin())) << "int32 indices, n=" << n;
    }
}

/// Floating-point keys over the top 16 bits of the ordered value (a function of its own: inlined into BitRanges,
/// GCC 12 reported a spurious -Wfree-nonheap-object on the vector's destructor).
void check_double_top_bits(cuprim_test::rng& r) {
  const auto fk = make_keys<double>(100000, shape::random, r);
  std::vector<double> fwant(fk.size());
  cuprim::host::radix_sort_keys(fk.data(), fwant.data(), std::int64_t(fk.size()), false, 48, 64);
  cuprim::device_buffer<double> fin(fk.size()), fout(fk.size());
  cuprim_test::upload(fin.data(), fk);
  cuprim::radix_sort_keys(fin.data(), fout.data(), std::int64_t(fk.size()), {cuprim::sort_order::ascending, 48, 64});
  EXPECT_TRUE(same_keys(cuprim_test::download(fout.data(), fk.size()), fwant));
}

TEST_F(RadixSortApi, BitRanges) {
  CUPRIM_TEST_RNG(r);
  const std::pair<int, int> ranges[] = {{0, 8}, {4, 20}, {8, 9}, {31, 32}, {0, 13}, {17, 32}};
  for (std::int64_t n : {std::int64_t(3000), std::int64_t(200003)})
    for (auto [b, e] : ranges)
      for (bool desc : {false, true}) {
        SCOPED_TRACE(::testing::Message() << "n=" << n << " bits [" << b << ", " << e << ")" << (desc ? " desc" : ""));
        const auto keys = make_keys<std::int32_t>(n, shape::random, r);
        std::vector<std::uint32_t> idx(keys.size()), want_idx(keys.size());
        std::iota(idx.begin(), idx.end(), 0u);
        std::vector<std::int32_t> want(keys.size());
        cuprim::host::radix_sort_pairs(keys.data(), want.data(), idx.data(), want_idx.data(), n, desc, b, e);
        cuprim::device_buffer<std::int32_t> in(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n));
        cuprim::device_buffer<std::uint32_t> vin(static_cast<std::size_t>(n)), vout(static_cast<std::size_t>(n));
        cuprim_test::upload(in.data(), keys);
        cuprim_test::upload(vin.data(), idx);
        cuprim::radix_sort_pairs(in.data(), out.data(), vin.data(), vout.data(), n,
                                 {desc ? cuprim::sort_order::descending : cuprim::sort_order::ascending, b, e});
        EXPECT_TRUE(same_keys(cuprim_test::download(out.data(), std::size_t(n)), want));
        EXPECT_TRUE(same_values(cuprim_test::download(vout.data(), std::size_t(n)), want_idx));
      }
  check_double_top_bits(r);
}

/// Values: an 8-byte user struct (moved in every pass), a 12-byte and a 32-byte struct (the gather path).
struct rec12 {
  std::uint32_t a, b, c;
};
struct rec32 {
  double x[3];
  std::uint64_t tag;
};

template <class V>
V make_value(std::uint64_t i) {
  V v;
  std::memset(&v, 0, sizeof(V));
  if constexpr (std::is_same_v<V, rec12>) v = {std::uint32_t(i), std::uint32_t(i * 3), std::uint32_t(~i)};
  else if constexpr (std::is_same_v<V, rec32>) v = {{double(i), -double(i), 0.5}, i * 7};
  else if constexpr (std::is_same_v<V, cuprim_test::pair8>) std::memcpy(&v, &i, sizeof(V));
  return v;
}

template <class V>
void check_values(cuprim_test::rng& r, bool double_buffer) {
  for (std::int64_t n : sizes) {
    SCOPED_TRACE(::testing::Message() << "n=" << n << " value bytes " << sizeof(V)
                                      << (double_buffer ? " double buffer" : ""));
    const auto keys = make_keys<std::uint16_t>(n, shape::few_values, r);
    std::vector<V> vals(keys.size()), want_v(keys.size());
    for (std::size_t i = 0; i < vals.size(); ++i) vals[i] = make_value<V>(i);
    std::vector<std::uint16_t> want(keys.size());
    cuprim::host::radix_sort_pairs(keys.data(), want.data(), vals.data(), want_v.data(), n);
    cuprim::device_buffer<std::uint16_t> kin(static_cast<std::size_t>(n)), kout(static_cast<std::size_t>(n));
    cuprim::device_buffer<V> vin(static_cast<std::size_t>(n)), vout(static_cast<std::size_t>(n));
    cuprim_test::upload(kin.data(), keys);
    cuprim_test::upload(vin.data(), vals);
    if (double_buffer) {
      cuprim::double_buffer<std::uint16_t> dk(kin.data(), kout.data());
      cuprim::double_buffer<V> dv(vin.data(), vout.data());
      cuprim::radix_sort_pairs(dk, dv, n);
      EXPECT_TRUE(same_keys(cuprim_test::download(dk.current(), std::size_t(n)), want));
      EXPECT_TRUE(same_values(cuprim_test::download(dv.current(), std::size_t(n)), want_v));
    } else {
      cuprim::radix_sort_pairs(kin.data(), kout.data(), vin.data(), vout.data(), n);
      EXPECT_TRUE(same_keys(cuprim_test::download(kout.data(), std::size_t(n)), want));
      EXPECT_TRUE(same_values(cuprim_test::download(vout.data(), std::size_t(n)), want_v));
    }
  }
}

TEST_F(RadixSortApi, UserStructValues) {
  CUPRIM_TEST_RNG(r);
  for (bool db : {false, true}) {
    check_values<cuprim_test::pair8>(r, db);
    check_values<rec12>(r, db);
    check_values<rec32>(r, db);
  }
}

/// Keys that do not start on a 16-byte boundary: the upfront histogram reads whole 16-byte vectors and counts the
/// keys before the first boundary and after the last vector apart. Every key width, a few offsets, sizes past the
/// on-chip limit with head and tail keys, random and low-entropy keys.
template <class K>
void check_misaligned(cuprim_test::rng& r, std::initializer_list<int> offsets) {
  for (std::int64_t n : {std::int64_t(70001), std::int64_t(200003)})
    for (int offset : offsets)
      for (shape s : {shape::random, shape::low_entropy}) {
        SCOPED_TRACE(::testing::Message() << cuprim_test::type_name<K>() << " n=" << n << " offset=" << offset);
        const auto keys = make_keys<K>(n, s, r);
        std::vector<K> want(keys.size());
        cuprim::host::radix_sort_keys(keys.data(), want.data(), n);
        cuprim::device_buffer<K> in(std::size_t(n) + 16), out(std::size_t(n) + 16);
        cuprim_test::poison(in);
        cuprim_test::poison(out);
        cuprim_test::upload(in.data() + offset, keys);
        cuprim::radix_sort_keys(in.data() + offset, out.data() + 1, n);
        EXPECT_TRUE(same_keys(cuprim_test::download(out.data() + 1, std::size_t(n)), want));
      }
}

TEST_F(RadixSortApi, MisalignedKeys) {
  CUPRIM_TEST_RNG(r);
  check_misaligned<std::uint8_t>(r, {1, 3, 15});
  check_misaligned<std::int16_t>(r, {1, 3, 7});
  check_misaligned<__half>(r, {5});
  check_misaligned<float>(r, {1, 2, 3});
  check_misaligned<std::uint64_t>(r, {1});
  check_misaligned<double>(r, {1});
}

/// exchange_first (keys to their tile positions before the look-back) outside the defaults that use it (8-byte keys
/// alone, 4-byte pairs jointly): 4-byte keys alone and in pairs exchanged apart, both directions, float keys with and
/// without NaN.
TEST_F(RadixSortApi, ExchangeFirstPolicy) {
  CUPRIM_TEST_RNG(r);
  constexpr cuprim::radix_sort_policy exchange_first{.threads = 384, .items = 24, .look_back = 2,
                                                    .exchange_first = true};
  for (bool desc : {false, true})
    for (shape s : {shape::random, shape::no_nan}) radix_test::check_sort<float, exchange_first>(300007, s, desc, r);
}

/// joint_exchange (keys and values in shared memory at once) outside the defaults that use it (4-byte keys with
/// 4-byte values, exchanged before the look-back): after the look-back, with keys of 1, 2, 4 and 8 bytes (the values
/// are uint32: the value addresses then come from their own per-digit table where the widths differ), float keys with
/// and without NaN; and the separate exchanges for 4-byte pairs, both orders. prefetch_tiles with values too.
TEST_F(RadixSortApi, JointExchangePolicy) {
  CUPRIM_TEST_RNG(r);
  constexpr cuprim::radix_sort_policy PJ{.threads = 384, .items = 16, .look_back = 2, .joint_exchange = true,
                                         .prefetch_tiles = 3};
  constexpr cuprim::radix_sort_policy PS{.threads = 384, .items = 24, .look_back = 2};
  for (bool desc : {false, true}) {
    for (shape s : {shape::random, shape::no_nan}) {
      radix_test::check_sort<float, PJ>(300007, s, desc, r);
      radix_test::check_sort<double, PJ>(200003, s, desc, r);
      radix_test::check_sort<float, PS>(300007, s, desc, r);
    }
    radix_test::check_sort<std::uint8_t, PJ>(100003, shape::random, desc, r);
    radix_test::check_sort<std::int16_t, PJ>(100003, shape::random, desc, r);
    radix_test::check_sort<std::uint32_t, PJ>(300007, shape::low_entropy, desc, r);
  }
}

/// store_hint (the L2 eviction priority of the one-sweep stores) outside the default that uses it (evict_last for
/// 8-byte keys alone): evict_last with the separate exchanges (PF) and with the joint one (PL), on float keys with
/// and without NaN (the last pass stores converted keys, under evict_normal), doubles and 8-byte integers (the last
/// pass returns its input's lines to the normal priority, values included), and 2-byte keys (stored plainly, their
/// values with the hint); keys alone and pairs, both orders.
TEST_F(RadixSortApi, StoreHintPolicy) {
  CUPRIM_TEST_RNG(r);
  constexpr int evict_last = cuprim::detail::radix_store_evict_last;
  constexpr cuprim::radix_sort_policy PF{.threads = 384, .items = 24, .look_back = 2, .store_hint = evict_last};
  constexpr cuprim::radix_sort_policy PL{.threads = 256, .items = 16, .look_back = 1, .exchange_first = true,
                                         .joint_exchange = true, .store_hint = evict_last};
  static_assert(cuprim::radix_sort_policy_for(90, 8, 0).store_hint == evict_last &&
                cuprim::radix_sort_policy_for(90, 4, 4).store_hint == cuprim::detail::radix_store_plain);
  for (bool desc : {false, true}) {
    for (shape s : {shape::random, shape::no_nan}) {
      radix_test::check_sort<float, PF>(300007, s, desc, r);
      radix_test::check_sort<float, PL>(300007, s, desc, r);
    }
    radix_test::check_sort<double, PL>(200003, shape::random, desc, r);
    radix_test::check_sort<std::uint64_t, PF>(200003, shape::random, desc, r);
    radix_test::check_sort<std::int16_t, PL>(100003, shape::random, desc, r);
  }
}

/// A workspace of exactly `bytes` (at least one byte allocated), poisoned: a sort must need no more than it asks for.
struct exact_workspace {
  std::size_t bytes;
  cuprim::device_buffer<unsigned char> buf;
  explicit exact_workspace(std::size_t b) : bytes(b), buf(std::max<std::size_t>(b, 1)) { cuprim_test::poison(buf); }
  cuprim::workspace get() { return cuprim::workspace{buf.data(), bytes}; }
};

/// The options of an ascending or descending sort of bits [begin, end).
inline cuprim::radix_sort_options bit_range_options(bool desc, int begin, int end) {
  return {desc ? cuprim::sort_order::descending : cuprim::sort_order::ascending, begin, end};
}

/// pack (pairs of 4-byte integer keys and 4-byte values moved as 8-byte keys) on small tiles (many tiles and
/// look-backs), signed and unsigned keys, both orders, bit ranges of one to four passes (one pass sorts unpacked),
/// low-entropy keys; 4-byte struct values, aligned and at an address that is not (which sorts unpacked); argsort with
/// 32-bit indices (packed) and 64-bit ones (unpacked); the workspace each policy asks for, used exactly.
template <auto P, class K, class V>
void check_packed(std::int64_t n, shape s, bool desc, int begin, int end, std::size_t value_offset,
                  cuprim_test::rng& r) {
  const bool pack = [] {
    if constexpr (std::is_same_v<std::remove_cvref_t<decltype(P)>, cuprim::tuned_t>)
      return radix_test::tuned_policy<K>(4).pack;
    else return P.pack;
  }();
  SCOPED_TRACE(::testing::Message() << "pack " << pack << " n=" << n << " bits [" << begin << ", " << end << ")"
                                    << (desc ? " descending" : "") << " value offset " << value_offset);
  const auto keys = make_keys<K>(n, s, r);
  std::vector<V> vals(keys.size());
  for (std::size_t i = 0; i < vals.size(); ++i) {
    const std::uint32_t x = std::uint32_t(r.next());
    std::memcpy(&vals[i], &x, 4);
  }
  std::vector<K> want(keys.size());
  std::vector<V> want_vals(keys.size());
  cuprim::host::radix_sort_pairs(keys.data(), want.data(), vals.data(), want_vals.data(), n, desc, begin, end);
  const auto m = static_cast<std::size_t>(n);
  cuprim::device_buffer<K> din(m), dout(m);
  cuprim::device_buffer<unsigned char> vbuf(m * 4 + 4), vobuf(m * 4 + 4);
  V* vin = reinterpret_cast<V*>(vbuf.data() + value_offset);
  V* vout = reinterpret_cast<V*>(vobuf.data() + value_offset);
  cuprim_test::upload(din.data(), keys);
  CUPRIM_CUDA_CHECK(cudaMemcpy(vin, vals.data(), std::size_t(n) * 4, cudaMemcpyHostToDevice));
  cuprim_test::poison(dout);
  cuprim_test::poison(vobuf);
  exact_workspace ws(cuprim::radix_sort_pairs_workspace_bytes<K, V, P>(n));
  cuprim::radix_sort_pairs<P>(din.data(), dout.data(), vin, vout, n, ws.get(), bit_range_options(desc, begin, end));
  EXPECT_TRUE(same_keys(cuprim_test::download(dout.data(), std::size_t(n)), want)) << "keys";
  std::vector<V> got(keys.size());
  CUPRIM_CUDA_CHECK(cudaMemcpy(got.data(), vout, std::size_t(n) * 4, cudaMemcpyDeviceToHost));
  EXPECT_TRUE(same_values(got, want_vals)) << "values";
}

/// argsort under policy P (keys of K, indices of I) against the host's, in exactly argsort_workspace_bytes, poisoned:
/// 4-byte integer keys with 32-bit indices travel packed under a policy with pack (the packing pass makes the
/// indices, the last pass stores only them).
template <auto P, class K, class I>
void check_packed_argsort(std::int64_t n, shape s, bool desc, int begin, int end, cuprim_test::rng& r) {
  SCOPED_TRACE(::testing::Message() << "argsort n=" << n << " bits [" << begin << ", " << end << ")"
                                    << (desc ? " descending" : "") << " index bytes " << sizeof(I));
  const auto keys = make_keys<K>(n, s, r);
  std::vector<I> want(keys.size());
  cuprim::host::argsort(keys.data(), want.data(), n, desc, begin, end);
  const auto m = static_cast<std::size_t>(n);
  cuprim::device_buffer<K> din(m);
  cuprim::device_buffer<I> dout(m);
  cuprim_test::upload(din.data(), keys);
  cuprim_test::poison(dout);
  exact_workspace ws(cuprim::argsort_workspace_bytes<K, I, P>(n));
  cuprim::argsort<P>(din.data(), dout.data(), n, ws.get(), bit_range_options(desc, begin, end));
  EXPECT_EQ(cuprim_test::download(dout.data(), m), want);
}

struct rgba {
  unsigned char c[4];
};

/// Small-tile policies (many tiles and look-backs at test sizes): packed (exchange first, prefetch 4 tiles ahead,
/// evict_last stores), the same unpacked, and one of another shape that does not pack.
constexpr cuprim::radix_sort_policy pack_policy{.threads = 256, .items = 8, .look_back = 1, .exchange_first = true,
                                               .prefetch_tiles = 4,
                                               .store_hint = cuprim::detail::radix_store_evict_last, .pack = true};
constexpr cuprim::radix_sort_policy unpacked_policy = [] {
  cuprim::radix_sort_policy p = pack_policy;
  p.pack = false;
  return p;
}();
constexpr cuprim::radix_sort_policy small_tile_policy{.threads = 256, .items = 6, .look_back = 2};

TEST_F(RadixSortApi, PackPolicy) {
  CUPRIM_TEST_RNG(r);
  constexpr cuprim::radix_sort_policy P1 = pack_policy;
  static_assert(cuprim::radix_sort_policy_for(90, 4, 4).pack && !cuprim::radix_sort_policy_for(90, 4, 0).pack);
  static_assert(cuprim::detail::radix_packs_v<P1, std::int32_t, float> &&
                !cuprim::detail::radix_packs_v<P1, float, std::uint32_t> &&
                !cuprim::detail::radix_packs_v<P1, std::uint64_t, std::uint32_t>);
  const std::pair<int, int> ranges[] = {{0, 32}, {0, 8}, {3, 27}, {5, 21}, {16, 32}};
  for (bool desc : {false, true})
    for (auto [b, e] : ranges) {
      check_packed<P1, std::uint32_t, std::uint32_t>(200003, shape::random, desc, b, e, 0, r);
      check_packed<P1, std::int32_t, float>(100003, shape::random, desc, b, e, 0, r);
      check_packed<P1, std::uint32_t, rgba>(70001, shape::few_values, desc, b, e, 0, r);
      check_packed_argsort<P1, std::uint32_t, std::uint32_t>(200003, shape::random, desc, b, e, r);
      check_packed_argsort<P1, std::int32_t, std::int32_t>(100003, shape::edges, desc, b, e, r);
      check_packed_argsort<small_tile_policy, std::int32_t, std::uint32_t>(150001, shape::random, desc, b, e, r);
    }
  for (bool desc : {false, true}) {
    check_packed<P1, std::uint32_t, std::uint32_t>(300007, shape::low_entropy, desc, 0, 32, 0, r);
    check_packed<P1, std::int32_t, std::uint32_t>(300007, shape::edges, desc, 0, 32, 0, r);
    check_packed<P1, std::uint32_t, rgba>(100003, shape::random, desc, 0, 32, 1, r);  // unpacked: misaligned values
    check_packed<cuprim::tuned, std::int32_t, std::int32_t>(1 << 20, shape::random, desc, 0, 32, 0, r);
    check_packed_argsort<cuprim::tuned, std::uint32_t, std::int32_t>((1 << 20) + 3, shape::low_entropy, desc, 0, 32,
                                                                     r);
    check_packed_argsort<cuprim::tuned, std::int32_t, std::int64_t>(300007, shape::random, desc, 0, 32, r);  // unpacked
  }
  // The packed sort's workspace: two buffers of n 8-byte keys where the unpacked sort takes n keys and n values; the
  // double-buffer form does not pack and takes none of them.
  const std::int64_t n = 1 << 20;
  auto bytes = [&]<cuprim::radix_sort_policy P>(bool double_buffer) {
    return cuprim::radix_sort_pairs_workspace_bytes<std::uint32_t, std::uint32_t, P>(n, double_buffer);
  };
  EXPECT_EQ(bytes.operator()<P1>(false), bytes.operator()<unpacked_policy>(false) + std::size_t(n) * 8);
  EXPECT_EQ(bytes.operator()<P1>(true), bytes.operator()<unpacked_policy>(true));
  // argsort packed: two such buffers where the unpacked one takes two key arrays and one index array.
  EXPECT_EQ((cuprim::argsort_workspace_bytes<std::uint32_t, std::uint32_t, P1>(n)),
            (cuprim::argsort_workspace_bytes<std::uint32_t, std::uint32_t, unpacked_policy>(n)) + std::size_t(n) * 4);
  // The defaults: argsort's and the pairs' workspace hold the two packed buffers (and the passes' state).
  EXPECT_GE((cuprim::argsort_workspace_bytes<std::int32_t, std::uint32_t>(n)), std::size_t(n) * 16);
  EXPECT_GE((cuprim::radix_sort_pairs_workspace_bytes<std::int32_t, std::uint32_t>(n)), std::size_t(n) * 16);
}

/// Inputs may alias each other: the keys sorted with themselves as their values (the same array read twice), on
/// chip, through the one-sweep passes, and packed (4-byte integer keys and values, the default), both forms of
/// argument order.
TEST_F(RadixSortApi, KeysAsTheirOwnValues) {
  CUPRIM_TEST_RNG(r);
  for (std::int64_t n : {std::int64_t(3000), std::int64_t(65537), std::int64_t(300007)})
    for (bool desc : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "n=" << n << (desc ? " descending" : ""));
      const auto keys = make_keys<std::uint32_t>(n, shape::few_values, r);
      std::vector<std::uint32_t> want(keys.size());
      cuprim::host::radix_sort_keys(keys.data(), want.data(), n, desc);
      const auto m = static_cast<std::size_t>(n);
      cuprim::device_buffer<std::uint32_t> in(m), kout(m), vout(m);
      cuprim_test::upload(in.data(), keys);
      cuprim_test::poison(kout);
      cuprim_test::poison(vout);
      cuprim::radix_sort_pairs(in.data(), kout.data(), in.data(), vout.data(), n,
                               {desc ? cuprim::sort_order::descending : cuprim::sort_order::ascending});
      EXPECT_TRUE(same_keys(cuprim_test::download(kout.data(), std::size_t(n)), want)) << "keys";
      EXPECT_TRUE(same_values(cuprim_test::download(vout.data(), std::size_t(n)), want)) << "values";
      EXPECT_TRUE(same_keys(cuprim_test::download(in.data(), std::size_t(n)), keys)) << "input changed";
    }
}

/// Small shapes for the sanitizers: the one-block path and a few one-sweep tiles, keys, and packed pairs and argsort.
TEST_F(RadixSortApi, SanitizerSizes) {
  CUPRIM_TEST_RNG(r);
  // On chip (one block, one cluster), then the one-sweep passes: three tiles and a partial one past the on-chip
  // limit, so that the sanitizers see the ranking, look-back and exchange of full and partial tiles.
  const cuprim::radix_sort_policy P = radix_test::tuned_policy<std::uint32_t>(0);
  for (std::int64_t n :
       {std::int64_t(3000), std::int64_t(6144 * 3 + 17), std::int64_t(P.onchip_tile() + 3 * P.tile() + 17)})
    for (bool desc : {false, true}) {
      radix_test::check_sort<std::uint32_t>(n, shape::random, desc, r);
      radix_test::check_sort<std::uint64_t>(n, shape::few_values, desc, r);
    }
  // Packed pairs and argsort past their on-chip limit, on tiles small enough that the prefetches (4 tiles ahead)
  // fire: the packing pass's loads and prefetches, the unpacking stores (with and without keys).
  const std::int64_t m = pack_policy.onchip_tile() + 9 * pack_policy.tile() + 17;
  for (bool desc : {false, true}) {
    check_packed<pack_policy, std::int32_t, std::uint32_t>(m, shape::random, desc, 0, 32, 0, r);
    check_packed_argsort<pack_policy, std::int32_t, std::uint32_t>(m, shape::random, desc, 0, 32, r);
  }
}

/// The cluster sort capped at 8 blocks (the portable shape; a device that takes clusters of 16 otherwise uses 16
/// from 8193 keys on): keys and pairs at sizes that need 2, 8 and every keys-per-thread count of 8 blocks.
TEST_F(RadixSortApi, ClusterOfEightBlocks) {
  CUPRIM_TEST_RNG(r);
  struct restore_cap {
    ~restore_cap() { cuprim::detail::radix_cluster_blocks_cap.store(16); }
  } restore;
  cuprim::detail::radix_cluster_blocks_cap.store(8);
  for (std::int64_t n : {std::int64_t(1500), std::int64_t(8192), std::int64_t(8193), std::int64_t(20011),
                         std::int64_t(40000), onchip()})
    for (bool desc : {false, true}) {
      radix_test::check_sort<std::uint32_t>(n, shape::random, desc, r);
      if (n <= radix_test::tuned_policy<std::uint64_t>(0).onchip_tile())
        radix_test::check_sort<std::uint64_t>(n, shape::few_values, desc, r);
    }
}

TEST_F(RadixSortApi, Huge2e28Uint32) {
  CUPRIM_REQUIRE_LARGE();
  CUPRIM_TEST_RNG(r);
  const std::int64_t n = std::int64_t(1) << 28;
  std::vector<std::uint32_t> keys(static_cast<std::size_t>(n));
  for (auto& k : keys) k = std::uint32_t(r.next());
  cuprim::device_buffer<std::uint32_t> in(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n));
  cuprim_test::upload(in.data(), keys);
  cuprim::radix_sort_keys(in.data(), out.data(), n);
  const auto got = cuprim_test::download(out.data(), static_cast<std::size_t>(n));
  // Sorted, and the same multiset (order-independent sums of a mixing function): for keys alone this is exactly
  // what std::stable_sort's output is, without a 2^28-element host sort.
  auto mix = [](std::uint64_t x) {
    x = (x ^ (x >> 31)) * 0x7fb5d329728ea185ull;
    return x ^ (x >> 27);
  };
  std::uint64_t h_in = 0, h_out = 0;
  std::size_t unsorted = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    h_in += mix(keys[i]);
    h_out += mix(got[i]);
    if (i > 0 && got[i] < got[i - 1]) ++unsorted;
  }
  EXPECT_EQ(unsorted, 0u);
  EXPECT_EQ(h_in, h_out) << "not a permutation of the input";
}

TEST_F(RadixSortApi, HugeUint8Over2e31) {
  CUPRIM_REQUIRE_LARGE();
  CUPRIM_TEST_RNG(r);
  const std::int64_t n = (std::int64_t(1) << 31) + 777777;
  std::vector<std::uint8_t> keys(static_cast<std::size_t>(n));
  std::uint64_t count[256] = {};
  for (std::size_t i = 0; i < keys.size(); i += 8) {
    std::uint64_t w = r.next();
    for (std::size_t j = 0; j < 8 && i + j < keys.size(); ++j, w >>= 8) {
      keys[i + j] = std::uint8_t(w);
      ++count[std::uint8_t(w)];
    }
  }
  cuprim::device_buffer<std::uint8_t> in(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n));
  cuprim_test::upload(in.data(), keys);
  cuprim::radix_sort_keys(in.data(), out.data(), n, {cuprim::sort_order::descending});
  const auto got = cuprim_test::download(out.data(), std::size_t(n));
  std::size_t pos = 0;
  bool ok = true;
  for (int d = 255; d >= 0 && ok; --d)
    for (std::uint64_t c = 0; c < count[d]; ++c, ++pos)
      if (got[pos] != d) {
        ok = false;
        ADD_FAILURE() << "position " << pos << " holds " << +got[pos] << ", expected " << d;
        break;
      }
}

}  // namespace
