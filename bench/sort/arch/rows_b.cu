#include "sweep_common.cuh"
void rows_b(sweep_data& d) {
  pairs_row<384, 28, true, true, 0, 2, 1>(d); pairs_row<384, 24, true, true, 0, 2, 1>(d);
}
