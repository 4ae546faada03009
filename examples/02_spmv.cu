// Example 02: a sparse matrix-vector product y = A·x with A in CSR form, on the GPU with cuprim.
//
// Blelloch's "BLAS on compact sparse representations" (the scan lecture's list of uses): row r of y is the sum of
// vals[k]·x[cols[k]] over the row's nonzeros k in [row_ptr[r], row_ptr[r+1]), i.e. a segmented reduction over
// the row pointer. cuprim::segmented_transform_reduce forms each product as it loads the value (an indexed
// transform receives the value and its position k) and sums each row, balancing the work over rows and nonzeros
// together, so empty rows and very long rows cost what their size says. The result is checked against the same
// product on the host.
//
//   build/examples/02_spmv
#include <cuprim/cuprim.cuh>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

// vals[k] · x[cols[k]]: `indexed` makes cuprim pass k, the value's position, along with the value.
struct csr_product {
  static constexpr bool indexed = true;
  const float* x;
  const int* cols;
  __host__ __device__ float operator()(float value, std::int64_t k) const { return value * x[cols[k]]; }
};
static_assert(csr_product::indexed);

int main() {
  if (!cuprim::has_device()) {
    std::puts("02_spmv: no CUDA device found; this example needs a GPU.");
    return 77;  // reported as skipped by the test suite
  }
  // A 20000 × 15000 matrix: most rows hold a few nonzeros, every 50th row is empty, every 997th is dense-ish.
  const int rows = 20000, cols_n = 15000;
  std::mt19937 gen(2024);
  std::uniform_real_distribution<float> value(-1.f, 1.f);
  std::uniform_int_distribution<int> column(0, cols_n - 1), short_row(1, 12);
  std::vector<int> row_ptr(rows + 1, 0), cols;
  std::vector<float> vals;
  for (int r = 0; r < rows; ++r) {
    const int len = r % 50 == 0 ? 0 : r % 997 == 0 ? 4000 : short_row(gen);
    for (int i = 0; i < len; ++i) {
      cols.push_back(column(gen));
      vals.push_back(value(gen));
    }
    row_ptr[r + 1] = static_cast<int>(vals.size());
  }
  std::vector<float> x(cols_n);
  for (float& v : x) v = value(gen);

  cudaStream_t stream;
  CUPRIM_CUDA_CHECK(cudaStreamCreate(&stream));
  bool ok = false;
  {  // buffers are released (stream-ordered) before the stream is destroyed
    cuprim::device_buffer<float> d_vals(std::span<const float>(vals), stream), d_x(std::span<const float>(x), stream);
    cuprim::device_buffer<int> d_cols(std::span<const int>(cols), stream), d_rows(std::span<const int>(row_ptr), stream);
    cuprim::device_buffer<float> d_y(rows, stream);

    cuprim::segmented_transform_reduce(d_vals.data(), d_y.data(), d_rows.data(), rows,
                                       csr_product{d_x.data(), d_cols.data()}, cuprim::plus{}, 0.f, stream);
    const std::vector<float> y = d_y.to_host_sync();

    // The host product, and a bound on float rounding per row: eps · Σ|products| · (a few dozen steps).
    int bad = 0;
    double max_err = 0;
    for (int r = 0; r < rows; ++r) {
      double ref = 0, abs_sum = 0;
      for (int k = row_ptr[r]; k < row_ptr[r + 1]; ++k) {
        const double p = double(vals[k]) * double(x[cols[k]]);
        ref += p;
        abs_sum += std::fabs(p);
      }
      const double err = std::fabs(double(y[r]) - ref);
      max_err = std::fmax(max_err, err);
      if (!(err <= 64 * 0x1p-24 * abs_sum + 1e-30)) ++bad;
    }
    ok = bad == 0;
    std::printf("y = A x for a %d x %d CSR matrix with %zu nonzeros (empty rows and long rows included)\n", rows,
                cols_n, vals.size());
    std::printf("y[0..3] = %.6f %.6f %.6f %.6f; largest difference from the host %.3g\n", y[0], y[1], y[2], y[3],
                max_err);
    std::printf("%s\n", ok ? "02_spmv: every row matches the host" : "02_spmv: MISMATCH");
  }
  CUPRIM_CUDA_CHECK(cudaStreamDestroy(stream));
  return ok ? 0 : 1;
}
