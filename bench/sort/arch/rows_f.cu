#include "sweep_common.cuh"
void rows_f(sweep_data&) {}
