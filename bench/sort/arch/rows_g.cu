#include "sweep_common.cuh"
void rows_g(sweep_data& d) {
  u64_row<320, 28, true, 32, 2, 1>(d);
  u64_row<256, 44, true, 32, 2, 1>(d);
}
