// lab/radix_sort_sweep.cu: the radix sort's policy sweep (`cuprim-lab sweep radix_sort`): for each size class the
// tuned row beside the named alternatives docs/tuning/radix_sort.md measured it against, each against CUB in the
// same run, in nine placements of the buffers (as the production rows from 2^26 keys; --placements P overrides).
//   2^28 uint32 keys        384 x 40, look-back window 2 (tuned) | 384 x 24 | window 1
//   2^27 uint32 + uint32    packed, the passes under the uint64 keys' row (tuned) | joint exchange 256 x 44 (the
//                           row before packing) | joint exchange 384 x 26 (before that)
//   2^27 uint64 keys        256 x 40, window 1, evict_last stores (tuned) | plain stores | window 2
// Its own translation unit: every policy instantiates the one-sweep kernel of its keys (and values).
#include "radix_sort_common.cuh"

#include <cstdint>
#include <string>
#include <type_traits>

namespace lab {
namespace {

using namespace radix_sort_family;

constexpr int sm90 = 90;  // the rows the alternatives vary: sm_90's
constexpr cuprim::radix_sort_policy keys_row = cuprim::radix_sort_policy_for(sm90, 4, 0);
constexpr cuprim::radix_sort_policy pairs_row = cuprim::radix_sort_policy_for(sm90, 4, 4);
constexpr cuprim::radix_sort_policy u64_row = cuprim::radix_sort_policy_for(sm90, 8, 0);

/// `p` with one change, for the alternatives below.
template <class F>
constexpr cuprim::radix_sort_policy with(cuprim::radix_sort_policy p, F change) {
  change(p);
  return p;
}

constexpr cuprim::radix_sort_policy keys_384x24 = with(keys_row, [](auto& p) { p.items = 24; });
constexpr cuprim::radix_sort_policy keys_window1 = with(keys_row, [](auto& p) { p.look_back = 1; });
constexpr cuprim::radix_sort_policy pairs_joint_256x44 = with(pairs_row, [](auto& p) { p.pack = false; });
constexpr cuprim::radix_sort_policy pairs_joint_384x26 = with(pairs_joint_256x44, [](auto& p) {
  p.threads = 384;
  p.items = 26;
});
constexpr cuprim::radix_sort_policy u64_plain_stores =
    with(u64_row, [](auto& p) { p.store_hint = cuprim::detail::radix_store_plain; });
constexpr cuprim::radix_sort_policy u64_window2 = with(u64_row, [](auto& p) { p.look_back = 2; });

/// A sweep row: keys of K (with values of V; void: keys alone) sorted under Policy (cuprim::tuned: the row the
/// production case runs, labelled "default").
template <class K, class V, auto Policy>
void add_policy(std::int64_t n) {
  constexpr bool tuned = std::is_same_v<std::remove_cvref_t<decltype(Policy)>, cuprim::tuned_t>;
  std::string label = "default";
  if constexpr (!tuned) label = policy_label(Policy);
  std::string dt = name_of<K>();
  if constexpr (!std::is_void_v<V>) dt += std::string("+") + name_of<V>();
  const std::string op = std::is_void_v<V> ? "keys" : "pairs";
  case_def c = make_case<K, V, Policy>("radix_sort/sweep/" + op + "/" + label + "/" + dt + "/" + size_label(n), op,
                                       tuned ? "tuned row (default)" : label, n, keyset::random, false, true);
  c.sweep = true;
  c.placements = 9;
  add_case(std::move(c));
}

}  // namespace

void register_radix_sort_sweep() {
  add_policy<std::uint32_t, void, cuprim::tuned>(pow2(28));
  add_policy<std::uint32_t, void, keys_384x24>(pow2(28));
  add_policy<std::uint32_t, void, keys_window1>(pow2(28));
  add_policy<std::uint32_t, std::uint32_t, cuprim::tuned>(pow2(27));
  add_policy<std::uint32_t, std::uint32_t, pairs_joint_256x44>(pow2(27));
  add_policy<std::uint32_t, std::uint32_t, pairs_joint_384x26>(pow2(27));
  add_policy<std::uint64_t, void, cuprim::tuned>(pow2(27));
  add_policy<std::uint64_t, void, u64_plain_stores>(pow2(27));
  add_policy<std::uint64_t, void, u64_window2>(pow2(27));
  add_note("radix_sort/sweep/", "radix_sort sweep rows: TxI-lbL[-pfP][-xf][-joint][-evl][-pack] = T threads x I keys "
                                "per thread per one-sweep tile, look-back window L, the keys of the tile P ahead "
                                "prefetched to L2, keys exchanged before the look-back, pairs exchanged jointly, "
                                "evict_last stores, pairs packed into 8-byte keys; 'default' rows run cuprim::tuned "
                                "(their policy is printed)");
}

}  // namespace lab
