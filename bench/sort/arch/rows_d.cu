#include "sweep_common.cuh"
void rows_d(sweep_data& d) {
  pairs_row<256, 28, true, true, 0, 3>(d); pairs_row<320, 24, true, true, 0, 3>(d);
}
