// cuprim/host/reduce.hpp: sequential host references for the reduction family.
//
// The baselines the seeds compare against, and the references tests and the lab's verify check the GPU
// against. They follow the device API's conventions (accumulator = init's type, float for 16-bit floats;
// argmin/argmax ties to the lowest index, NaN reported first) and run in index order.
#pragma once

#include <cuprim/core/functional.cuh>

#include <cstdint>

namespace cuprim::host {

/// init ⊕ transform(in[0]) ⊕ ... in index order, accumulated as cuprim::transform_reduce does.
template <class In, class Transform, class Op, class Init>
accumulator_t<Init> transform_reduce(const In* in, std::int64_t n, Transform transform, Op op, Init init) {
  using Acc = accumulator_t<Init>;
  Acc acc = detail::convert<Acc>(init);
  for (std::int64_t i = 0; i < n; ++i) acc = op(acc, detail::convert<Acc>(transform(in[i])));
  return acc;
}

/// init ⊕ in[0] ⊕ ... ⊕ in[n-1] in index order.
template <class In, class Op, class Init>
accumulator_t<Init> reduce(const In* in, std::int64_t n, Op op, Init init) {
  return transform_reduce(in, n, identity{}, op, init);
}

/// (extreme value, lowest index); NaN first; (init value, -1) when n = 0.
template <bool Max, class T>
arg_result<T> arg_extreme(const T* in, std::int64_t n) {
  arg_result<T> best{Max ? numeric_traits<T>::lowest() : numeric_traits<T>::highest(), -1};
  detail::arg_op<Max> op;
  for (std::int64_t i = 0; i < n; ++i) best = op(best, arg_result<T>{in[i], i});
  return best;
}
template <class T>
arg_result<T> argmin(const T* in, std::int64_t n) { return arg_extreme<false>(in, n); }
template <class T>
arg_result<T> argmax(const T* in, std::int64_t n) { return arg_extreme<true>(in, n); }

}  // namespace cuprim::host
