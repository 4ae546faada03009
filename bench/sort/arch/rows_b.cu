#include "sweep_common.cuh"
void rows_b(sweep_data& d) {
  pairs_row<448, 20, true, true, 0>(d); pairs_row<512, 18, true, true, 0>(d);
}
