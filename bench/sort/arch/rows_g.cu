#include "sweep_common.cuh"
void rows_g(sweep_data& d) {
  u64_row<256, 32, true, 32>(d); u64_row<448, 20, true, 32>(d);
}
