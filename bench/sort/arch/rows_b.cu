#include "sweep_common.cuh"
void rows_b(sweep_data& d) { pairs_row<384, 30, true, true, 0>(d); pairs_row<384, 30, false, false, 0>(d); }
