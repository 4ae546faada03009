#include "sweep_common.cuh"
void rows_d(sweep_data& d) { u64_row<384, 32, true, 32>(d); pairs_row<384, 27, true, true, 0>(d); }
