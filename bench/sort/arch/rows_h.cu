#include "sweep_common.cuh"
void rows_h(sweep_data& d) {
  u64_row<512, 16, true, 32>(d); u64_row<320, 24, true, 32, 3>(d); u64_row<384, 16, true, 32, 3>(d);
}
