#include "sweep_common.cuh"
void rows_c(sweep_data& d) {
  u32_row<384, 40, 32>(d);
  u32_row<256, 60, 32>(d);
}
