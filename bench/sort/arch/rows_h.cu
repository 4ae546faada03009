#include "sweep_common.cuh"
void rows_h(sweep_data&) {
}
