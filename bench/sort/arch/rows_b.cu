#include "sweep_common.cuh"
void rows_b(sweep_data& d) {
  pairs_row<256, 44, true, true, 0, 2, 1, 1, false, 1>(d);
  u64_row<256, 40, true, 32, 2, 1, 1, false, 0>(d);
}
