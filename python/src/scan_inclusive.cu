// python/src/scan_inclusive.cu: cuprim::inclusive_sum for the pairs of scan_impl.cuh.
#include "scan_impl.cuh"

namespace cuprim::python {

void scan_sum_inclusive(int dev, int in_dtype, int out_dtype, addr in, addr out, std::int64_t n, addr stream) {
  scan_sum_run<false>("cuprim.cumsum", dev, in_dtype, out_dtype, in, out, n, stream);
}

void describe_scan(table& t) {
  describe_scan_pairs(t, "inclusive_scan", scan_types{});
  describe_scan_pairs(t, "exclusive_scan", scan_types{});
}

}  // namespace cuprim::python
