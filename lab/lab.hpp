// lab/lab.hpp: the cuprim-lab registry, inputs, timing and reporting.
//
// A benchmark family (lab/<family>.cu) registers cases with lab::add_case. A case names itself
// (family/op/.../dtype/2^k), says what one run moves (bytes) or computes (flops), and gives a setup function
// that allocates its state and returns a lab::bench: three closures over that state,
//   verify()        runs cuprim (and the baseline) once on slice 0 of the input and checks the results against
//                   the cuprim::host references, before anything is timed;
//   run(s, r)       one call of the cuprim code under test on stream s, reading rotated input r;
//   baseline(s, r)  the same operation through the reference library (optional).
// The driver (lab.cu, main.cu) selects, verifies, times and reports; a family contains no timing code.
//
// Adding a family: write lab/<family>.cu with a void register_<family>() that calls add_case, declare it
// below, add it to register_all(), and list the file in lab/CMakeLists.txt.
#pragma once

#include <cuprim/core/policy.hpp>

#include <cuda_runtime_api.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <any>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace lab {

// ---------------------------------------------------------------------------------------------------------
// Element types

enum class dtype { int8, uint8, int32, uint32, int64, uint64, half, bfloat16, float32, float64 };

/// The name the lab prints: int8, uint8, int32, uint32, int64, uint64, half, bfloat16, float, double.
const char* dtype_name(dtype t);
std::size_t dtype_bytes(dtype t);

template <class T> struct dtype_of;
template <> struct dtype_of<std::int8_t> { static constexpr dtype value = dtype::int8; };
template <> struct dtype_of<std::uint8_t> { static constexpr dtype value = dtype::uint8; };
template <> struct dtype_of<std::int32_t> { static constexpr dtype value = dtype::int32; };
template <> struct dtype_of<std::uint32_t> { static constexpr dtype value = dtype::uint32; };
template <> struct dtype_of<std::int64_t> { static constexpr dtype value = dtype::int64; };
template <> struct dtype_of<std::uint64_t> { static constexpr dtype value = dtype::uint64; };
template <> struct dtype_of<__half> { static constexpr dtype value = dtype::half; };
template <> struct dtype_of<__nv_bfloat16> { static constexpr dtype value = dtype::bfloat16; };
template <> struct dtype_of<float> { static constexpr dtype value = dtype::float32; };
template <> struct dtype_of<double> { static constexpr dtype value = dtype::float64; };
template <class T> inline constexpr dtype dtype_v = dtype_of<T>::value;
template <class T> const char* name_of() { return dtype_name(dtype_v<T>); }

/// "2^28" for powers of two, the decimal number otherwise.
std::string size_label(std::int64_t n);

// ---------------------------------------------------------------------------------------------------------
// Random values. Element i of a stream with seed s is a hash of (s, i), the same on host and device:
//   float, double, half, bfloat16: uniform in [0, 1)        int8: [-100, 100]     uint8: [0, 255]
//   int32: [-1000, 1000]     uint32, uint64: every value     int64: [-2^40, 2^40)
// Ranges keep sums of 2^28 elements away from overflow (integers) and from loss of all precision (floats).

/// Fills n elements of type t at p (device memory) on `stream`.
void fill_random_device(dtype t, void* p, std::size_t n, std::uint64_t seed, std::uint64_t first_index,
                        cudaStream_t stream);
/// Fills n elements of type t at p (host memory); element i equals the device generator's element i.
void fill_random_host(dtype t, void* p, std::size_t n, std::uint64_t seed, std::uint64_t first_index = 0);

// ---------------------------------------------------------------------------------------------------------
// Memory

/// Device memory from cudaMalloc (kept out of cuprim's pool, so the library's allocator state is not
/// disturbed by the lab's inputs). Move-only.
class device_memory {
public:
  device_memory() = default;
  explicit device_memory(std::size_t bytes);
  device_memory(device_memory&& o) noexcept;
  device_memory& operator=(device_memory&& o) noexcept;
  device_memory(const device_memory&) = delete;
  device_memory& operator=(const device_memory&) = delete;
  ~device_memory();
  void* get() const noexcept { return p_; }
  template <class T> T* as() const noexcept { return static_cast<T*>(p_); }
  std::size_t bytes() const noexcept { return bytes_; }
  /// Sets every byte to `byte` and waits (used to poison outputs before a verification).
  void poison(unsigned char byte = 0xA5) const;

private:
  void* p_ = nullptr;
  std::size_t bytes_ = 0;
};

/// Throws cuprim::cuda_error naming `what` when `code` is not cudaSuccess.
void check(cudaError_t code, const char* what);

/// Copies `count` values of T from device memory to a new host vector (synchronous).
template <class T>
std::vector<T> to_host(const T* device_ptr, std::size_t count = 1) {
  std::vector<T> v(count);
  check(cudaMemcpy(v.data(), device_ptr, count * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy (to host)");
  return v;
}

/// A random input of n elements on the device, as `slices` copies with different values laid end to end, so
/// that calls can rotate through them: for inputs smaller than 4 × L2 the slices add up to at least 4 × L2,
/// so a call never finds its input in L2 left there by an earlier call. Slice 0 is also kept on the host for
/// verification; `memo` caches host references computed on it (each is computed once per input).
struct input_set {
  dtype type{};
  std::int64_t n = 0;
  std::uint64_t seed = 0;
  int slices = 1;
  std::size_t stride_bytes = 0;  ///< distance between slices (256-byte aligned)
  device_memory device;
  std::vector<unsigned char> host0;

  template <class T> const T* slice(int rep) const {
    return reinterpret_cast<const T*>(static_cast<const char*>(device.get()) +
                                      stride_bytes * static_cast<std::size_t>(rep % slices));
  }
  template <class T> std::span<const T> host() const {
    return {reinterpret_cast<const T*>(host0.data()), static_cast<std::size_t>(n)};
  }
  template <class R, class F> R memo(const std::string& key, F compute) const {
    auto it = memo_.find(key);
    if (it == memo_.end()) it = memo_.emplace(key, std::any(R(compute()))).first;
    return std::any_cast<R>(it->second);
  }

private:
  mutable std::map<std::string, std::any> memo_;
};

/// The random input (t, n, seed), from a small cache of recent inputs (so cases over the same input share
/// its generation and host references). Needs a device.
std::shared_ptr<const input_set> random_input(dtype t, std::int64_t n, std::uint64_t seed = 1);
/// Empties the cache (the driver calls it before exit).
void release_inputs();
/// Moves every cached input's device copy to a new allocation (a device-to-device copy; the host copy and the
/// memoized references stay): used between placements (case_def::placements), when no case holds an input.
/// Device buffers a family keeps in an input's memo (derived inputs of the histogram and select families) are not
/// moved.
void relocate_inputs();
/// The memory held while placement k (0, 1, ...) of a case allocates its buffers: k × 736 MiB; none for k = 0, and
/// none either when that is more than half the free memory (the caller then stops adding placements). Holding it
/// makes the driver place the case's buffers, and the relocated inputs, on other physical pages (docs/lab.md,
/// "Placements").
device_memory placement_spacer(int k);

// ---------------------------------------------------------------------------------------------------------
// Cases

/// The policy a case runs, as the lab prints it (text) and records it in the case's JSON row.
struct policy_record {
  std::string text;  ///< "reduce_policy{threads=512 vector_bytes=16 unroll=4 blocks_per_sm=4}"
  std::string json;  ///< cuprim::to_json of the policy
};
template <class P>
policy_record record_policy(const P& p) {
  return {std::string(P::name) + "{" + cuprim::describe(p) + "}", cuprim::to_json(p)};
}

struct verify_result {
  bool ok = true;           ///< cuprim's result matches the reference
  bool baseline_ok = true;  ///< the baseline's result matches too (a failure here is a lab wiring error)
  std::string detail;       ///< what was compared, or what differed
  /// What a demonstration case saw while it verified (a race's count of wrong results, whether the compiled code
  /// branched): printed after the table as "observed: <case>: <text>" and written to the case's JSON row whether or
  /// not the case passed; empty for the others.
  std::string observed;
};

struct pair_timing;

/// A case after setup: closures that own the device state (inputs, outputs, workspaces).
struct bench {
  std::function<verify_result()> verify;
  std::function<void(cudaStream_t, int)> run;       ///< device cases: the cuprim call
  std::function<void(cudaStream_t, int)> baseline;  ///< device cases: the reference library's call, or empty
  std::function<void()> host_run;                   ///< host cases: the timed host function; device cases whose
                                                    ///< call blocks the host (out-of-core operations) set it
                                                    ///< instead of run: timed by the wall clock like host cases
  int input_slices = 1;                             ///< how many inputs run() rotates through
  /// Cases that time themselves (work on several GPUs: lab/multi.cu), set instead of run and host_run: called with the
  /// reps and warm-up the driver chose, returns the medians (main; base when the case reports a baseline).
  std::function<pair_timing(int reps, int warmup)> self_timed;
};

struct case_def {
  std::string name;      ///< unique, e.g. "reduce/sum/float/2^28"; patterns match against it
  std::string family;    ///< "reduce"
  std::string op;        ///< "sum", "min", "argmin", ...
  std::string variant;   ///< "production", a ladder rung, a policy, "host-sequential"
  std::string dtype;
  std::int64_t n = 0;
  double bytes = 0;      ///< bytes moved per run (the minimum: each input read once, each output written once)
  double flops = 0;      ///< floating-point operations per run, for compute-bound families (else 0)
  bool quick = false;    ///< part of the default (--quick) suite
  bool host = false;     ///< a host reference case (the no-GPU path)
  std::string baseline;  ///< the reference library's call, e.g. "cub::DeviceReduce::Sum"; empty when none
  /// Placements timed (`run --placements N` overrides): the case is set up and timed this many times, placement
  /// k with its buffers and inputs made while placement_spacer(k) is held, and the report takes the mean over
  /// the placements of each library's median. For cases whose time depends on where their buffers lie in
  /// physical memory (the large sorts, docs/tuning/radix_sort.md, runs 13-14); 1 for the others.
  int placements = 1;
  /// Timed repetitions (`run --reps N` overrides); 0 takes default_reps(n). For cases whose one call is far longer
  /// than their n suggests (the GEMM ladder's slow rungs, the CPU BLAS row).
  int reps = 0;
  /// A row of a policy sweep (`cuprim-lab sweep <family>`): taken only by the sweep command or by patterns that
  /// name it, never by the quick or full suites.
  bool sweep = false;
  std::function<bench()> setup;
  /// The policy the cuprim call runs on the current device (for the tuned default, the family's
  /// <family>_policy_for row of cuprim::current_tuned_arch()); empty for cases without one (host references).
  std::function<policy_record()> policy;
};

void add_case(case_def c);
const std::vector<case_def>& all_cases();
/// A line printed in the header of a run that includes a case whose name starts with `name_prefix`
/// (e.g. "reduce/" for the default policy, "reduce/sweep/" for how to read the sweep's labels).
void add_note(const std::string& name_prefix, const std::string& line);
std::vector<std::string> notes_for(const std::vector<const case_def*>& selected);
struct result;
/// Lines printed after the table of a run that includes a case whose name starts with `name_prefix`, computed from
/// that run's results (e.g. a bound built from several cases, and how close each case came to it).
void add_summary(const std::string& name_prefix,
                 std::function<std::vector<std::string>(const std::vector<result>&)> make_lines);
std::vector<std::string> summaries_for(const std::vector<result>& results);

/// The families. Each lives in lab/<family>.cu.
void register_reduce();
void register_reduce_sweep();
void register_scan();
void register_scan_kernels();
void register_select();
void register_segmented();
void register_ooc_gemm();
void register_radix_sort();
void register_radix_sort_sweep();
void register_histogram();
void register_blas();
void register_blas_shapes();
void register_blas_gemv();
void register_blas_gemv_sweep();
void register_blas_trsm();
void register_warp_atomics();
void register_blas_trsm_batched();
void register_warp();
void register_atomics();
void register_blas_batched();
void register_blas_batched_sweep();
#if CUPRIM_LAB_MULTI
void register_multi();  // lab/multi.cu: built where cuprim::multi (NCCL) is (lab/CMakeLists.txt)
#endif
inline void register_all() {
  register_reduce();
  register_reduce_sweep();
  register_scan();
  register_scan_kernels();
  register_select();
  register_segmented();
  register_ooc_gemm();
  register_radix_sort();
  register_radix_sort_sweep();
  register_histogram();
  register_blas();
  register_blas_shapes();
  register_blas_gemv();
  register_blas_gemv_sweep();
  register_blas_trsm();
  register_warp_atomics();
  register_blas_trsm_batched();
  register_warp();
  register_atomics();
  register_blas_batched();
  register_blas_batched_sweep();
#if CUPRIM_LAB_MULTI
  register_multi();
#endif
}

/// Studies outside the case registry (synchronous host-memory work that the stream-timed cases cannot express):
/// `cuprim-lab transfer` (lab/transfer.cu) and `cuprim-lab ooc` (lab/ooc.cu); argv[1] is the command.
int run_transfer_study(int argc, char** argv);
int run_ooc_study(int argc, char** argv);
/// `cuprim-lab tune <family> ...` (lab/tune.cu): the auto-tuner; its usage text.
int run_tune(int argc, char** argv);
const char* tune_usage_text();

// ---------------------------------------------------------------------------------------------------------
// Verification helpers

/// Tolerance for a floating-point sum of n terms: eps × Σ|x| × 2·log2(n), the error bound of pairwise
/// summation (rounding errors of a blocked parallel sum of random data lie far below it), plus a few ulps of
/// the result. `sequential` = true uses the bound of index-order summation, eps × Σ|x| × n.
double sum_tolerance(double eps, long double abs_sum, long double ref, std::int64_t n, bool sequential = false);

// ---------------------------------------------------------------------------------------------------------
// Environment, timing and reports

struct environment {
  bool gpu = false;
  std::string device_name;
  int sm_count = 0, cc_major = 0, cc_minor = 0;
  int sm_clock_khz = 0, memory_clock_khz = 0, memory_bus_bits = 0;
  std::size_t l2_bytes = 0, global_mem_bytes = 0;
  std::string driver, runtime, date;
  std::string commit;   ///< the commit checked out when the lab was built (stamped at build time: cmake/provenance.cmake)
  std::string tree;     ///< the git tree id of the sources it was built from (scripts/provenance.py finds the commit)
  std::string changes;  ///< "none" when the sources were that commit's, "uncommitted" otherwise
  double copy_ceiling_gbps = 0;  ///< device-to-device copy (or host memcpy on the host path), read + write
  std::string copy_ceiling_how;
};

/// Device facts, driver, commit and date (no measurement).
environment record_environment(bool gpu);
/// cudaMemcpyAsync device to device of 2^28 floats (1 GiB), bytes = 2 × size, median of 20 after warm-up.
double measure_copy_ceiling(cudaStream_t stream);
/// std::memcpy of 128 MiB, bytes = 2 × size, median of 7.
double measure_host_copy_ceiling();

struct timing {
  double median_ms = 0, min_ms = 0, max_ms = 0;
  int reps = 0;
};
/// The median of v (the mean of the middle two for an even count; 0 when empty).
double median_of(std::vector<double> v);
/// Median, min and max of per-call times in ms, and their count.
timing summarize(const std::vector<double>& ms);
struct pair_timing {
  timing main;
  std::optional<timing> base;
  bool hold_timed_out = false;  ///< the queue-holding kernel gave up waiting (launch gaps may be included)
};

/// Default repetitions for a case of n elements: 200 up to 2^20, 50 up to 2^24, 20 above.
int default_reps(std::int64_t n);
/// The repetitions a case is timed with: `requested` (--reps) when > 0, else the case's own reps, else default_reps.
int case_reps(const case_def& c, int requested);

/// A peak arithmetic rate of the current device, for "% of peak" columns: TFLOP/s (0 when unknown) and the
/// formula with its inputs, as the lab prints it.
struct math_peak {
  double tflops = 0;
  std::string how;
};
/// FP32 on CUDA cores: SMs x FP32 lanes per SM x 2 (a fused multiply-add is two flops) x SM clock, the clock being
/// cudaDevAttrClockRate (the maximum boost clock; a long run may be throttled below it). FP32 lanes per SM: 64 on
/// compute capability 6.0, 7.x and 8.0; 128 on 6.1/6.2, 8.6-8.9, 9.0 and later (0: unknown architecture).
/// H100 SXM: 132 x 128 x 2 x 1.98 GHz = 66.9 TFLOP/s.
math_peak fp32_cuda_core_peak();
/// Dense BF16 (and FP16) on tensor cores with FP32 accumulation: SMs x dense tensor-core FMAs per clock per SM x 2
/// (a fused multiply-add is two flops) x SM clock (cudaDevAttrClockRate, as above). Dense FMAs per clock per SM:
///   compute capability 8.0 (A100): 1024, four tensor cores of 256 (NVIDIA A100 whitepaper);
///     108 x 1024 x 2 x 1.41 GHz = 312 TFLOP/s, the A100 datasheet's dense BF16 figure
///   compute capability 9.0 (H100): 2048, four tensor cores of 512: the A100's per-SM rate doubled (NVIDIA H100
///     whitepaper; the arithmetic is worked in the NVIDIA developer forum thread "How to calculate the Tensor Core
///     FP16 performance of H100?"); 132 x 2048 x 2 x 1.83 GHz = 989.4 TFLOP/s, the H100 SXM datasheet's dense BF16
///     figure, which NVIDIA states at a tensor-core boost clock below the 1.98 GHz the device reports
///   anything else: 0 (unknown; the lab prints "-").
/// At the reported 1.98 GHz an H100 SXM gives 132 x 2048 x 2 x 1.98 GHz = 1070.5 TFLOP/s: the bound at the clock the
/// FP32 peak uses too, 8% above the datasheet's figure (a long tensor-core run is power-limited below both).
math_peak bf16_tensor_core_peak();
/// Times b.run (and b.baseline, interleaved rep by rep) with CUDA events: `warmup` untimed calls of each, then
/// `reps` timed calls of each, queued behind a kernel that holds the stream until they are all enqueued so that
/// host launch overhead does not leak into the GPU times. Call i (warm-up calls first, then timed ones) of the
/// main function reads input 2i, of the baseline input 2i + 1, so consecutive calls never share an input.
/// Returns the medians.
pair_timing time_device(const bench& b, int reps, int warmup, cudaStream_t stream);
/// Times b.host_run with std::chrono::steady_clock: one warm-up, then `reps` runs; the median.
timing time_host(const bench& b, int reps);

struct result {
  const case_def* c = nullptr;
  double median_ms = 0;
  std::optional<double> baseline_ms;
  int reps = 0;
  bool correct = false;
  bool baseline_correct = true;
  bool timed = false;
  std::string error;  ///< an exception or a failed check, for the report
  std::string observed;  ///< verify_result::observed (one line)
  policy_record policy;  ///< the case's policy on this device (empty text: none)
  /// With several placements: each placement's medians (cuprim, baseline); median_ms and baseline_ms are the
  /// means of these.
  std::vector<std::pair<double, std::optional<double>>> placement_ms;
};

/// The mean over placements of the per-placement medians (cuprim's, and the baseline's when every placement has
/// one; min and max are the extreme placements), reps summed, a hold timeout anywhere reported; fills
/// r.placement_ms when there is more than one placement.
pair_timing combine_placements(const std::vector<pair_timing>& per, result& r);
/// The line printed after the table for a result measured in several placements (empty for one placement):
/// each placement's times and ratio, and the range of the ratios.
std::string placement_line(const result& r);

/// The aligned text table (op, variant, dtype, n, median_ms, GB/s, %copy, baseline, base_ms, speedup, correct).
void print_table(std::FILE* f, const environment& env, const std::vector<result>& results);
/// The header: device, clocks, driver, commit, copy ceiling, notes.
void print_header(std::FILE* f, const environment& env, const std::vector<std::string>& notes);
/// s as a JSON string (quoted and escaped).
std::string json_string(const std::string& s);
/// v as a JSON number (%.6g), or null when it is not finite.
std::string json_number(double v);
/// Writes the JSON report; returns false (with a message on stderr) when the file cannot be written.
bool write_json(const std::string& path, const environment& env, const std::vector<result>& results);

}  // namespace lab
