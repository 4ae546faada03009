// python/src/scan_exclusive.cu: cuprim::exclusive_sum for the pairs of scan_impl.cuh.
#include "scan_impl.cuh"

namespace cuprim::python {

void scan_sum_exclusive(int dev, int in_dtype, int out_dtype, addr in, addr out, std::int64_t n, addr stream) {
  scan_sum_run<true>("cuprim.exclusive_scan", dev, in_dtype, out_dtype, in, out, n, stream);
}

}  // namespace cuprim::python
