#include "sweep_common.cuh"
void rows_c(sweep_data& d) {
  pairs_row<384, 26, true, true, 0, 2, 1, 0>(d); pairs_row<384, 30, true, true, 0, 2, 1>(d);
}
