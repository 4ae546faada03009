// cuprim/ooc/plan.hpp: the settings of an out-of-core call and the plan they give.
//
//   cuprim::ooc::options         chunk size, stream count, device-memory cap, issue order, staging threads (all
//                                settable; 0 = the policy's choice, ooc/tuning.hpp)
//   cuprim::ooc::plan            what a call will run: chunk elements, streams, staging, device and page-locked bytes
//   cuprim::ooc::make_plan(...)  the plan of n elements (pure arithmetic: no CUDA call)
//
// Device-memory cap. options.device_bytes bounds what the pipeline allocates on the device (S slots of input,
// output and scratch, plus the in-core calls' workspaces, estimated per element); the chunk shrinks to fit. The cap
// is what makes a GPU with plenty of memory behave like a small one (tests force many chunks with it).
#pragma once

#include <cuprim/core/validate.hpp>
#include <cuprim/ooc/tuning.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <thread>

namespace cuprim::ooc {

/// Settings of an out-of-core call. Zero means "the policy's choice" (ooc_policy, ooc/tuning.hpp).
struct options {
  std::size_t chunk_bytes = 0;   ///< input bytes per chunk (rounded down to whole elements; ≥ 1 element)
  int streams = 0;               ///< slots (streams) in flight, 1..32
  std::size_t device_bytes = 0;  ///< cap on the device memory the pipeline takes (0: 3/4 of the free memory)
  issue_order order = issue_order::automatic;
  int host_threads = 0;          ///< threads that fill/drain staging buffers for pageable arrays, 1..64
};

/// How a call will run: what make_plan chose.
struct plan {
  std::int64_t n = 0;
  std::int64_t chunk_elems = 0;  ///< elements per chunk (the last chunk may be shorter)
  std::int64_t chunks = 0;
  int streams = 0;
  issue_order order = issue_order::by_chunk;
  int host_threads = 0;
  bool stage_in = false;         ///< the input is pageable/managed and goes through page-locked buffers
  bool stage_out = false;        ///< the output does
  std::size_t device_bytes = 0;  ///< what the slots take on the device (estimate incl. in-core workspaces)
  std::size_t pinned_bytes = 0;  ///< page-locked staging the call holds
};

namespace detail {

/// The prefix of the names of the entry points in namespace cuprim::ooc (CUPRIM_ENTRY_NAME, core/validate.hpp).
inline constexpr char entry_prefix[] = "cuprim::ooc::";

/// Device bytes per element reserved for the in-core calls' workspaces (scan/select tile states: a few bytes per
/// tile of thousands of elements; 1 byte per element is a generous bound).
inline constexpr std::size_t workspace_bytes_per_elem = 1;

/// The staging threads of a call: options.host_threads, else the policy's count, at most half the cores.
inline int host_thread_count(const options& o, const ooc_policy& policy) {
  if (o.host_threads) return o.host_threads;
  return int(std::max(1u, std::min<unsigned>(unsigned(policy.host_threads), std::thread::hardware_concurrency() / 2)));
}

/// The argument rules every out-of-core call shares for its options (checked before any CUDA call).
inline void validate_options(const char* fn, const options& o) {
  using cuprim::detail::throw_invalid;
  if (o.streams < 0 || o.streams > 32) throw_invalid(fn, "options.streams", "must be 0 (automatic) or 1..32");
  if (o.host_threads < 0 || o.host_threads > 64)
    throw_invalid(fn, "options.host_threads", "must be 0 (automatic) or 1..64");
  if (o.order != issue_order::automatic && o.order != issue_order::by_chunk && o.order != issue_order::by_stage)
    throw_invalid(fn, "options.order", "must be automatic, by_chunk or by_stage");
}

/// The rules of a call's input array and options: n elements of In fit the address space, in is not null when
/// n > 0, options in range.
template <class In>
void validate_input(const char* fn, const In* in, std::int64_t n, const options& o) {
  cuprim::detail::check_size(fn, "n", n, sizeof(In));
  cuprim::detail::check_pointer(fn, "in", in, n > 0);
  validate_options(fn, o);
}

}  // namespace detail

/// The plan for n elements: `in_bytes` / `out_bytes` per element moved in and out (out 0: no output stream),
/// `scratch_bytes` per element of device scratch per slot, `fixed_bytes` per slot, `stage_in` / `stage_out`
/// whether the host arrays are pageable, `policy` the defaults (ooc_policy_for). `fn` names the caller in errors
/// (a cap too small for one element).
inline plan make_plan(const char* fn, std::int64_t n, std::size_t in_bytes, std::size_t out_bytes,
                      std::size_t scratch_bytes, std::size_t fixed_bytes, bool stage_in, bool stage_out,
                      const options& o, std::size_t free_device_bytes, const ooc_policy& policy) {
  plan p;
  p.n = n;
  p.stage_in = stage_in;
  p.stage_out = stage_out && out_bytes > 0;
  p.streams = o.streams ? o.streams : (stage_in || p.stage_out ? policy.streams_staged : policy.streams_pinned);
  p.order = o.order == issue_order::automatic ? policy.order : o.order;
  p.host_threads = detail::host_thread_count(o, policy);
  const std::size_t per_elem = in_bytes + out_bytes + scratch_bytes + detail::workspace_bytes_per_elem;
  std::int64_t chunk = std::int64_t((o.chunk_bytes ? o.chunk_bytes : default_chunk_bytes(policy)) / in_bytes);
  if (o.chunk_bytes == 0) {
    // Small inputs: still cut into a few chunks per stream so that the stages overlap.
    const std::int64_t min_chunk = std::int64_t(policy.min_chunk_bytes / in_bytes);
    const std::int64_t parts = std::int64_t(policy.chunks_per_stream) * p.streams;
    chunk = std::min(chunk, std::max(min_chunk, (n + parts - 1) / parts));
  }
  chunk = std::max<std::int64_t>(1, chunk);
  const std::size_t cap = o.device_bytes ? o.device_bytes : free_device_bytes / 4 * 3;
  const std::size_t per_slot_cap = cap / std::size_t(p.streams);
  if (per_slot_cap <= fixed_bytes + per_elem)
    cuprim::detail::throw_invalid(fn, "options.device_bytes", "too small for one element per stream");
  chunk = std::min<std::int64_t>(chunk, std::int64_t((per_slot_cap - fixed_bytes) / per_elem));
  chunk = std::max<std::int64_t>(1, std::min<std::int64_t>(chunk, std::max<std::int64_t>(n, 1)));
  p.chunk_elems = chunk;
  p.chunks = n == 0 ? 0 : (n + chunk - 1) / chunk;
  if (p.chunks < p.streams && p.chunks > 0) p.streams = int(p.chunks);
  p.device_bytes = std::size_t(p.streams) * (fixed_bytes + std::size_t(chunk) * per_elem);
  p.pinned_bytes =
      std::size_t(p.streams) * std::size_t(chunk) * ((stage_in ? in_bytes : 0) + (p.stage_out ? out_bytes : 0));
  return p;
}

}  // namespace cuprim::ooc
