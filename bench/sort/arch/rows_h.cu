#include "sweep_common.cuh"
void rows_h(sweep_data& d) {
  pairs_row<256, 48, true, true, 0, 2, 1>(d);
  u64_row<256, 40, true, 32, 2, 1, 0>(d);
}
