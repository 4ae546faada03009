#include "sweep_common.cuh"
void rows_e(sweep_data& d) {
  u64_row<384, 28, true, 32, 2, 1, 1, true>(d); u64_row<384, 20, true, 32, 2, 1, 1, true>(d);
}
