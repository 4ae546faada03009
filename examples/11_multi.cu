// Example 11: several GPUs. One process drives every visible GPU through cuprim::multi (NCCL underneath): a
// sharded array of ten million integers is summed, scanned and histogrammed across them, each result checked
// against the host. With one GPU it runs on one rank; the code is the same.
//
//   build/examples/11_multi
#include <cuprim/multi.cuh>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

int main() {
  if (!cuprim::has_device()) {
    std::puts("11_multi: no CUDA device found; this example needs a GPU.");
    return 77;  // reported as skipped by the test suite
  }
  setenv("NCCL_NVLS_ENABLE", "0", 0);  // NVLink multicast is not needed (the caller may still choose it)
  namespace multi = cuprim::multi;
  bool ok = true;
  {
    multi::communicator comm = multi::communicator::local();  // every visible GPU, rank i on device i
    const std::int64_t n = 10'000'019;
    const std::vector<std::int64_t> sizes = multi::even_split(n, comm.size());

    std::vector<int> host(n);
    std::mt19937 gen(11);
    std::uniform_int_distribution<int> dist(0, 99);  // the prefix sums stay within int
    for (int& x : host) x = dist(gen);

    // Buffers go before the communicator (their memory is released on its streams).
    auto data = multi::sharded_buffer<int>::for_ranks(comm, sizes);
    auto prefix = multi::sharded_buffer<int>::for_ranks(comm, sizes);
    multi::sharded_buffer<long long> total(comm, 1);          // one element on every rank
    multi::sharded_buffer<unsigned> bins(comm, 10);           // ten bins on every rank
    multi::copy_from_host<int>(comm, host, sizes, data.view());

    multi::sum(comm, data.view(), total.view());                        // every rank: Σ x
    multi::exclusive_sum(comm, data.view(), prefix.view());             // global prefix sums, sharded
    multi::histogram_even(comm, data.view(), bins.view(), 10, 0, 100);  // every rank: 10 bins of 10
    comm.synchronize();

    long long ref_total = 0;
    std::vector<unsigned> ref_bins(10, 0);
    for (int x : host) ref_total += x, ++ref_bins[std::size_t(x / 10)];
    std::vector<int> got_prefix(n);
    multi::copy_to_host<int>(comm, multi::sharded<const int>(prefix.view()), sizes, got_prefix);
    int s = 0;
    for (std::int64_t i = 0; i < n && ok; ++i) ok = got_prefix[std::size_t(i)] == s, s += host[std::size_t(i)];
    for (int r = 0; r < comm.local_size(); ++r) {
      multi::device_guard g(comm[r].device);
      long long t = 0;
      std::vector<unsigned> b(10);
      CUPRIM_CUDA_CHECK(cudaMemcpy(&t, total.data(r), sizeof t, cudaMemcpyDeviceToHost));
      CUPRIM_CUDA_CHECK(cudaMemcpy(b.data(), bins.data(r), 10 * sizeof(unsigned), cudaMemcpyDeviceToHost));
      ok = ok && t == ref_total && b == ref_bins;
    }
    std::printf("11_multi: %d GPU(s), n = %lld: sum %lld, prefix sums and histogram %s\n", comm.size(),
                static_cast<long long>(n), ref_total, ok ? "match the host" : "DIFFER from the host");
  }
  return ok ? 0 : 1;
}
