#include "sweep_common.cuh"
void rows_a(sweep_data& d) {
  pairs_row<384, 26, true, true, 0, 2, 1>(d);
  pairs_row<256, 44, true, true, 0, 2, 1>(d);
}
