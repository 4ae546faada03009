#include "sweep_common.cuh"
void rows_e(sweep_data& d) {
  u64_row<256, 38, true, 32, 2, 1>(d);
  u64_row<256, 42, true, 32, 2, 1>(d);
}
