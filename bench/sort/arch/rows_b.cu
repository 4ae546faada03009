#include "sweep_common.cuh"
void rows_b(sweep_data& d) {
  pairs_row<256, 40, true, false, 32, 2, 1, 1, false, 2, 1>(d);
}
