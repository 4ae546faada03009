// Example 07: an out-of-core DGEMM. C = alpha * A * B + beta * C with A, B and C in pinned host memory and the GPU
// allowed only a quarter of C's size in device memory: cuprim tiles C, streams the tiles and the panels of A and B
// through the GPU with copies in both directions overlapping the tile GEMMs (3-way), and, if a CPU BLAS can be
// loaded (OpenBLAS; or CUPRIM_CBLAS=/path/to/libcblas.so), once more with the CPU computing a share of C (4-way).
// Checks sampled entries against a host computation; exits 77 without a GPU.
#include <cuprim/core/device.hpp>
#include <cuprim/core/memory.hpp>
#include <cuprim/ooc/gemm.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

int main() {
  if (!cuprim::has_device()) {
    std::printf("no CUDA device: 07_ooc_gemm skipped\n");
    return 77;
  }
  const std::int64_t m = 4096, n = 4096, k = 256;
  const double alpha = 1.0, beta = -0.5;
  cuprim::pinned_buffer<double> A(m * k), B(k * n), C(m * n);
  std::mt19937_64 g(42);
  std::uniform_real_distribution<double> u(-1, 1);
  for (auto* x : {&A, &B, &C})
    for (std::size_t i = 0; i < x->size(); ++i) (*x)[i] = u(g);
  // Host values of a few entries before the call.
  const std::int64_t samples[][2] = {{0, 0}, {m - 1, n - 1}, {1234, 4000}, {4095, 7}, {2048, 2048}};
  double expect[5];
  for (int s = 0; s < 5; ++s) {
    const std::int64_t i = samples[s][0], j = samples[s][1];
    double acc = 0;
    for (std::int64_t l = 0; l < k; ++l) acc += A[i + l * m] * B[l + j * k];
    expect[s] = alpha * acc + beta * C[i + j * m];
  }
  std::vector<double> C0(C.data(), C.data() + C.size());

  bool ok = true;
  for (auto mode : {cuprim::ooc::gemm_mode::three_way, cuprim::ooc::gemm_mode::four_way}) {
    if (mode == cuprim::ooc::gemm_mode::four_way && !cuprim::ooc::cpu_blas_available()) {
      std::printf("4-way: no CPU BLAS found (install OpenBLAS or set CUPRIM_CBLAS); skipped\n");
      continue;
    }
    cuprim::ooc::gemm_options opt;
    opt.mode = mode;
    opt.device_budget_bytes = C.size() * sizeof(double) / 4;  // the GPU may hold a quarter of C
    // Timed: the second call (the first also creates the cuBLAS handle, fills the memory pool and, for 4-way,
    // measures the rates the CPU share is chosen from; later calls reuse all three).
    cuprim::ooc::gemm_report r;
    double ms = 0;
    for (int call = 0; call < 2; ++call) {
      std::copy(C0.begin(), C0.end(), C.data());
      const auto t0 = std::chrono::steady_clock::now();
      r = cuprim::ooc::gemm_sync<double>('N', 'N', m, n, k, alpha, A.data(), m, B.data(), k, beta, C.data(), m, opt);
      ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    }
    std::printf("%s: %.2f ms (%.0f GFLOP/s), %lld tiles of %lld x %lld x %lld, %.1f MiB of device memory, "
                "%.0f MB in, %.0f MB out, CPU columns %lld\n",
                cuprim::ooc::gemm_mode_name(mode), ms, 2.0 * m * n * k / (ms * 1e-3) / 1e9, (long long)r.tiles,
                (long long)r.tile_m, (long long)r.tile_n, (long long)r.tile_k, r.device_bytes / 1048576.0,
                r.bytes_h2d / 1e6, r.bytes_d2h / 1e6, (long long)r.cpu_columns);
    for (int s = 0; s < 5; ++s) {
      const double got = C[samples[s][0] + samples[s][1] * m];
      if (!(std::fabs(got - expect[s]) <= 1e-10)) {
        std::printf("  mismatch at (%lld, %lld): %.17g, expected %.17g\n", (long long)samples[s][0],
                    (long long)samples[s][1], got, expect[s]);
        ok = false;
      }
    }
  }
  std::printf("%s\n", ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
