#include "sweep_common.cuh"
void rows_a(sweep_data& d) {
  pairs_row<384, 26, true, true, 0>(d); pairs_row<448, 22, true, true, 0>(d);
}
