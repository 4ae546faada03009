// python/src/unique.cu: cuprim::unique and run_length_encode (int64 run lengths). Integers compare equal exactly
// when their bits do, so each integer width is one instantiation (on its unsigned type); float and double compare as
// floats (-0.0 == 0.0; NaN equals nothing, so each NaN is a run of its own).
#include "dispatch.cuh"

#include <cuprim/device/select.cuh>

namespace cuprim::python {
namespace {
using unique_types = types<std::uint8_t, std::uint16_t, std::uint32_t, std::uint64_t, float, double>;
}

void unique(int dev, int dt, addr in, addr out, addr count, std::int64_t n, addr stream) {
  device_scope scope(dev);
  dispatch("cuprim.unique", dt, unique_types{}, [&]<class T>(std::type_identity<T>) {
    cuprim::unique(ptr<const T>(in), ptr<T>(out), ptr<std::int64_t>(count), n, as_stream(stream));
  });
}

void run_length_encode(int dev, int dt, addr in, addr unique_out, addr counts_out, addr num_runs, std::int64_t n,
                       addr stream) {
  device_scope scope(dev);
  dispatch("cuprim.run_length_encode", dt, unique_types{}, [&]<class T>(std::type_identity<T>) {
    cuprim::run_length_encode(ptr<const T>(in), ptr<T>(unique_out), ptr<std::int64_t>(counts_out),
                              ptr<std::int64_t>(num_runs), n, as_stream(stream));
  });
}

}  // namespace cuprim::python
