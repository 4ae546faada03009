#include "sweep_common.cuh"
void rows_h(sweep_data& d) {
  u32_row<384, 36, 32, 2, 1>(d); pairs_row<384, 27, true, true, 0, 2, 1>(d);
}
