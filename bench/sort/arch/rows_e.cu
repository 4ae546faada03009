#include "sweep_common.cuh"
void rows_e(sweep_data& d) {
  pairs_row<384, 18, true, true, 0, 3>(d); pairs_row<384, 16, true, true, 0, 3>(d);
}
