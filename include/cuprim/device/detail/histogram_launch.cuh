// cuprim/device/detail/histogram_launch.cuh: running a validated histogram call: the binners built from its
// levels (edges carried to the workspace in kernel parameters), the outputs zeroed, and the kernel of its plan
// launched over slices of the input, as the zeroing's programmatic dependent launch.
#pragma once

#include <cuprim/core/device.hpp>
#include <cuprim/core/error.hpp>
#include <cuprim/core/memory.hpp>
#include <cuprim/core/policy.hpp>
#include <cuprim/core/validate.hpp>
#include <cuprim/device/detail/histogram_kernel.cuh>
#include <cuprim/device/detail/histogram_plan.cuh>
#include <cuprim/device/detail/histogram_tuning.cuh>
#include <cuprim/device/detail/launch.cuh>

#include <algorithm>
#include <array>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace cuprim::detail {

/// Launches `kernel` (threads per block) over a call's samples as `plan` says: slices of at most 2^31 samples per
/// block, so that no block's 32-bit shared counters can overflow within one launch; the first slice as the
/// zeroing's dependent launch when p.dependent.
template <class S, class B, class C>
void hist_launch(const char* fn, void (*kernel)(hist_params<S, B, C>), hist_params<S, B, C> p,
                 const histogram_plan& plan, int threads, std::uint64_t total, cudaStream_t stream) {
  const std::size_t smem = plan.shared_bytes;
  p.copies = plan.copies;
  allow_dynamic_smem(kernel, smem);
  std::uint64_t grid;
  if (plan.persistent) {
    int per_sm = 0;
    CUPRIM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem));
    grid = std::uint64_t(std::max(per_sm, 1)) * get_device_info().sm_count;
  } else {
    const std::uint64_t per_block = std::uint64_t(threads) * 64;
    grid = std::min<std::uint64_t>(std::max<std::uint64_t>(1, (total + per_block - 1) / per_block), 1u << 30);
  }
  const std::uint64_t slice = grid << 31;
  const S* base = p.in;
  for (std::uint64_t first = 0; first < total; first += slice) {
    p.in = base + first;
    p.first = first;
    p.n = std::min(slice, total - first);
    const auto g = static_cast<unsigned>(std::min<std::uint64_t>(grid, (p.n + threads - 1) / threads));
    if (p.dependent && first == 0) {
      launch_dependent_smem(fn, kernel, g, unsigned(threads), smem, stream, p);
    } else {
      kernel<<<g, unsigned(threads), smem, stream>>>(p);
      check_launch(fn);
    }
  }
}

/// The production kernel of layout L for binner B under policy P (instantiated with the fields it reads).
template <histogram_policy P, hist_layout L, class S, class B, class C>
inline constexpr auto hist_kernel_of = histogram_kernel<
    policy_constant<histogram_kernel_policy(P, L == hist_layout::lanes && hist_is_bytes<B>::value)>, S, B, C, L>;

/// The production launch: the kernel of the path policy P plans for the call's bin count.
template <histogram_policy P>
struct hist_policy_launch {
  template <class S, class B, class C>
  void operator()(const char* fn, hist_params<S, B, C> p, std::uint64_t total, cudaStream_t stream) const {
    static_assert(histogram_policy_valid<P>());
    const histogram_plan plan = histogram_plan_for(P, p.total_bins, hist_is_bytes<B>::value);
    switch (plan.layout) {
      case hist_layout::lanes:
        hist_launch(fn, hist_kernel_of<P, hist_layout::lanes, S, B, C>, p, plan, P.threads, total, stream);
        break;
      case hist_layout::shared:
        hist_launch(fn, hist_kernel_of<P, hist_layout::shared, S, B, C>, p, plan, P.threads, total, stream);
        break;
      default:
        hist_launch(fn, hist_kernel_of<P, hist_layout::global_runs, S, B, C>, p, plan, P.threads, total, stream);
        break;
    }
  }
};

/// Zeroes a call's outputs on the stream (one launch for every channel).
template <class S, class C, class Level>
void hist_zero(const char* fn, const hist_request<S, C, Level>& r, cudaStream_t stream) {
  hist_zero_args<C> a{};
  int most = 0;
  for (int k = 0; k < r.active; ++k) {
    a.out[k] = r.out[k];
    a.bins[k] = r.bins[k];
    most = std::max(most, r.bins[k]);
  }
  a.count = r.active;
  constexpr int threads = 256;
  const int blocks = std::clamp((most + threads - 1) / threads, 1, get_device_info().sm_count * 4);
  hist_zero_kernel<<<blocks, threads, 0, stream>>>(a);
  check_launch(fn);
}

/// Counts a call whose active channels bin with `binners`: builds the kernel's parameters (Multi: the
/// multi-channel kernels, with each channel's slot and offset in the concatenated histogram), zeroes the outputs
/// when overwriting, and launches; the zeroing is the last launch before the histogram kernel, which is its
/// dependent launch (it streams its input while the zeroing runs).
template <bool Multi, class S, class C, class Level, class Bin, class Launch>
void hist_count(const char* fn, const hist_request<S, C, Level>& r, const std::array<Bin, hist_max_channels>& binners,
                bool overwrite, cudaStream_t stream, Launch launch) {
  using B = std::conditional_t<Multi, hist_multi<Bin>, Bin>;
  hist_params<S, B, C> p{};
  p.in = r.in;
  p.total_bins = r.total_bins();
  p.num_out = r.active;
  if constexpr (!Multi) {
    p.bin = binners[0];
    p.out[0] = r.out[0];
  } else {
    int off = 0;
    for (int c = 0; c < hist_max_channels; ++c) p.bin.slot[c] = -1;
    for (int k = 0; k < r.active; ++k) {
      p.bin.b[k] = binners[k];
      p.bin.slot[r.chan[k]] = k;
      p.bin.offset[k] = off;
      p.offset[k] = off;
      p.out[k] = r.out[k];
      off += r.bins[k];
    }
    p.bin.channels = r.channels;
  }
  p.dependent = overwrite;
  if (overwrite) hist_zero(fn, r, stream);
  launch(fn, p, std::uint64_t(r.samples), stream);
}

/// A range call: each channel's edges converted to keys, copied into its part of the workspace, searched there.
template <bool Multi, class S, class C, class Level, class Launch>
void hist_run_range(const char* fn, const hist_request<S, C, Level>& r, const hist_workspace_layout<S, Level>& L,
                    const workspace& ws, bool overwrite, cudaStream_t stream, Launch launch) {
  using K = hist_key_t<S, Level>;
  std::array<hist_range<S, K>, hist_max_channels> b{};
  for (int k = 0; k < r.active; ++k) {
    std::vector<K> keys;
    hist_prepare_edges<S, Level>(fn, r.bins[k], r.edges[k], keys);
    K* dst = L.edges[k].in(ws);
    upload_async(fn, dst, keys.data(), keys.size() * sizeof(K), stream);  // no wait for the stream
    b[k] = {dst, r.bins[k]};
  }
  hist_count<Multi>(fn, r, b, overwrite, stream, launch);
}

/// Each active channel's binner of kind Bin, from its prepared levels.
template <class Bin, class S, class F>
std::array<Bin, hist_max_channels> hist_binners(const std::array<hist_even_prep<S>, hist_max_channels>& prep,
                                                int active, F of) {
  std::array<Bin, hist_max_channels> b{};
  for (int k = 0; k < active; ++k) b[k] = of(prep[k]);
  return b;
}

/// An equal-width call: the cheapest binner its levels allow (hist_even_binner).
template <bool Multi, class S, class C, class Level, class Launch>
void hist_run_even(const char* fn, const hist_request<S, C, Level>& r, bool overwrite, cudaStream_t stream,
                   Launch launch) {
  std::array<hist_even_prep<S>, hist_max_channels> prep{};
  for (int k = 0; k < r.active; ++k) prep[k] = hist_prepare_even<S>(fn, r.bins[k], r.lower[k], r.upper[k]);
  const auto count = [&](const auto& binners) { hist_count<Multi>(fn, r, binners, overwrite, stream, launch); };
  if constexpr (std::is_same_v<hist_key_t<S, Level>, double>) {
    count(hist_binners<hist_even_float<S>>(prep, r.active, [](const auto& q) { return q.flt; }));
  } else {
    const hist_binner kind = hist_even_binner<S, Level>(prep.data(), r.active, !Multi);
    if constexpr (sizeof(S) == 1 && !Multi)
      if (kind == hist_binner::bytes)
        return count(hist_binners<hist_bytes<S>>(prep, 1, [](const auto& q) {
          return hist_bytes<S>{std::is_signed_v<S> ? 0x80u : 0u, q.fast.shift};
        }));
    if constexpr (sizeof(S) <= 2 && !Multi)
      if (kind == hist_binner::fast_all_in)  // every value of S inside the levels: no range test
        return count(hist_binners<hist_even_fast<S, true>>(prep, 1, [](const auto& q) {
          return hist_even_fast<S, true>{q.fast.lo, q.fast.rm1, q.fast.shift};
        }));
    if constexpr (sizeof(S) <= 4)
      if (kind == hist_binner::fast)
        return count(hist_binners<hist_even_fast<S>>(prep, r.active, [](const auto& q) { return q.fast; }));
    count(hist_binners<hist_even_int<S>>(prep, r.active, [](const auto& q) { return q.exact; }));
  }
}

/// Runs a validated call in its workspace with `launch` (hist_policy_launch, or a ladder's): zeroes the outputs of
/// an empty input (overwriting forms), else counts. Multi = false: the single-channel entry points (only the
/// single-channel kernels are instantiated); true: the multi-channel ones.
template <bool Multi, class S, class C, class Level, class Launch>
void hist_run(const char* fn, const hist_request<S, C, Level>& r, const hist_workspace_layout<S, Level>& L,
              const workspace& ws, bool overwrite, cudaStream_t stream, Launch launch) {
  if (r.samples == 0) {
    if (overwrite) hist_zero(fn, r, stream);
    return;
  }
  if (r.range) hist_run_range<Multi>(fn, r, L, ws, overwrite, stream, launch);
  else hist_run_even<Multi>(fn, r, overwrite, stream, launch);
}

/// Validates a call, plans its workspace (checking a caller's, `sizer` naming its size function) and runs
/// run(layout, workspace) in it, the workspace the caller's or one from the current resource.
template <class S, class C, class Level, class Run>
void hist_entry(const char* fn, const hist_request<S, C, Level>& r, const workspace* ws, const char* sizer,
                cudaStream_t stream, Run run) {
  hist_validate(fn, r);
  const hist_workspace_layout<S, Level> L(r);
  check_workspace(fn, ws, L.bytes(), sizer);
  check_no_pending_error(fn);
  with_workspace(ws, L.bytes(), stream, [&](const workspace& w) { run(L, w); });
}

/// Every histogram entry point ends here: hist_entry, then the call counted under Policy (cuprim::tuned: the sample
/// type's row of histogram_policy_for for the device).
template <auto Policy, bool Multi, class S, class C, class Level>
void hist_call(const char* fn, const hist_request<S, C, Level>& r, const workspace* ws, bool overwrite,
               const char* sizer, cudaStream_t stream) {
  hist_entry(fn, r, ws, sizer, stream, [&](const hist_workspace_layout<S, Level>& L, const workspace& w) {
    with_tuned_arch([&]<int Arch>() {
      constexpr histogram_policy P = pick_policy<Policy>(histogram_policy_for<S>(Arch));
      hist_run<Multi>(fn, r, L, w, overwrite, stream, hist_policy_launch<P>{});
    });
  });
}

}  // namespace cuprim::detail
