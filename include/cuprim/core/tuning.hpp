// cuprim/core/tuning.hpp: the tuning cache, the policies a tuning run found on this GPU, which the library reads at
// run time.
//
// `cuprim-lab tune <family>` searches a family's candidate policies on the GPU at hand and writes what won, per
// operation, element types and size bucket, into a JSON file. The tunable entry points (today the device-wide
// scans of 4- and 8-byte arithmetic types, device/scan.cuh, and the 16-bit tensor-core gemm, blas/gemm.cuh) called
// with cuprim::tuned look there first: the first entry that matches the call decides; if it names one of the
// family's compiled candidates, that candidate runs, otherwise (a policy named "default": the tuner found the
// compiled choice best there) the compiled table's row does, as without a cache.
//
// Where the file is: $CUPRIM_TUNING_CACHE if set (an empty value turns the cache off), else
// $XDG_CACHE_HOME/cuprim/tuning.json, else $HOME/.cache/cuprim/tuning.json. It is read once per process, at the
// first call that asks for it. The file holds sections, one per key; a key is everything that makes a measurement
// valid (GPU name, SM count, compute capability, driver and runtime versions, cuprim's version). Only the section
// whose key equals the current device's is used. When the file has sections but none for this device, one warning
// goes to stderr and the compiled tables decide; a file that is not valid cache JSON gives one error message on
// stderr naming the file and the byte offset, and the compiled tables decide: the cache never fails a call.
//
// Format (format "cuprim-tuning-1"):
//   {"format": "cuprim-tuning-1",
//    "sections": [{"key": {"gpu": "NVIDIA H200", "sms": 132, "cc": 90, "driver": 13000, "runtime": 13000,
//                          "cuprim": "0.1.0"},
//                  "entries": [{"op": "scan", "types": "float", "layout": "", "alignment": 16,
//                               "size_min": 2097153, "size_max": 8388608,
//                               "policy": {"policy": "scan_pipeline_policy", "pipeline": {"scan_warps": 8, ...},
//                                          "classic": {...}, "small": {...}, "small_max": 131072},
//                               "time_ms": 0.51, "runner_up_ms": 0.52, "default_ms": 0.53,
//                               "runner_up": {...}},
//                              {"op": "gemm", "types": "bf16", "layout": "NN", "alignment": 16,
//                               "size_min": 0, "size_max": 9223372036854775807,
//                               "shape": [[769, 3072], [1, 384], [6145, 12288]],
//                               "policy": {...}, "time_ms": 0.83, ...}]}]}
// "shape" (optional, written only when not empty) bounds each dimension of a matrix operation (m, n, k), inclusive;
// such an entry answers lookup_shape alone, and its size_min and size_max (0 and INT64_MAX as tuners write them) are
// not consulted. An entry without it answers lookup.
// A policy is stored by its fields (cuprim::to_json), never by a position in a candidate list, so a rebuilt list
// cannot misread it; nested policies are JSON objects. Integers only (every policy field is one).
#pragma once

/// CUPRIM_USE_TUNING_CACHE: 1 (the default) lets tuned entry points consult the cache; 0 compiles the lookups out
/// (the compiled tables alone decide). It must have one value in every translation unit of a program.
#ifndef CUPRIM_USE_TUNING_CACHE
#define CUPRIM_USE_TUNING_CACHE 1
#endif

#include <cstddef>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cuprim::tuning {

/// What makes a tuning result valid: the GPU, its SM count and compute capability (major × 10 + minor), the driver
/// and runtime versions (cudaDriverGetVersion / cudaRuntimeGetVersion, e.g. 13000) and cuprim's version.
struct cache_key {
  std::string gpu;
  int sms = 0;
  int cc = 0;
  int driver = 0;
  int runtime = 0;
  std::string cuprim;

  friend bool operator==(const cache_key&, const cache_key&) = default;
};

/// A policy's fields flattened to (dotted name, value) pairs in declaration order: {"policy", name} is not among
/// them (see policy_name); a nested policy's fields appear as "pipeline.scan_warps" and so on.
using policy_fields = std::vector<std::pair<std::string, long long>>;

/// One tuning result: the operation, element types ("float", "uint32->uint64"), layout ("" for 1-D operations,
/// "NN" etc. for matrices), the alignment in bytes the inputs had, the bucket of sizes it answers for (inclusive
/// bounds, in the family's size measure: elements for 1-D operations), the winner, its time and the runner-up's,
/// and the compiled default's time in the same run (0 when not measured). An entry of a matrix operation has a
/// `shape` instead of a size bucket: per dimension (m, n, k in that order) inclusive bounds, each 0 ≤ first ≤
/// second; its size_min and size_max are still written (0 and INT64_MAX) but not consulted. `shape` is empty for
/// 1-D operations.
struct cache_entry {
  std::string op;
  std::string types;
  std::string layout;
  int alignment = 16;
  std::int64_t size_min = 0;
  std::int64_t size_max = 0;
  std::vector<std::pair<std::int64_t, std::int64_t>> shape;  ///< per dimension [min, max]; empty for 1-D operations
  std::string policy_name;
  policy_fields policy;
  double time_ms = 0;
  double runner_up_ms = 0;
  double default_ms = 0;
  std::string runner_up_name;     ///< empty when there was no runner-up
  policy_fields runner_up;
};

/// One section of the file: a key and its entries.
struct cache_section {
  cache_key key;
  std::vector<cache_entry> entries;
};

/// The whole file.
struct cache_file {
  std::vector<cache_section> sections;
};

/// Thrown by parse() for text that is not a valid cache file: what() names the source and the byte offset.
class parse_error : public std::runtime_error {
public:
  parse_error(const std::string& source, std::size_t offset, const std::string& what);
  std::size_t offset() const noexcept { return offset_; }

private:
  std::size_t offset_;
};

/// The file as JSON text (parse(to_json(f)) == f field by field). Throws cuprim::invalid_argument for a file that
/// could not be read back so: a string that is not UTF-8, a time that is not finite, size_min > size_max, a shape
/// dimension whose min exceeds its max or is negative, or policy field names that do not nest (an empty part in a
/// dotted name, a name given twice, "a" beside "a.b", the fields of "a." not one after another, or "policy" at the
/// top level).
std::string to_json(const cache_file& f);
/// Parses a cache file's text; `source` names it in errors. Throws parse_error.
cache_file parse(std::string_view text, const std::string& source);

/// The key of device `device` (-1: the current device) in this process.
cache_key current_key(int device = -1);

/// Where the cache is read from and written to, as described above; "" when the cache is turned off.
std::string cache_path();

/// Adds or replaces entries in a file: the section with `section.key` is created if missing; an entry of the
/// section replaces every existing one with the same op, types, layout and alignment that it overlaps: for two
/// entries without a shape, size buckets that overlap; for two shapes of one rank, ranges that overlap in every
/// dimension. An entry with a shape and one without, or shapes of different ranks, never replace each other. Other
/// sections are kept. Written to a temporary file beside `path` and renamed over it. Throws std::runtime_error when
/// the file cannot be written, parse_error when an existing file cannot be parsed (the file is then left as it is),
/// and cuprim::invalid_argument as to_json does.
void merge_into_file(const std::string& path, const cache_section& section);

/// The entry for a call on device `device` (-1: current), or nullopt: the first entry of the device's section with
/// equal op, types and layout, alignment ≤ the call's alignment, no shape, and size_min ≤ size ≤ size_max. Reads
/// the file at the first call (thread-safe); warnings and errors are printed once, as described above.
std::optional<cache_entry> lookup(std::string_view op, std::string_view types, std::string_view layout,
                                  int alignment, std::int64_t size, int device = -1);

/// As lookup, for an operation of several dimensions (a matrix operation's m, n, k): the first entry with equal op,
/// types and layout, alignment ≤ the call's, a shape of dims.size() dimensions and shape[i].first ≤ dims[i] ≤
/// shape[i].second in each. size_min and size_max are not consulted; empty `dims` match no entry.
std::optional<cache_entry> lookup_shape(std::string_view op, std::string_view types, std::string_view layout,
                                        int alignment, std::span<const std::int64_t> dims, int device = -1);

/// Forgets what was read, so that the next lookup reads the file again (for tests and the tuner).
void reset();

/// Whether the cache file has any section (reads the file at the first call; one atomic load after it): entry
/// points skip lookup() when it is false, so that a program without a cache pays one atomic load per call. (A file
/// holding only other GPUs' sections keeps it true: each lookup then costs a lock and a map search.)
bool active();

/// The element type's name in cache entries ("float", "int32", ...; "" for types no family tunes).
template <class T>
constexpr const char* type_name();

/// The alignment in bytes, at most 16, that both addresses share (a cache entry applies to calls at least as
/// aligned as its measurement).
inline int alignment_of(const void* a, const void* b) {
  const auto bits = reinterpret_cast<std::uintptr_t>(a) | reinterpret_cast<std::uintptr_t>(b) | 16u;
  return int(bits & (~bits + 1));
}

namespace detail {
/// lookup's choice in a file already read, for a device of key `key`: the first section whose key equals `key`, then
/// its first entry that matches as lookup describes; nullptr when there is none. `*no_section` (if given) is set to
/// whether the file has sections but none for `key` (the case lookup warns about).
const cache_entry* find_entry(const cache_file& f, const cache_key& key, std::string_view op, std::string_view types,
                              std::string_view layout, int alignment, std::int64_t size, bool* no_section = nullptr);
/// lookup_shape's choice, as find_entry is lookup's (the same section, the same `*no_section`).
const cache_entry* find_entry_shape(const cache_file& f, const cache_key& key, std::string_view op,
                                    std::string_view types, std::string_view layout, int alignment,
                                    std::span<const std::int64_t> dims, bool* no_section = nullptr);
}  // namespace detail

/// A policy's fields as policy_fields (the names and values cuprim::to_json prints, nested names dotted).
template <class P>
policy_fields flatten(const P& p);

}  // namespace cuprim::tuning

#include <cuprim/core/policy.hpp>

#include <type_traits>

namespace cuprim::tuning {

namespace detail {
template <class P>
void flatten_into(policy_fields& out, const std::string& prefix, const P& p) {
  p.fields([&](const char* name, const auto& v) {
    using V = std::remove_cvref_t<decltype(v)>;
    if constexpr (cuprim::detail::described_policy<V>) {
      flatten_into(out, prefix + name + ".", v);
    } else if constexpr (std::is_integral_v<V> || std::is_enum_v<V>) {
      out.emplace_back(prefix + name, static_cast<long long>(v));
    } else {
      static_assert(std::is_integral_v<V>, "cuprim::tuning::flatten: policy fields must be integers or policies");
    }
  });
}
}  // namespace detail

template <class P>
policy_fields flatten(const P& p) {
  policy_fields out;
  detail::flatten_into(out, "", p);
  return out;
}

template <class T>
constexpr const char* type_name() {
  if constexpr (std::is_same_v<T, float>) return "float";
  else if constexpr (std::is_same_v<T, double>) return "double";
  else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    constexpr const char* s[] = {"int8", "int16", "int32", "int64"};
    constexpr const char* u[] = {"uint8", "uint16", "uint32", "uint64"};
    constexpr int i = sizeof(T) == 1 ? 0 : sizeof(T) == 2 ? 1 : sizeof(T) == 4 ? 2 : 3;
    return std::is_signed_v<T> ? s[i] : u[i];
  } else return "";
}

}  // namespace cuprim::tuning
