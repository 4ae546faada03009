// Example 04: radix sort with cuprim. A table of a million particles, each with a float energy and a 32-bit
// cell id: sort the particles by cell (radix_sort_pairs carrying each particle's index, stable, so particles of a
// cell keep their order), rank them by energy from the highest (argsort, descending), and sort the energies in
// place between two buffers (the double-buffer form); then the particles as structs, ordered by cell and, within a
// cell, by energy from the highest, through a key decomposer (the members that form the key, most significant
// first). Each result is checked against std::stable_sort.
//
//   build/examples/04_radix_sort
#include <cuprim/cuprim.cuh>
#include <cuprim/device/radix_sort.cuh>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

struct particle {
  std::uint32_t cell;
  float energy;
  std::uint32_t id;
};

/// The key decomposer: cell first, then energy (a functor callable on the host and the device).
struct by_cell_then_energy {
  __host__ __device__ cuprim::key_members_t<std::uint32_t, float> operator()(const particle& p) const {
    return cuprim::key_members(p.cell, p.energy);
  }
};

int main() {
  if (!cuprim::has_device()) {
    std::puts("04_radix_sort: no CUDA device found; this example needs a GPU.");
    return 77;  // reported as skipped by the test suite
  }
  const std::int64_t n = 1'000'003;
  std::vector<std::uint32_t> cell(n);
  std::vector<float> energy(n);
  std::mt19937 gen(7);
  std::uniform_int_distribution<std::uint32_t> cells(0, 4095);  // 12-bit cell ids: sort only bits [0, 12)
  std::exponential_distribution<float> e(1.0f);
  for (std::int64_t i = 0; i < n; ++i) {
    cell[i] = cells(gen);
    energy[i] = e(gen);
  }
  std::vector<std::uint32_t> index(n);
  std::iota(index.begin(), index.end(), 0u);

  bool ok = true;
  {
    cuprim::device_buffer<std::uint32_t> d_cell{std::span<const std::uint32_t>(cell)};
    cuprim::device_buffer<std::uint32_t> d_index{std::span<const std::uint32_t>(index)};
    cuprim::device_buffer<std::uint32_t> sorted_cell(n), sorted_index(n);
    // 1. Particles by cell: 12 bits are enough, so two passes instead of four.
    cuprim::radix_sort_pairs(d_cell.data(), sorted_cell.data(), d_index.data(), sorted_index.data(), n,
                             cuprim::radix_sort_options{.end_bit = 12});
    std::vector<std::uint32_t> want = index;
    std::stable_sort(want.begin(), want.end(), [&](std::uint32_t a, std::uint32_t b) { return cell[a] < cell[b]; });
    ok &= sorted_index.to_host_sync() == want;

    // 2. Rank by energy, highest first.
    cuprim::device_buffer<float> d_energy{std::span<const float>(energy)};
    cuprim::device_buffer<std::int64_t> rank(n);
    cuprim::argsort(d_energy.data(), rank.data(), n, {cuprim::sort_order::descending});
    std::vector<std::int64_t> want_rank(n);
    std::iota(want_rank.begin(), want_rank.end(), std::int64_t(0));
    std::stable_sort(want_rank.begin(), want_rank.end(),
                     [&](std::int64_t a, std::int64_t b) { return energy[a] > energy[b]; });
    ok &= rank.to_host_sync() == want_rank;

    // 3. The energies themselves, ping-ponging between two buffers: read the result from current().
    cuprim::device_buffer<float> alt(n);
    cuprim::double_buffer<float> buf(d_energy.data(), alt.data());
    cuprim::radix_sort_keys(buf, n);
    std::vector<float> sorted(n);
    CUPRIM_CUDA_CHECK(cudaMemcpy(sorted.data(), buf.current(), n * sizeof(float), cudaMemcpyDeviceToHost));
    std::vector<float> want_e = energy;
    std::sort(want_e.begin(), want_e.end());
    ok &= sorted == want_e;

    // 4. Particles as structs, by cell, then by energy from the highest (descending applies to every member).
    std::vector<particle> parts(n);
    for (std::int64_t i = 0; i < n; ++i) parts[i] = {cell[i], energy[i], std::uint32_t(i)};
    cuprim::device_buffer<particle> d_parts{std::span<const particle>(parts)}, sorted_parts(n);
    cuprim::radix_sort_keys(d_parts.data(), sorted_parts.data(), n, by_cell_then_energy{},
                            {cuprim::sort_order::descending});
    std::vector<particle> want_p = parts;
    std::stable_sort(want_p.begin(), want_p.end(), [](const particle& a, const particle& b) {
      return a.cell != b.cell ? a.cell > b.cell : a.energy > b.energy;
    });
    const std::vector<particle> got_p = sorted_parts.to_host_sync();
    for (std::int64_t i = 0; i < n; ++i) ok &= got_p[i].id == want_p[i].id;
  }
  std::printf("04_radix_sort: %lld particles sorted by cell, ranked by energy, energies sorted, structs by (cell, "
              "energy): %s\n",
              static_cast<long long>(n), ok ? "all match std::stable_sort" : "MISMATCH");
  return ok ? 0 : 1;
}
