#include "sweep_common.cuh"
void rows_c(sweep_data& d) {
  pairs_row<512, 20, true, true, 0>(d); pairs_row<256, 30, true, true, 0, 3>(d);
}
