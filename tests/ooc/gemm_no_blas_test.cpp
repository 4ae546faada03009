// Four-way mode without a CPU BLAS: CUPRIM_CBLAS names a library that does not exist, so the run-time loader finds
// none, and gemm_sync must say so (cuprim::ooc::cpu_blas_unavailable naming what it tried) before anything else
// happens. With cpu_share = 0 the same call needs no CPU BLAS. A process of its own: the loader runs once.
#include <cuprim/ooc/gemm.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

TEST(OocGemmNoBlas, FourWayReportsTheMissingLibrary) {
  ASSERT_EQ(setenv("CUPRIM_CBLAS", "/nonexistent/libcblas-for-test.so", 1), 0);
  EXPECT_FALSE(cuprim::ooc::cpu_blas_available());
  EXPECT_EQ(cuprim::ooc::cpu_blas_name(), "");
  std::vector<double> A(16, 1.0), B(16, 1.0), C(16, 5.0);
  cuprim::ooc::gemm_options o;
  o.mode = cuprim::ooc::gemm_mode::four_way;
  o.device_budget_bytes = 1 << 20;
  try {
    cuprim::ooc::gemm_sync<double>('N', 'N', 4, 4, 4, 1.0, A.data(), 4, B.data(), 4, 1.0, C.data(), 4, o);
    ADD_FAILURE() << "no exception";
  } catch (const cuprim::ooc::cpu_blas_unavailable& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("/nonexistent/libcblas-for-test.so"), std::string::npos) << what;
    EXPECT_NE(what.find("CUPRIM_CBLAS"), std::string::npos) << what;
  }
  for (double c : C) EXPECT_EQ(c, 5.0);
  // Planning reports the same.
  EXPECT_THROW(cuprim::ooc::gemm_plan<double>('N', 'N', 4, 4, 4, 1.0, A.data(), 4, B.data(), 4, 1.0, C.data(), 4, o),
               cuprim::ooc::cpu_blas_unavailable);
  // The CPU BLAS alone reports the same.
  EXPECT_THROW(cuprim::ooc::cpu_blas_gemm<double>('N', 'N', 4, 4, 4, 1.0, A.data(), 4, B.data(), 4, 1.0, C.data(), 4),
               cuprim::ooc::cpu_blas_unavailable);
  o.cpu_share = 0;  // no CPU part: planned as three_way
  const auto r = cuprim::ooc::gemm_plan<double>('N', 'N', 4, 4, 4, 1.0, A.data(), 4, B.data(), 4, 1.0, C.data(), 4, o);
  EXPECT_EQ(r.cpu_columns, 0);
  EXPECT_EQ(r.gpu_columns, 4);
}
