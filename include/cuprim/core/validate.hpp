// cuprim/core/validate.hpp: the argument rules of every entry point, one definition each.
//
// Every entry point reads the same way:
//
//   CUPRIM_ENTRY_NAME(fn);                       its own name for errors ("cuprim::" + the function's name)
//   validate   check_size, check_pointer, check_overlaps, ...   (here; nothing launched, allocated or written)
//   plan       the family's layout type sizes the workspace and carves it (core/memory.hpp, workspace_layout);
//              check_workspace for a caller's workspace; check_no_pending_error
//   launch     the kernels, ordered on the caller's stream
//
// A rule broken throws cuprim::invalid_argument naming the entry point, the argument and the rule.
#pragma once

#include <cuprim/core/error.hpp>
#include <cuprim/core/memory.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace cuprim::detail {

/// The prefix of the names of the entry points declared in namespace cuprim. A namespace with entry points of its
/// own declares its prefix in its own `detail` (cuprim::ooc::detail::entry_prefix = "cuprim::ooc::"), which
/// CUPRIM_ENTRY_NAME finds first.
inline constexpr char entry_prefix[] = "cuprim::";

}  // namespace cuprim::detail

/// Declares `const char* const fn`, the qualified name of the enclosing entry point (its namespace's
/// detail::entry_prefix followed by __func__, the function's own name), built once per instantiation. The name every
/// error of the call carries comes from the function's declaration, so it cannot drift from it.
#define CUPRIM_ENTRY_NAME(fn)                                                                \
  static const ::std::string fn##_qualified_name_ = ::std::string(detail::entry_prefix) + __func__; \
  const char* const fn = fn##_qualified_name_.c_str()

namespace cuprim::detail {

/// Whether [a, a + a_bytes) and [b, b + b_bytes) share a byte (empty ranges share none).
inline bool ranges_overlap(const void* a, std::size_t a_bytes, const void* b, std::size_t b_bytes) {
  auto pa = reinterpret_cast<std::uintptr_t>(a), pb = reinterpret_cast<std::uintptr_t>(b);
  return a_bytes && b_bytes && pa < pb + b_bytes && pb < pa + a_bytes;
}

/// A count: n ≥ 0, and n elements of elem_bytes each fit in the address space.
inline void check_size(const char* fn, const char* arg, std::int64_t n, std::size_t elem_bytes = 1) {
  if (n < 0) throw_invalid(fn, arg, "must be non-negative");
  if (elem_bytes > 1 && std::uint64_t(n) > SIZE_MAX / elem_bytes)
    throw_invalid(fn, arg, "is larger than the address space");
}

/// A pointer the call needs: not null when `needed` (its array is not empty).
inline void check_pointer(const char* fn, const char* arg, const void* p, bool needed = true) {
  if (needed && p == nullptr) throw_invalid(fn, arg, "must not be null");
}

/// Whether a call that reads `in` and writes `out` runs in place: out is in itself, with elements of one size. The
/// scans allow it (out == in), and then skip check_overlaps for the pair; any other overlap of in and out is refused.
template <class In, class Out>
bool in_place(const In* in, const Out* out) {
  return static_cast<const void*>(in) == static_cast<const void*>(out) && sizeof(In) == sizeof(Out);
}

/// The tiles of a one-block-per-tile launch with 32-bit tile ids: at most 2^31 - 1 (the rule of n).
inline void check_tiles(const char* fn, std::uint64_t tiles) {
  if (tiles > 0x7fffffffu) throw_invalid(fn, "n", "needs more than 2^31 - 1 tiles under this policy");
}

/// One array of a call, for check_overlaps: its argument name, address, size in bytes, and whether the call writes it.
struct array_arg {
  const char* name;
  const void* p;
  std::size_t bytes;
  bool written;
};
inline constexpr bool read_only = false;
inline constexpr bool written = true;

/// No array the call writes may share a byte with another array of the call; arrays it only reads may alias each
/// other (sorting a copy of the keys as their own payload, say). Of an overlapping pair, the later one is named.
/// Null or empty arrays overlap nothing.
template <std::size_t N>
void check_overlaps(const char* fn, const array_arg (&a)[N]) {
  for (std::size_t j = 1; j < N; ++j)
    for (std::size_t i = 0; i < j; ++i)
      if ((a[i].written || a[j].written) && ranges_overlap(a[i].p, a[i].bytes, a[j].p, a[j].bytes))
        throw_invalid(fn, a[j].name, (std::string("must not overlap ") + a[i].name).c_str());
}

/// A caller's workspace holds at least `need` bytes (`sizer`: the sizing function to name, e.g.
/// "reduce_workspace_bytes(n)"), and its data is not null when need > 0.
inline void check_workspace(const char* fn, const workspace& ws, std::size_t need, const char* sizer) {
  if (ws.bytes < need) throw_invalid(fn, "workspace", (std::string("smaller than ") + sizer).c_str());
  if (need && ws.data == nullptr) throw_invalid(fn, "workspace", "data must not be null");
}

/// check_workspace when the call was given a workspace (ws not null); the call allocates its own otherwise.
inline void check_workspace(const char* fn, const workspace* ws, std::size_t need, const char* sizer) {
  if (ws) check_workspace(fn, *ws, need, sizer);
}

/// Host memory as the out-of-core calls see it: page-locked arrays are copied by DMA straight from where they are;
/// pageable arrays, and managed ones (which the host can read and write, but the copy engines cannot stream
/// without page faults), are staged through page-locked buffers.
enum class host_memory { pageable, pinned };

/// The kind of host memory `p` points to (a null p is pageable). Device memory breaks the rule "must be host
/// memory" (use the in-core call); memory CUDA does not know is pageable.
inline host_memory host_memory_kind(const char* fn, const char* arg, const void* p) {
  if (p == nullptr) return host_memory::pageable;
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    (void)cudaGetLastError();  // unknown to CUDA: pageable (older runtimes report an error for such pointers)
    return host_memory::pageable;
  }
  switch (a.type) {
    case cudaMemoryTypeHost: return host_memory::pinned;  // cudaMallocHost / cudaHostAlloc / cudaHostRegister
    case cudaMemoryTypeDevice: throw_invalid(fn, arg, "must be host memory (device memory: use the in-core call)");
    default: return host_memory::pageable;  // pageable or managed
  }
}

/// Runs f(workspace) on the caller's workspace, or on `bytes` taken from the current memory resource and given back
/// in stream order when f returns.
template <class F>
void with_workspace(const workspace* ws, std::size_t bytes, cudaStream_t stream, F&& f) {
  if (ws) {
    f(*ws);
  } else {
    scratch own(bytes, stream);
    f(own.get());
  }
}

}  // namespace cuprim::detail
