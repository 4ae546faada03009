#include "sweep_common.cuh"
void rows_g(sweep_data&) {}
