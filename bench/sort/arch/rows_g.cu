#include "sweep_common.cuh"
void rows_g(sweep_data& d) {
  u32_row<384, 40, 32, 2, 2, 1, false, 0>(d);
}
