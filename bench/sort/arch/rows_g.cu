#include "sweep_common.cuh"
void rows_g(sweep_data& d) {
  u32_row<384, 40, 32, 2, 1, 1, true>(d); u64_row<384, 24, true, 32>(d);
}
