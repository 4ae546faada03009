#include "sweep_common.cuh"
void rows_a(sweep_data& d) {
  pairs_row<256, 44, true, true, 0, 2, 1, 1, false, 0>(d);
}
