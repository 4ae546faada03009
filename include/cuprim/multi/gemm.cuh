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
// Algorithm: column panels, each gathered while the previous one is multiplied. n is cut into Q panels of whole
// 128-column groups (CUPRIM_MULTI_GEMM_PANELS, default 4). For panel q (columns n_q .. n_q + w - 1), every rank's
// rows of it, B_j[:, panel] (inner[j] × w, contiguous), go to every rank: one ncclAllGather where every rank holds as
// many rows of B, else P ncclBroadcast (one NCCL group per panel; with one process driving several GPUs, the calls
// of all its GPUs). Copy-engine 2-D copies (cudaMemcpy2DAsync, no SMs; a copy per column where k·sizeof(T) passes
// the device's largest pitch) then assemble the panel as one k × w matrix, and each rank computes its rows of C's
// panel with the whole k at once,
//   C_r[:, panel] = alpha · A_r · B[:, panel] + beta · C_r[:, panel]        (cuprim::blas::gemm on its stream)
// so every element of C is written once and rounded once, 16-bit C included, as on one GPU. The gathers and the
// copies run on a second stream of the highest priority, one panel ahead of the products; CUDA events order them
// (a product waits for its panel; the copies into one of the two panel buffers wait for the product that read it
// two panels before). The same inputs give the same bits on every run. The result differs from a one-GPU product
// only where the panels' shapes pick other local kernels (the error bound of cuprim::blas::gemm with k).
//
// Cost. Every rank receives (P - 1)/P of B and multiplies m_r × n × k, so its time is about
//   the first panel's gather + max(its local GEMM, the other panels' gathers).
// The tensor-core product is a persistent grid that takes every SM it fits on: an NCCL kernel launched beside it
// could not start until it ended. So a product beside a gather is launched without a persistent grid, one cluster
// per tile, and the gather's kernels (of the higher-priority stream) take SMs as tiles finish
// (CUPRIM_MULTI_GEMM_RESERVE_SMS = -1, the default). A positive R instead caps the product's persistent grid R SMs
// short of the GPU and runs the gathers on second NCCL communicators of the same ranks whose kernels take at most R
// CTAs (communicator::side_comms, made by the first call); 0 does neither. The first panel's gather, with nothing
// beside it, takes the ranks' own communicators; the last panel's product takes every SM. On four H200s (16384^3,
// bf16): R = -1 with 4 panels 4.12 ms, R = 16 with 4 panels 4.32 ms, with 8 panels 4.65 ms; docs/multi.md has the
// rest.
// The tensor-core kernel reads a panel without a copy where m_r and k are multiples of 8 (bf16 / half; 64 avoids a
// re-pack of large products); other sizes are correct, and take cuprim::blas::gemm's slower paths.
//
// Memory: per rank (none with one rank), one panel's gathered blocks and two assembled panels, about 3·k·n/Q
// elements, from the rank's resource (comm[i].resource), ordered on its stream; with R > 0, the NCCL buffers of the
// side communicators (kept with the communicator). The local products' own temporaries (a split-k's sums, a re-packed
// operand) come from cuprim::current_resource() of each device, as cuprim::blas::gemm's plain form takes them.
//
// Ordering: every input is read and C written in the order of the communicator's streams (comm[i].stream); the
// call creates one stream and a few events per local rank (released when their work is done), joins that stream
// back into comm[i].stream before returning, and never waits on the host (with R > 0, but in the first call on a
// communicator, which makes its side communicators: communicator::side_comms waits for the ranks' streams).
//
// Rules (cuprim::invalid_argument before anything runs): n ≥ 0; rows and inner hold comm.size() non-negative
// sizes; one shard per local rank in A, B and C; for local rank i of rank r, A[i].size = rows[r]·k,
// B[i].size = inner[r]·n, C[i].size = rows[r]·n; non-null data where a shard is not empty; C[i] overlaps neither
// A[i] nor B[i]. Empty shards (rows[r] = 0 or inner[r] = 0) are allowed. Every rank must pass the same n, rows and
// inner (across processes this cannot be checked: a mismatch hangs or corrupts the gathers).
//
// detail::gemm_allgather (same arguments) is the simple path, for comparison: the same panels, gathers, copies and
// products, one after the other on the ranks' streams and communicators (no overlap, no reserved SMs). Its results
// are gemm's bits.
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
  for (int r = 0; r < s.ranks; ++r) {  // every rank's shard sizes fit (the gathers move the others' blocks)
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
    cuprim::detail::check_size(fn, "C", C[i].size, sizeof(Out));
    using cuprim::detail::read_only;
    using cuprim::detail::written;
    cuprim::detail::check_overlaps(fn, {{"A", A[i].data, std::size_t(A[i].size) * sizeof(T), read_only},
                                        {"B", B[i].data, std::size_t(B[i].size) * sizeof(T), read_only},
                                        {"C", C[i].data, std::size_t(C[i].size) * sizeof(Out), written}});
  }
  return s;
}

/// Elements of a block's buffer rounded up to 256 bytes, so every block starts where the tensor-core kernel reads it.
template <class T>
std::int64_t gemm_block_stride(std::int64_t elements) {
  constexpr std::int64_t per = 256 / std::int64_t(sizeof(T));
  return (elements + per - 1) / per * per;
}

/// SMs a product leaves to the NCCL kernels of the next panel's gather (P > 1), and the most CTAs those kernels
/// take: CUPRIM_MULTI_GEMM_RESERVE_SMS when set, else gemm_default_reserved_sms. 0: no reserve (the gather waits
/// for SMs); negative (-1): no persistent grid beside a gather (one cluster per tile, the gather's kernels take SMs
/// as tiles finish), the gather on the ranks' own communicators.
inline constexpr int gemm_default_reserved_sms = -1;
inline int gemm_reserved_sms() {
  if (const char* v = std::getenv("CUPRIM_MULTI_GEMM_RESERVE_SMS"); v != nullptr && *v != '\0')
    return std::max(-1, std::atoi(v));
  return gemm_default_reserved_sms;
}

/// The number of column panels n is cut into (P > 1): CUPRIM_MULTI_GEMM_PANELS when set, else
/// gemm_default_panels; at least 1, and no panel narrower than gemm_panel_granule columns (but the last).
inline constexpr int gemm_default_panels = 4;
inline constexpr std::int64_t gemm_panel_granule = 128;
inline std::vector<std::int64_t> gemm_panel_starts(std::int64_t n) {
  int q = gemm_default_panels;
  if (const char* v = std::getenv("CUPRIM_MULTI_GEMM_PANELS"); v != nullptr && *v != '\0') q = std::atoi(v);
  q = std::max(1, q);
  const std::int64_t per = (n + q - 1) / q, width = std::max(gemm_panel_granule,
                                                            (per + gemm_panel_granule - 1) / gemm_panel_granule *
                                                                gemm_panel_granule);
  std::vector<std::int64_t> at{0};
  while (at.back() < n) at.push_back(std::min(n, at.back() + width));
  if (n == 0) at.push_back(0);  // one empty panel: the product still applies beta
  return at;
}

/// The largest pitch, in bytes, the panels' 2-D copies take when set (> 0): below the device's own limit
/// (cudaDevAttrMaxPitch, about 2 GiB), so that tests reach the column-by-column copies longer columns take.
inline std::int64_t gemm_max_copy_pitch = 0;

/// Where rank j's block of a panel w columns wide (inner[j] × w, ld inner[j]) lands in the gathered buffer: one
/// all-gather packs the blocks where every rank holds as many rows of B, else P broadcasts start each on 256 bytes.
template <class T>
struct gemm_gather_plan {
  const gemm_shape& s;
  bool allgather;

  explicit gemm_gather_plan(const gemm_shape& shape)
      : s(shape), allgather(std::all_of(s.inner.begin(), s.inner.end(),
                                        [&](std::int64_t x) { return x == shape.inner[0]; })) {}
  std::int64_t offset(int j, std::int64_t w) const {
    if (allgather) return std::int64_t(j) * s.inner[0] * w;
    std::int64_t at = 0;
    for (int x = 0; x < j; ++x) at += gemm_block_stride<T>(s.inner[std::size_t(x)] * w);
    return at;
  }
  std::int64_t elements(std::int64_t w) const { return offset(s.ranks, w); }
};

/// One local rank's transfer lane: a second stream (highest priority) and the events ordering it against the rank's
/// stream. open() forks it from the rank's stream (after the call's buffers are allocated there); the destructor
/// joins it back (also when a call throws half-way), so the buffers, freed later on the rank's stream, outlive every
/// transfer, and releases it.
class transfer_lane {
public:
  transfer_lane() = default;
  transfer_lane(const transfer_lane&) = delete;
  transfer_lane& operator=(const transfer_lane&) = delete;
  ~transfer_lane() {
    if (stream == nullptr) return;
    int previous = 0;
    cudaGetDevice(&previous);
    cudaSetDevice(device_);
    if (join_ && cudaEventRecord(join_, stream) == cudaSuccess) cudaStreamWaitEvent(main_, join_, 0);
    for (auto* v : {&ready, &consumed})
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
    for (auto* v : {&ready, &consumed})
      for (int s = 0; s < steps; ++s) {
        v->push_back(nullptr);
        CUPRIM_CUDA_CHECK(cudaEventCreateWithFlags(&v->back(), cudaEventDisableTiming));
      }
    CUPRIM_CUDA_CHECK(cudaEventRecord(join_, main_));  // join_ serves as the fork here: it is recorded again at the end
    CUPRIM_CUDA_CHECK(cudaStreamWaitEvent(stream, join_, 0));
  }

  cudaStream_t stream = nullptr;      ///< the transfers' stream
  std::vector<cudaEvent_t> ready;     ///< ready[q]: on `stream`, after panel q's B is assembled
  std::vector<cudaEvent_t> consumed;  ///< consumed[q]: on the rank's stream, after panel q's product

private:
  int device_ = 0;
  cudaStream_t main_ = nullptr;
  cudaEvent_t join_ = nullptr;
};

/// The panels of the file comment, after validation. `overlap` false: everything on the ranks' own streams and
/// NCCL communicators, one panel after the other (detail::gemm_allgather: the same calls, without the overlap).
template <class T, class Out>
void gemm_panels(const communicator& c, const gemm_shape& s, gemm_scalar_t<T> alpha,
                 const sharded<const T>& A, const sharded<const T>& B, gemm_scalar_t<T> beta, const sharded<Out>& C,
                 bool overlap) {
  const int P = s.ranks;
  const std::int64_t n = s.n, k = s.k;
  const auto product = [&](const local_rank& l, int i, const T* b, std::int64_t ldb, std::int64_t col,
                           std::int64_t w, int reserve) {
    const std::int64_t m_r = s.rows[std::size_t(l.rank)], ld = std::max<std::int64_t>(1, m_r);
    const cuprim::detail::gemm_sm_reserve keep(reserve);
    cuprim::blas::gemm(blas::op::N, blas::op::N, m_r, w, k, alpha, A[i].data, ld, b, ldb, beta,
                       C[i].data + col * m_r, ld, l.stream);
  };
  if (P == 1) {  // one rank: the local product, nothing to move
    each_rank(c, [&](const local_rank& l, int i) { product(l, i, B[i].data, std::max<std::int64_t>(1, k), 0, n, 0); });
    return;
  }
  const std::vector<std::int64_t> at = gemm_panel_starts(n);
  const int Q = int(at.size()) - 1;
  std::int64_t widest = 0;
  for (int q = 0; q < Q; ++q) widest = std::max(widest, at[std::size_t(q) + 1] - at[std::size_t(q)]);
  const gemm_gather_plan<T> g(s);
  const std::int64_t gathered = gemm_block_stride<T>(g.elements(widest));  // the blocks of one panel
  const std::int64_t panel = gemm_block_stride<T>(k * widest);  // one assembled panel of B, k × w (ld k)
  sharded_buffer<T> work(c, gathered + 2 * panel);              // the gathered blocks, then two panels
  const int reserve = overlap ? gemm_reserved_sms() : 0;  // negative: data-parallel products, no side comms
  const std::vector<ncclComm_t> side = reserve > 0 ? c.side_comms(reserve) : std::vector<ncclComm_t>{};
  std::vector<transfer_lane> lanes(std::size_t(c.local_size()));  // after the buffers: joined before they are freed
  if (overlap) each_rank(c, [&](const local_rank& l, int i) { lanes[std::size_t(i)].open(l, Q); });
  const auto lane = [&](const local_rank& l, int i) { return overlap ? lanes[std::size_t(i)].stream : l.stream; };
  const auto assembled = [&](int i, int q) { return work.data(i) + gathered + std::int64_t(q % 2) * panel; };
  // Bytes, per local rank: the 2-D copies' largest pitch, asked of the device only for columns past 1 GiB (each
  // current device takes 2^31 - 1).
  std::vector<std::int64_t> pitch_limit(std::size_t(c.local_size()), std::numeric_limits<std::int64_t>::max());
  if (k * std::int64_t(sizeof(T)) > (std::int64_t(1) << 30) || gemm_max_copy_pitch > 0)
    each_rank(c, [&](const local_rank& l, int i) {
      int v = 0;
      CUPRIM_CUDA_CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMaxPitch, l.device));
      pitch_limit[std::size_t(i)] = gemm_max_copy_pitch > 0 ? std::min<std::int64_t>(v, gemm_max_copy_pitch) : v;
    });

  for (int q = 0; q < Q; ++q) {
    const std::int64_t col = at[std::size_t(q)], w = at[std::size_t(q) + 1] - col;
    // Gather: every rank's rows of B's panel q (inner[j] × w, contiguous at B_j + col·inner[j]) to every rank.
    each_rank_grouped(c, [&](const local_rank& l, int i) {
      if (w == 0 || k == 0) return;
      // The first panel's gather has nothing beside it: the ranks' own communicators, with all their CTAs.
      ncclComm_t comm = side.empty() || q == 0 ? l.comm : side[std::size_t(i)];
      T* to = work.data(i);
      if (g.allgather) {
        const std::int64_t kj = s.inner[0];
        CUPRIM_NCCL_CHECK(ncclAllGather(B[i].data + col * kj, to, std::size_t(kj * w), nccl_type<T>(), comm,
                                        lane(l, i)));
      } else {
        for (int j = 0; j < P; ++j) {
          const std::int64_t kj = s.inner[std::size_t(j)];
          if (kj == 0) continue;
          const T* send = j == l.rank ? B[i].data + col * kj : nullptr;
          CUPRIM_NCCL_CHECK(ncclBroadcast(send, to + g.offset(j, w), std::size_t(kj * w),
                                          nccl_type<T>(), j, comm, lane(l, i)));
        }
      }
    });
    // Assemble panel q of B (k × w, ld k) from the gathered blocks, by copy engine (2-D copies, no SMs), into the
    // buffer the product of panel q - 2 read; then the product, which waits for it.
    each_rank(c, [&](const local_rank& l, int i) {
      cudaStream_t t = lane(l, i);
      T* b = assembled(i, q);
      if (overlap && q >= 2) CUPRIM_CUDA_CHECK(cudaStreamWaitEvent(t, lanes[std::size_t(i)].consumed[std::size_t(q - 2)], 0));
      for (int j = 0; j < P && w > 0; ++j) {
        const std::int64_t kj = s.inner[std::size_t(j)];
        if (kj == 0) continue;
        const T* from = work.data(i) + g.offset(j, w);
        T* to = b + s.off[std::size_t(j)];
        if (k * std::int64_t(sizeof(T)) <= pitch_limit[std::size_t(i)]) {
          CUPRIM_CUDA_CHECK(cudaMemcpy2DAsync(to, std::size_t(k) * sizeof(T), from, std::size_t(kj) * sizeof(T),
                                              std::size_t(kj) * sizeof(T), std::size_t(w), cudaMemcpyDeviceToDevice,
                                              t));
        } else {  // columns longer than a 2-D copy's pitch may be: one copy a column
          for (std::int64_t col = 0; col < w; ++col)
            CUPRIM_CUDA_CHECK(cudaMemcpyAsync(to + col * k, from + col * kj, std::size_t(kj) * sizeof(T),
                                              cudaMemcpyDeviceToDevice, t));
        }
      }
      if (overlap) {
        transfer_lane& x = lanes[std::size_t(i)];
        CUPRIM_CUDA_CHECK(cudaEventRecord(x.ready[std::size_t(q)], t));
        CUPRIM_CUDA_CHECK(cudaStreamWaitEvent(l.stream, x.ready[std::size_t(q)], 0));
      }
      // Beside the next panel's gather, the product's persistent grid leaves its NCCL kernels `reserve` SMs.
      product(l, i, b, std::max<std::int64_t>(1, k), col, w, q + 1 < Q ? reserve : 0);
      if (overlap) CUPRIM_CUDA_CHECK(cudaEventRecord(lanes[std::size_t(i)].consumed[std::size_t(q)], l.stream));
    });
  }
}  // lanes join their streams into the ranks' streams, then the buffers are freed there

/// The same panels, gathers and products as multi::gemm, one after the other on the ranks' streams (no overlap, no
/// reserved SMs): the simple form, for comparison. Its results are multi::gemm's bits.
template <class T, class Out>
void gemm_allgather(const communicator& c, std::int64_t n, std::span<const std::int64_t> rows,
                    std::span<const std::int64_t> inner, gemm_scalar_t<T> alpha, const sharded<const T>& A,
                    const sharded<const T>& B, gemm_scalar_t<T> beta, const sharded<Out>& C) {
  static_assert(gemm_types<T, Out>, "cuprim::multi::gemm: bf16 or half in (C of that type or float), float, double");
  CUPRIM_ENTRY_NAME(fn);
  const gemm_shape s = gemm_validate(fn, c, n, rows, inner, A, B, C);
  gemm_panels(c, s, alpha, A, B, beta, C, false);
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
  detail::gemm_panels(c, s, alpha, A, B, beta, C, true);
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
