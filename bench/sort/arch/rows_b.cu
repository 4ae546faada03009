#include "sweep_common.cuh"
void rows_b(sweep_data& d) {
  u64_row<384, 24, true, 32, 2, 1>(d);
  u64_row<256, 40, true, 32, 2, 1>(d);
}
