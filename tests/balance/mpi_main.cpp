// GoogleTest under MPI with OpenMP threads: MPI is called by the primary thread only. Every rank runs the
// selected test; the launch fails if it fails on any rank. Only rank 0 prints the summary.
#include <gtest/gtest.h>
#include <mpi.h>

#include <memory>

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  ::testing::InitGoogleTest(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    std::unique_ptr<::testing::TestEventListener> quiet(listeners.Release(listeners.default_result_printer()));
  }
  int failed = RUN_ALL_TESTS() != 0 ? 1 : 0, any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any;
}
