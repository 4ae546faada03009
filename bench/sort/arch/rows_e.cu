#include "sweep_common.cuh"
void rows_e(sweep_data& d) {
  u64_hi_row<256, 40, true, 32, 2, 1, 1, false, 2>(d);
}
