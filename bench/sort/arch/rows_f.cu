#include "sweep_common.cuh"
void rows_f(sweep_data& d) {
  pairs_row<320, 32, true, true, 0, 2, 1>(d);
  pairs_row<256, 40, true, true, 0, 2, 1>(d);
}
