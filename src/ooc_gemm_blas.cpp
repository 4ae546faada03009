// The out-of-core GEMM's BLAS back ends (include/cuprim/ooc/gemm.hpp, gemm_engine.hpp): the cuBLAS tile engine,
// and the CPU BLAS of the 4-way mode, loaded at run time.
#include "ooc_gemm.hpp"

#include <cuprim/core/error.hpp>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <source_location>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace cuprim::ooc {

// ---------------------------------------------------------------------------------------------------------------
// cuBLAS engine

template <class T>
cublas_tile_engine<T>::cublas_tile_engine() {
  CUPRIM_CUDA_CHECK(cudaGetDevice(&device_));
  cublasHandle_t h = nullptr;
  const cublasStatus_t st = cublasCreate(&h);
  if (st != CUBLAS_STATUS_SUCCESS)
    throw cuda_error(cudaErrorUnknown, std::string("cublasCreate: ") + cublasGetStatusString(st),
                     std::source_location::current());
  handle_ = h;
}

template <class T>
cublas_tile_engine<T>::~cublas_tile_engine() {
  if (handle_) (void)cublasDestroy(static_cast<cublasHandle_t>(handle_));
}

template <class T>
void cublas_tile_engine<T>::gemm(cudaStream_t stream, char transa, char transb, int m, int n, int k, T alpha,
                                 const T* A, int lda, const T* B, int ldb, T beta, T* C, int ldc) {
  auto h = static_cast<cublasHandle_t>(handle_);
  auto check = [](cublasStatus_t st, const char* call) {
    if (st != CUBLAS_STATUS_SUCCESS)
      throw cuda_error(cudaErrorUnknown, std::string(call) + ": " + cublasGetStatusString(st),
                       std::source_location::current());
  };
  check(cublasSetStream(h, stream), "cublasSetStream");
  const cublasOperation_t oa = transa == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T;
  const cublasOperation_t ob = transb == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T;
  if constexpr (std::is_same_v<T, double>)
    check(cublasDgemm(h, oa, ob, m, n, k, &alpha, A, lda, B, ldb, &beta, C, ldc), "cublasDgemm");
  else
    check(cublasSgemm(h, oa, ob, m, n, k, &alpha, A, lda, B, ldb, &beta, C, ldc), "cublasSgemm");
}

template class cublas_tile_engine<float>;
template class cublas_tile_engine<double>;

namespace detail {

template <class T>
gemm_tile_engine<T>& default_tile_engine() {
  thread_local std::map<int, std::unique_ptr<cublas_tile_engine<T>>> engines;
  int dev = 0;
  CUPRIM_CUDA_CHECK(cudaGetDevice(&dev));
  auto& e = engines[dev];
  if (!e) e = std::make_unique<cublas_tile_engine<T>>();
  return *e;
}

template gemm_tile_engine<float>& default_tile_engine<float>();
template gemm_tile_engine<double>& default_tile_engine<double>();

// ---------------------------------------------------------------------------------------------------------------
// CPU BLAS, loaded at run time

namespace {

constexpr int cblas_col_major = 102, cblas_no_trans = 111, cblas_trans = 112;
using dgemm_fn = void (*)(int, int, int, int, int, int, double, const double*, int, const double*, int, double,
                          double*, int);
using sgemm_fn = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*,
                          int);
using set_threads_fn = void (*)(int);

struct cblas_library {
  void* handle = nullptr;
  dgemm_fn dgemm = nullptr;
  sgemm_fn sgemm = nullptr;
  set_threads_fn set_threads = nullptr;  // openblas_set_num_threads, when exported
  std::string path;
  std::string tried;  // for the error message
};

const cblas_library& cblas() {
  static cblas_library lib;
  static std::once_flag once;
  std::call_once(once, [] {
    std::vector<std::string> candidates;
    if (const char* env = std::getenv("CUPRIM_CBLAS"); env && *env) {
      candidates.emplace_back(env);
    } else {
      candidates = {"libopenblas.so.0", "libopenblas.so", "libcblas.so.3", "libblis.so.4", "libmkl_rt.so",
                    "libblas.so.3"};
    }
    for (const auto& c : candidates) {
      void* h = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!h) {
        const char* e = dlerror();
        lib.tried += (lib.tried.empty() ? "" : "; ") + c + " (" + (e ? e : "not loadable") + ")";
        continue;
      }
      auto d = reinterpret_cast<dgemm_fn>(dlsym(h, "cblas_dgemm"));
      auto s = reinterpret_cast<sgemm_fn>(dlsym(h, "cblas_sgemm"));
      if (!d || !s) {
        lib.tried += (lib.tried.empty() ? "" : "; ") + c + " (no cblas_dgemm/cblas_sgemm)";
        dlclose(h);
        continue;
      }
      lib.handle = h;
      lib.dgemm = d;
      lib.sgemm = s;
      lib.set_threads = reinterpret_cast<set_threads_fn>(dlsym(h, "openblas_set_num_threads"));
      lib.path = c;
      using corename_fn = char* (*)();
      if (auto core = reinterpret_cast<corename_fn>(dlsym(h, "openblas_get_corename")))
        if (const char* name = core()) lib.path += std::string(" (") + name + ")";
      return;
    }
  });
  return lib;
}

std::mutex& cpu_blas_mutex() {  // one CPU GEMM at a time per process (the thread count is global state)
  static std::mutex m;
  return m;
}

}  // namespace

bool cblas_loaded() { return cblas().handle != nullptr; }
const std::string& cblas_tried() { return cblas().tried; }

int cpu_thread_count(const gemm_options& o) {
  if (o.cpu_threads > 0) return o.cpu_threads;
  const unsigned hw = std::thread::hardware_concurrency();
  return hw > 1 ? static_cast<int>(hw) - 1 : 1;
}

template <class T>
void cpu_gemm(int threads, char ta, char tb, std::int64_t m, std::int64_t n, std::int64_t k, T alpha, const T* A,
              std::int64_t lda, const T* B, std::int64_t ldb, T beta, T* C, std::int64_t ldc) {
  const cblas_library& lib = cblas();
  std::lock_guard<std::mutex> lock(cpu_blas_mutex());
  if (lib.set_threads) lib.set_threads(threads);
  const int oa = ta == 'N' ? cblas_no_trans : cblas_trans, ob = tb == 'N' ? cblas_no_trans : cblas_trans;
  if constexpr (std::is_same_v<T, double>)
    lib.dgemm(cblas_col_major, oa, ob, int(m), int(n), int(k), alpha, A, int(lda), B, int(ldb), beta, C, int(ldc));
  else
    lib.sgemm(cblas_col_major, oa, ob, int(m), int(n), int(k), alpha, A, int(lda), B, int(ldb), beta, C, int(ldc));
}

template void cpu_gemm<float>(int, char, char, std::int64_t, std::int64_t, std::int64_t, float, const float*,
                              std::int64_t, const float*, std::int64_t, float, float*, std::int64_t);
template void cpu_gemm<double>(int, char, char, std::int64_t, std::int64_t, std::int64_t, double, const double*,
                               std::int64_t, const double*, std::int64_t, double, double*, std::int64_t);

}  // namespace detail

// ---------------------------------------------------------------------------------------------------------------
// CPU BLAS queries

bool cpu_blas_available() noexcept {
  try {
    return detail::cblas_loaded();
  } catch (...) {
    return false;
  }
}
std::string cpu_blas_name() { return detail::cblas().path; }

}  // namespace cuprim::ooc
