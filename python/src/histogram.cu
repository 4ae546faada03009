// python/src/histogram.cu: cuprim::histogram_even with uint64 counters: integer samples with int64 levels (exact
// bins; bincount is [0, length) in length bins), float and double samples with double levels; histogram_range of
// float and double samples over host edges (double).
#include "dispatch.cuh"

#include <cuprim/device/histogram.cuh>

namespace cuprim::python {
namespace {
using int_sample_types = types<std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t, std::uint16_t,
                               std::uint32_t, std::uint64_t>;
using float_sample_types = types<float, double>;
}

void histogram_even_int(int dev, int dt, addr samples, std::int64_t n, addr hist, int bins, std::int64_t lower,
                        std::int64_t upper, addr stream) {
  device_scope scope(dev);
  dispatch("cuprim.histogram_even", dt, int_sample_types{}, [&]<class T>(std::type_identity<T>) {
    cuprim::histogram_even(ptr<const T>(samples), n, ptr<std::uint64_t>(hist), bins, lower, upper, as_stream(stream));
  });
}

void histogram_even_float(int dev, int dt, addr samples, std::int64_t n, addr hist, int bins, double lower,
                          double upper, addr stream) {
  device_scope scope(dev);
  dispatch("cuprim.histogram_even", dt, float_sample_types{}, [&]<class T>(std::type_identity<T>) {
    cuprim::histogram_even(ptr<const T>(samples), n, ptr<std::uint64_t>(hist), bins, lower, upper, as_stream(stream));
  });
}

void histogram_range(int dev, int dt, addr samples, std::int64_t n, addr hist, const std::vector<double>& edges,
                     addr stream) {
  device_scope scope(dev);
  const int bins = static_cast<int>(edges.size()) - 1;  // the C++ call refuses fewer than one bin
  dispatch("cuprim.histogram_range", dt, float_sample_types{}, [&]<class T>(std::type_identity<T>) {
    cuprim::histogram_range(ptr<const T>(samples), n, ptr<std::uint64_t>(hist), bins, edges.data(), as_stream(stream));
  });
}

void describe_histogram(table& t) {
  describe(t, "histogram_range", float_sample_types{});
  describe(t, "histogram_even", int_sample_types{});
  describe(t, "histogram_even", float_sample_types{});
  describe(t, "bincount", int_sample_types{});
}

}  // namespace cuprim::python
