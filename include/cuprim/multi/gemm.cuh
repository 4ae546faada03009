// cuprim/multi/gemm.cuh: the product of row-sharded matrices, C = alpha·A·B + beta·C over P GPUs (column-major).
//
//   cuprim::multi::gemm(comm, n, rows, inner, alpha, A, B, beta, C)
//
// The global C (m × n) = alpha · A (m × k) · B (k × n) + beta · C, every matrix column-major as in BLAS, every one
// sharded by rows: rank r holds
//   A_r  rows[r] × k      (lda = rows[r])      its rows of A
//   C_r  rows[r] × n      (ldc = rows[r])      the same rows of C
//   B_r  inner[r] × n     (ldb = inner[r])     rows off_r .. off_r + inner[r] - 1 of B (off_r = Σ_{j<r} inner[j])
// where rows[r] = m_r and inner[r] = k_r (both spans hold every rank's size, in rank order, the same on every rank)
// and k = Σ inner. Each rank needs all of B: C_r = beta·C_r + alpha · Σ_j A_r[:, K_j] · B_j, with A_r[:, K_j] the
// contiguous column block of A_r at A_r + off_j·m_r (ld m_r).
//
//   std::vector<std::int64_t> rows = cuprim::multi::even_split(m, comm.size());
//   std::vector<std::int64_t> inner = cuprim::multi::even_split(k, comm.size());
//   auto A = cuprim::multi::sharded_buffer<__nv_bfloat16>::for_ranks(comm, {rows[r]·k for every r});  ... B, C
//   cuprim::multi::gemm(comm, n, rows, inner, 1.0f, A.view(), B.view(), 0.0f, C.view());   // bf16 in, float C
//
// Types, as cuprim::blas::gemm has them: __nv_bfloat16 or __half A and B with C of the input type or float and
// float alpha, beta (tensor cores); float, or double, throughout (alpha and beta of the element type).
//
// Algorithm: a ring overlapped with compute. At step s = 0 .. P-1 rank r holds rank j = (r - s) mod P's block of B
// (its own first) and multiplies with it, C_r += alpha · A_r[:, K_j] · B_j (cuprim::blas::gemm on the rank's stream;
// the first product applies beta, the others add with beta = 1), while, on a second stream of the highest
// priority, it sends that block to rank r + 1 and receives the next one from rank r - 1 (ncclSend / ncclRecv in one
// NCCL group per step: with one process driving several GPUs, the calls of all its GPUs for a step form one group).
// Two receive buffers alternate; CUDA events order them: the product of step s waits for the receive of step s - 1,
// and the receive of step s + 1, into the buffer step s reads, waits for the product of step s. Empty blocks
// (inner[j] = 0) are neither moved nor multiplied. With 16-bit C the products accumulate in a float array of
// m_r × n per rank, rounded to C's type once at the end (C = that sum + beta·C): one rounding, as on one GPU.
// Each rank sums its blocks in the order r, r - 1, ..., r + 1 (mod P), the same on every run: the same inputs give
// the same bits. The sum differs from a one-GPU product only by that split of k into P blocks (the error bound of
// cuprim::blas::gemm with k, plus P roundings of the running sum for float and double C).
//
// Cost. Every rank moves (P - 1)/P of B through its link and multiplies m_r × n × k. Step s takes the longer of its
// product and its transfer, and the last step only multiplies, so a rank's time is about
//   max(local GEMM of m_r × n × k, ring transfer of (P - 1)/P of B)  plus one block's product (the last one's).
// The transfers are NCCL kernels, and the tensor-core product is a persistent grid that takes every SM it fits on:
// a transfer launched beside it could not start until it ended. So a product beside a transfer leaves R SMs to NCCL
// (CUPRIM_MULTI_GEMM_RESERVE_SMS, default 16; 0 turns it off) and runs correspondingly slower than alone; the last
// step's product, with nothing beside it, takes every SM (docs/multi.md has the measurements).
// The tensor-core kernel reads a block without a copy where its columns are 16-byte aligned with leading dimensions
// of whole 16-byte vectors: m_r and k_r multiples of 8 (for bf16 / half; 64 avoids a re-pack of large products);
// other sizes are correct, and take cuprim::blas::gemm's slower paths.
//
// Memory: per rank, two receive buffers of max_j(k_j)·n elements (none with one rank), and with 16-bit C a float
// array of m_r × n, all from the rank's resource (comm[i].resource), ordered on its stream. The local products'
// own temporaries (a split-k's sums, a re-packed operand) come from cuprim::current_resource() of each device, as
// cuprim::blas::gemm's plain form takes them.
//
// Ordering: every input is read and C written in the order of the communicator's streams (comm[i].stream); the
// call creates one stream and a few events per local rank (released when their work is done), joins that stream
// back into comm[i].stream before returning, and never waits on the host.
//
// Rules (cuprim::invalid_argument before anything runs): n ≥ 0; rows and inner hold comm.size() non-negative
// sizes; one shard per local rank in A, B and C; for local rank i of rank r, A[i].size = rows[r]·k,
// B[i].size = inner[r]·n, C[i].size = rows[r]·n; non-null data where a shard is not empty; C[i] overlaps neither
// A[i] nor B[i]. Empty shards (rows[r] = 0 or inner[r] = 0) are allowed. Every rank must pass the same n, rows and
// inner (across processes this cannot be checked: a mismatch hangs or corrupts the ring).
//
// detail::gemm_allgather (same arguments) is the simple path, for comparison: it broadcasts every block of B to
// every rank first (one NCCL group of P broadcasts on the rank's stream), then runs the same P products in the same
// order, with no overlap, in k·n elements of workspace per rank. Its results are the ring's bits wherever the
// blocks' alignment picks the same local kernels (as it does for shards from cuprim's pools: every block of either
// path starts on 256 bytes).
#pragma once

#include <cuprim/blas/gemm.cuh>
#include <cuprim/core/functional.cuh>
#include <cuprim/core/validate.hpp>
#include <cuprim/multi/detail/nccl.hpp>
#include <cuprim/multi/detail/partials.cuh>
#include <cuprim/multi/sharded.hpp>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace cuprim::multi {

namespace detail {

template <class T>
inline constexpr bool gemm_is_16bit = std::is_same_v<T, __nv_bfloat16> || std::is_same_v<T, __half>;

/// The element types cuprim::blas::gemm takes: 16-bit A and B with C of their type or float; float; double.
template <class T, class Out>
inline constexpr bool gemm_types = (gemm_is_16bit<T> && (std::is_same_v<Out, T> || std::is_same_v<Out, float>)) ||
                                   ((std::is_same_v<T, float> || std::is_same_v<T, double>) && std::is_same_v<Out, T>);

/// alpha's and beta's type: float for 16-bit inputs, the element type otherwise.
template <class T>
using gemm_scalar_t = std::conditional_t<gemm_is_16bit<T>, float, T>;

/// Where the products accumulate: float for 16-bit C (rounded to C once at the end), C's type otherwise.
template <class Out>
using gemm_acc_t = std::conditional_t<gemm_is_16bit<Out>, float, Out>;

/// The sizes of a call: every rank's rows and inner size, the first row of B of every rank's block (off[P] = k).
struct gemm_shape {
  int ranks = 0;
  std::int64_t n = 0, k = 0, inner_max = 0;
  std::vector<std::int64_t> rows, inner, off;
};

/// a·b, or invalid_argument naming `arg` when it does not fit in 64 bits (a, b ≥ 0).
inline std::int64_t gemm_product(const char* fn, const char* arg, std::int64_t a, std::int64_t b) {
  if (a != 0 && b > std::numeric_limits<std::int64_t>::max() / a)
    throw invalid_argument(fn, arg, "sizes whose products do not fit in 64 bits");
  return a * b;
}

inline std::vector<std::int64_t> gemm_sizes(const char* fn, const char* arg, const communicator& c,
                                            std::span<const std::int64_t> s) {
  if (int(s.size()) != c.size())
    throw invalid_argument(fn, arg, "must hold one size per rank (" + std::to_string(c.size()) + "), has " +
                                        std::to_string(s.size()));
  std::int64_t total = 0;
  for (std::int64_t x : s) {
    if (x < 0) throw invalid_argument(fn, arg, "sizes must be non-negative");
    if (x > std::numeric_limits<std::int64_t>::max() - total) throw invalid_argument(fn, arg, "sum overflows");
    total += x;
  }
  return {s.begin(), s.end()};
}

/// Every rule of the file comment; the shape of the call.
template <class T, class Out>
gemm_shape gemm_validate(const char* fn, const communicator& c, std::int64_t n, std::span<const std::int64_t> rows,
                         std::span<const std::int64_t> inner, const sharded<const T>& A, const sharded<const T>& B,
                         const sharded<Out>& C) {
  if (n < 0) throw invalid_argument(fn, "n", "must be non-negative");
  gemm_shape s;
  s.ranks = c.size();
  s.n = n;
  s.rows = gemm_sizes(fn, "rows", c, rows);
  s.inner = gemm_sizes(fn, "inner", c, inner);
  s.off = shard_offsets(s.inner);
  s.k = s.off.back();
  s.inner_max = *std::max_element(s.inner.begin(), s.inner.end());
  for (int r = 0; r < s.ranks; ++r) {  // every rank's shard sizes fit (the ring moves the others' blocks)
    gemm_product(fn, "rows", s.rows[std::size_t(r)], std::max(s.k, n));
    gemm_product(fn, "inner", s.inner[std::size_t(r)], n);
  }
  check_shards(fn, "A", c, A);
  check_shards(fn, "B", c, B);
  check_shards(fn, "C", c, C);
  for (int i = 0; i < c.local_size(); ++i) {
    const std::size_t r = std::size_t(c[i].rank);
    const std::int64_t m_r = s.rows[r], k_r = s.inner[r];
    if (A[i].size != gemm_product(fn, "A", m_r, s.k))
      throw invalid_argument(fn, "A", "shard sizes must be rows[r]·k (k = the sum of inner)");
    if (B[i].size != gemm_product(fn, "B", k_r, n)) throw invalid_argument(fn, "B", "shard sizes must be inner[r]·n");
    if (C[i].size != gemm_product(fn, "C", m_r, n)) throw invalid_argument(fn, "C", "shard sizes must be rows[r]·n");
    cuprim::detail::check_size(fn, "A", A[i].size, sizeof(T));
    cuprim::detail::check_size(fn, "B", B[i].size, sizeof(T));
    cuprim::detail::check_size(fn, "C", C[i].size, sizeof(gemm_acc_t<Out>));
    using cuprim::detail::read_only;
    using cuprim::detail::written;
    cuprim::detail::check_overlaps(fn, {{"A", A[i].data, std::size_t(A[i].size) * sizeof(T), read_only},
                                        {"B", B[i].data, std::size_t(B[i].size) * sizeof(T), read_only},
                                        {"C", C[i].data, std::size_t(C[i].size) * sizeof(Out), written}});
  }
  return s;
}

/// c[x] = acc[x] + beta·c[x] rounded to C's type (c not read when beta = 0).
template <class Out>
__global__ void gemm_round_kernel(const float* acc, Out* c, std::int64_t count, float beta) {
  for (std::int64_t x = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; x < count;
       x += std::int64_t(gridDim.x) * blockDim.x) {
    float v = acc[x];
    if (beta != 0.0f) v = fmaf(beta, cuprim::detail::convert<float>(c[x]), v);
    c[x] = cuprim::detail::convert<Out>(v);
  }
}

/// Elements of a block's buffer rounded up to 256 bytes, so every block starts where the tensor-core kernel reads it.
template <class T>
std::int64_t gemm_block_stride(std::int64_t elements) {
  constexpr std::int64_t per = 256 / std::int64_t(sizeof(T));
  return (elements + per - 1) / per * per;
}

/// SMs the products leave to NCCL's kernels while the ring moves B (P > 1): CUPRIM_MULTI_GEMM_RESERVE_SMS when set
/// (0 turns the reserve off), else gemm_default_reserved_sms.
inline constexpr int gemm_default_reserved_sms = 16;
inline int gemm_reserved_sms() {
  if (const char* v = std::getenv("CUPRIM_MULTI_GEMM_RESERVE_SMS"); v != nullptr && *v != '\0')
    return std::max(0, std::atoi(v));
  return gemm_default_reserved_sms;
}

/// The block products of every local rank: add() multiplies A_r's columns of rank j's block by that block and adds
/// the result to C_r (the first product applies beta), on the rank's stream; finish() rounds 16-bit C.
template <class T, class Out>
class gemm_blocks {
public:
  using S = gemm_scalar_t<T>;
  using Acc = gemm_acc_t<Out>;
  static constexpr bool rounds = !std::is_same_v<Acc, Out>;

  gemm_blocks(const communicator& c, const gemm_shape& s, S alpha, const sharded<const T>& A, S beta,
              const sharded<Out>& C)
      : s_(s), alpha_(alpha), beta_(beta), A_(A), C_(C), added_(std::size_t(c.local_size()), false) {
    if constexpr (rounds) {
      std::vector<std::int64_t> sizes;
      for (const local_rank& l : c.locals()) sizes.push_back(s.rows[std::size_t(l.rank)] * s.n);
      acc_ = sharded_buffer<float>(c, sizes);
    }
  }

  /// Local rank i's product with rank j's block of B at b (inner[j] × n, ld inner[j]). `last`: its final block (an
  /// empty block is skipped, unless every block was: then one k = 0 product applies beta). `beside_transfer`: an
  /// NCCL transfer runs beside this product (the product then leaves it SMs, gemm_reserved_sms).
  void add(const local_rank& l, int i, int j, const T* b, bool last, bool beside_transfer) {
    const std::int64_t k_j = s_.inner[std::size_t(j)], m_r = s_.rows[std::size_t(l.rank)];
    const bool first = !added_[std::size_t(i)];
    if (k_j == 0 && !(last && first)) return;
    const T* a = A_[i].data + s_.off[std::size_t(j)] * m_r;
    const S beta = !first ? S(1) : rounds ? S(0) : beta_;  // 16-bit C: the float sum starts at zero
    const std::int64_t ld = std::max<std::int64_t>(1, m_r);
    // Beside a transfer, the product's persistent grid leaves NCCL's kernels SMs of their own (gemm_reserved_sms),
    // or the transfer would wait for the product to end.
    const cuprim::detail::gemm_sm_reserve reserve(beside_transfer ? gemm_reserved_sms() : 0);
    cuprim::blas::gemm(blas::op::N, blas::op::N, m_r, s_.n, k_j, alpha_, a, ld, b, std::max<std::int64_t>(1, k_j),
                       beta, target(i), ld, l.stream);
    added_[std::size_t(i)] = true;
  }

  /// After the last add of local rank i: C = the float sum + beta·C, rounded (16-bit C only).
  void finish(const char* fn, const local_rank& l, int i) {
    if constexpr (rounds) {
      const std::int64_t count = C_[i].size;
      if (count == 0) return;
      const unsigned blocks = unsigned(std::min<std::int64_t>((count + 255) / 256, 4096));
      gemm_round_kernel<<<blocks, 256, 0, l.stream>>>(acc_.data(i), C_[i].data, count, float(beta_));
      cuprim::detail::check_launch(fn);
    }
  }

private:
  Acc* target(int i) {
    if constexpr (rounds) return acc_.data(i);
    else return C_[i].data;
  }

  const gemm_shape& s_;
  S alpha_, beta_;
  const sharded<const T>& A_;
  const sharded<Out>& C_;
  std::vector<bool> added_;
  sharded_buffer<float> acc_;  // 16-bit C: the float sums
};

/// One local rank's side of the ring: a second stream (highest priority, so that its NCCL kernels start while a
/// product holds the SMs) and the events ordering it against the rank's stream. open() forks it from the rank's
/// stream (after the ring's buffers are allocated there); the destructor joins it back (also when a call throws
/// half-way), so the buffers, freed later on the rank's stream, outlive every transfer, and releases it.
class ring_lane {
public:
  ring_lane() = default;
  ring_lane(const ring_lane&) = delete;
  ring_lane& operator=(const ring_lane&) = delete;
  ~ring_lane() {
    if (stream == nullptr) return;
    int previous = 0;
    cudaGetDevice(&previous);
    cudaSetDevice(device_);
    if (join_ && cudaEventRecord(join_, stream) == cudaSuccess) cudaStreamWaitEvent(main_, join_, 0);
    for (auto* v : {&received, &consumed})
      for (cudaEvent_t e : *v)
        if (e) cudaEventDestroy(e);
    if (join_) cudaEventDestroy(join_);
    cudaStreamDestroy(stream);
    cudaSetDevice(previous);
  }

  /// Creates the stream and the events of `steps` steps on l's device (current), and forks from l.stream.
  void open(const local_rank& l, int steps) {
    device_ = l.device;
    main_ = l.stream;
    int least = 0, greatest = 0;
    CUPRIM_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    CUPRIM_CUDA_CHECK(cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking, greatest));
    CUPRIM_CUDA_CHECK(cudaEventCreateWithFlags(&join_, cudaEventDisableTiming));
    for (auto* v : {&received, &consumed})
      for (int s = 0; s < steps; ++s) {
        v->push_back(nullptr);
        CUPRIM_CUDA_CHECK(cudaEventCreateWithFlags(&v->back(), cudaEventDisableTiming));
      }
    after(stream, main_, join_);  // join_ serves as the fork here: it is recorded again at the end
  }

  /// `waiter` waits for the work issued so far on `on`, through event e.
  static void after(cudaStream_t waiter, cudaStream_t on, cudaEvent_t e) {
    CUPRIM_CUDA_CHECK(cudaEventRecord(e, on));
    CUPRIM_CUDA_CHECK(cudaStreamWaitEvent(waiter, e, 0));
  }

  cudaStream_t stream = nullptr;      ///< the transfers' stream
  std::vector<cudaEvent_t> received;  ///< received[s]: on `stream`, after step s's send and receive
  std::vector<cudaEvent_t> consumed;  ///< consumed[s]: on the rank's stream, after step s's product

private:
  int device_ = 0;
  cudaStream_t main_ = nullptr;
  cudaEvent_t join_ = nullptr;
};

/// The ring of the file comment, after validation.
template <class T, class Out>
void gemm_ring(const char* fn, const communicator& c, const gemm_shape& s, gemm_scalar_t<T> alpha,
               const sharded<const T>& A, const sharded<const T>& B, gemm_scalar_t<T> beta, const sharded<Out>& C) {
  const int P = s.ranks;
  const auto mod = [P](int x) { return ((x % P) + P) % P; };
  const auto count = [&](int j) { return std::size_t(s.inner[std::size_t(j)] * s.n); };
  // Two receive buffers per rank, each of the largest block (none with one rank: nothing moves).
  const std::int64_t stride = P > 1 ? gemm_block_stride<T>(s.inner_max * s.n) : 0;
  sharded_buffer<T> recv(c, 2 * stride);
  gemm_blocks<T, Out> blocks(c, s, alpha, A, beta, C);
  std::vector<ring_lane> lanes(std::size_t(c.local_size()));  // after the buffers: joined before they are freed
  if (P > 1) each_rank(c, [&](const local_rank& l, int i) { lanes[std::size_t(i)].open(l, P); });

  // The block local rank i holds at step s: its own B first, then what step s - 1 received.
  const auto held = [&](int i, int step) -> const T* {
    return step == 0 ? B[i].data : recv.data(i) + std::int64_t((step - 1) % 2) * stride;
  };
  for (int step = 0; step < P; ++step) {
    const bool moves = step + 1 < P;  // the last step only multiplies
    if (moves) {
      // The receive of this step overwrites the buffer the product of step - 1 read: wait for that product.
      if (step > 0)
        each_rank(c, [&](const local_rank&, int i) {
          ring_lane& x = lanes[std::size_t(i)];
          CUPRIM_CUDA_CHECK(cudaStreamWaitEvent(x.stream, x.consumed[std::size_t(step - 1)], 0));
        });
      // Send the held block (rank r - step's) to r + 1; receive rank r - step - 1's from r - 1. Both ends skip an
      // empty block alike.
      each_rank_grouped(c, [&](const local_rank& l, int i) {
        const int r = l.rank, j = mod(r - step), next = mod(r - step - 1);
        cudaStream_t t = lanes[std::size_t(i)].stream;
        if (count(j) > 0)
          CUPRIM_NCCL_CHECK(ncclSend(held(i, step), count(j), nccl_type<T>(), mod(r + 1), l.comm, t));
        if (count(next) > 0)
          CUPRIM_NCCL_CHECK(ncclRecv(recv.data(i) + std::int64_t(step % 2) * stride, count(next), nccl_type<T>(),
                                     mod(r - 1), l.comm, t));
      });
    }
    each_rank(c, [&](const local_rank& l, int i) {
      ring_lane& x = lanes[std::size_t(i)];
      // The held block arrived with step - 1's receive. (This wait is issued before received[step] is recorded.)
      if (step > 0) CUPRIM_CUDA_CHECK(cudaStreamWaitEvent(l.stream, x.received[std::size_t(step - 1)], 0));
      if (moves) CUPRIM_CUDA_CHECK(cudaEventRecord(x.received[std::size_t(step)], x.stream));  // after the group
      blocks.add(l, i, mod(l.rank - step), held(i, step), step + 1 == P, moves);
      if (step + 2 < P) CUPRIM_CUDA_CHECK(cudaEventRecord(x.consumed[std::size_t(step)], l.stream));
    });
  }
  each_rank(c, [&](const local_rank& l, int i) { blocks.finish(fn, l, i); });
}  // lanes join their streams into the ranks' streams, then the buffers are freed there

/// The simple path (file comment): every block of B broadcast to every rank, then the ring's products, in its order.
template <class T, class Out>
void gemm_allgather(const communicator& c, std::int64_t n, std::span<const std::int64_t> rows,
                    std::span<const std::int64_t> inner, gemm_scalar_t<T> alpha, const sharded<const T>& A,
                    const sharded<const T>& B, gemm_scalar_t<T> beta, const sharded<Out>& C) {
  static_assert(gemm_types<T, Out>, "cuprim::multi::gemm: bf16 or half in (C of that type or float), float, double");
  CUPRIM_ENTRY_NAME(fn);
  const gemm_shape s = gemm_validate(fn, c, n, rows, inner, A, B, C);
  const int P = s.ranks;
  std::vector<std::int64_t> at(std::size_t(P) + 1, 0);  // block j at at[j] of the gathered buffer
  for (int j = 0; j < P; ++j)
    at[std::size_t(j) + 1] = at[std::size_t(j)] + gemm_block_stride<T>(s.inner[std::size_t(j)] * n);
  sharded_buffer<T> all(c, at.back());
  gemm_blocks<T, Out> blocks(c, s, alpha, A, beta, C);
  each_rank_grouped(c, [&](const local_rank& l, int i) {
    for (int j = 0; j < P; ++j) {
      const std::size_t cnt = std::size_t(s.inner[std::size_t(j)] * n);
      T* dst = all.data(i) + at[std::size_t(j)];
      if (cnt > 0)
        CUPRIM_NCCL_CHECK(ncclBroadcast(j == l.rank ? static_cast<const void*>(B[i].data) : dst, dst, cnt,
                                        nccl_type<T>(), j, l.comm, l.stream));
    }
  });
  each_rank(c, [&](const local_rank& l, int i) {
    for (int step = 0; step < P; ++step) {
      const int j = ((l.rank - step) % P + P) % P;
      blocks.add(l, i, j, all.data(i) + at[std::size_t(j)], step + 1 == P, false);
    }
    blocks.finish(fn, l, i);
  });
}

}  // namespace detail

/// C = alpha·A·B + beta·C over row-sharded A, B and C (see the file comment).
template <class T, class Out>
  requires detail::gemm_types<T, Out>
void gemm(const communicator& c, std::int64_t n, std::span<const std::int64_t> rows,
          std::span<const std::int64_t> inner, detail::gemm_scalar_t<T> alpha, const sharded<const T>& A,
          const sharded<const T>& B, detail::gemm_scalar_t<T> beta, const sharded<Out>& C) {
  CUPRIM_ENTRY_NAME(fn);
  const detail::gemm_shape s = detail::gemm_validate(fn, c, n, rows, inner, A, B, C);
  detail::gemm_ring(fn, c, s, alpha, A, B, beta, C);
}

/// gemm of non-const views of A and B.
template <class T, class Out>
  requires detail::gemm_types<T, Out>
void gemm(const communicator& c, std::int64_t n, std::span<const std::int64_t> rows,
          std::span<const std::int64_t> inner, detail::gemm_scalar_t<T> alpha, const sharded<T>& A,
          const sharded<T>& B, detail::gemm_scalar_t<T> beta, const sharded<Out>& C) {
  gemm<T, Out>(c, n, rows, inner, alpha, sharded<const T>(A), sharded<const T>(B), beta, C);
}

}  // namespace cuprim::multi
