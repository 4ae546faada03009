#include "sweep_common.cuh"
void rows_d(sweep_data& d) {
  pairs_row<256, 42, true, true, 0, 2, 1>(d);
  pairs_row<256, 46, true, true, 0, 2, 1>(d);
}
