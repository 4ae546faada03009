#include "sweep_common.cuh"
void rows_c(sweep_data& d) { u64_row<384, 24, true, 32>(d); u64_row<384, 28, true, 32>(d); }
