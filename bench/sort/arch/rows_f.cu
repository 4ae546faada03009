#include "sweep_common.cuh"
void rows_f(sweep_data& d) {
  u32_row<384, 40, 32>(d); u32_row<384, 40, 32, 2, 1>(d);
}
