// cuprim/multi/detail/partials.cuh: every rank's fold of its shard, gathered to every rank and folded in rank order.
//
// The reduce and the scans share it: a rank's partial is its shard's ⊕-fold (with a flag: empty shards have none),
// one all-gather gives every rank all P partials, and one thread folds them in rank order, so the result does not
// depend on NCCL's algorithm or on timing: the same inputs give the same bits on every run.
#pragma once

#include <cuprim/core/error.hpp>
#include <cuprim/core/functional.cuh>
#include <cuprim/device/reduce.cuh>
#include <cuprim/multi/detail/nccl.hpp>
#include <cuprim/multi/sharded.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace cuprim::multi::detail {

/// A rank's fold of its shard; `has` is 0 for an empty shard (no value).
template <class Acc>
struct partial {
  Acc value;
  int has;
};

/// x ↦ {x as Acc, present}: lifts the elements so that any op folds empty shards without knowing its identity.
template <class Acc>
struct lift_partial {
  template <class T>
  CUPRIM_HD partial<Acc> operator()(const T& x) const {
    return {cuprim::detail::convert<Acc>(x), 1};
  }
};

/// op on partials: an absent side gives the other.
template <class Op>
struct partial_op {
  Op op;
  template <class Acc>
  CUPRIM_HD partial<Acc> operator()(const partial<Acc>& a, const partial<Acc>& b) const {
    if (!a.has) return b;
    if (!b.has) return a;
    return {op(a.value, b.value), 1};
  }
};

/// Whether op has an identity cuprim knows for Acc (then the local fold runs as a plain reduce, no lifting).
template <class Op, class Acc>
inline constexpr bool known_identity =
    std::is_arithmetic_v<Acc> && (std::is_same_v<Op, plus> || std::is_same_v<Op, multiplies> ||
                                  std::is_same_v<Op, minimum> || std::is_same_v<Op, maximum>);

template <class Op, class Acc>
constexpr Acc identity_of() {
  if constexpr (std::is_same_v<Op, plus>) return Acc(0);
  else if constexpr (std::is_same_v<Op, multiplies>) return Acc(1);
  else if constexpr (std::is_same_v<Op, minimum>) return numeric_traits<Acc>::highest();
  else return numeric_traits<Acc>::lowest();
}

/// Writes {fold of in[0, n), n > 0} to *p, ordered on `stream` (the device current).
template <class Acc, class In, class Op>
void local_partial(const In* in, std::int64_t n, partial<Acc>* p, Op op, cudaStream_t stream) {
  if constexpr (known_identity<Op, Acc>) {
    // The plain reduce writes the value; `has` is written by the fold (fold_partials: every partial counts).
    cuprim::reduce(in, &p->value, n, op, identity_of<Op, Acc>(), stream);
  } else {
    cuprim::transform_reduce(in, p, n, lift_partial<Acc>{}, partial_op<Op>{op}, partial<Acc>{Acc{}, 0}, stream);
  }
}

/// One thread: *out = init ⊕ p[0] ⊕ ... ⊕ p[upto - 1] (skipping absent partials; with AllPresent every partial
/// counts). Writes {value, has}: has is 0 only when there is no init and no partial.
template <bool AllPresent, class Acc, class Op>
__global__ void fold_partials_kernel(const partial<Acc>* p, int upto, Op op, Acc init, int has_init,
                                     partial<Acc>* out) {
  partial<Acc> r{init, has_init};
  const partial_op<Op> f{op};
  for (int i = 0; i < upto; ++i) r = f(r, partial<Acc>{p[i].value, AllPresent ? 1 : p[i].has});
  *out = r;
}

/// Every local rank's partials of a sharded array, gathered: per local rank i, gathered(i)[r] is rank r's partial
/// (P of them), in workspace on rank i's device. Ordered on the ranks' streams; nothing waits.
template <class Acc>
class gathered_partials {
public:
  template <class In, class Op>
  gathered_partials(const communicator& c, const sharded<In>& in, Op op)
      : buf_(c, std::int64_t((c.size() + 1) * sizeof(partial<Acc>))), size_(c.size()) {
    each_rank(c, [&](const local_rank& l, int i) {
      local_partial<Acc>(in[i].data, in[i].size, gathered(i) + l.rank, op, l.stream);
    });
    each_rank_grouped(c, [&](const local_rank& l, int i) {
      partial<Acc>* g = gathered(i);
      CUPRIM_NCCL_CHECK(ncclAllGather(g + l.rank, g, sizeof(partial<Acc>), ncclUint8, l.comm, l.stream));
    });
  }
  /// Local rank i's array of P partials.
  partial<Acc>* gathered(int i) { return reinterpret_cast<partial<Acc>*>(buf_.data(i)); }
  /// A slot after them, for a fold's result.
  partial<Acc>* result(int i) { return gathered(i) + size_; }

private:
  sharded_buffer<std::byte> buf_;
  int size_;
};

/// The rules every sharded argument follows: one shard per local rank, sizes ≥ 0, data where size > 0.
template <class T>
void check_shards(const char* fn, const char* arg, const communicator& c, const sharded<T>& s,
                  std::int64_t min_size = 0) {
  if (s.local_size() != c.local_size())
    throw invalid_argument(fn, arg, "must hold one shard per local rank of the communicator (" +
                                        std::to_string(c.local_size()) + "), has " + std::to_string(s.local_size()));
  for (const shard<T>& x : s) {
    if (x.size < min_size)
      throw invalid_argument(fn, arg, min_size > 0 ? "shards must hold at least " + std::to_string(min_size) +
                                                         " element(s)"
                                                   : std::string("shard sizes must be non-negative"));
    if (x.size > 0 && x.data == nullptr) throw invalid_argument(fn, arg, "a non-empty shard's data must not be null");
  }
}

}  // namespace cuprim::multi::detail
