#include "sweep_common.cuh"
void rows_f(sweep_data& d) {
  u64_row<384, 24, true, 32>(d); u64_row<256, 24, true, 32, 3>(d);
}
