#include "sweep_common.cuh"
void rows_d(sweep_data& d) {
  pairs_row<256, 40, true, false, 32, 2, 1, 1, false, 0, 1>(d);
}
