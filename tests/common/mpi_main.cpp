// GoogleTest under mpiexec, for every MPI test program: every rank runs every test; rank 0 prints the usual
// report plus the failures of every other rank (collected over MPI, since mpiexec may cut a failing rank's
// output short), and all ranks exit with the same status. MPI_THREAD_MULTIPLE is asked for because the dyn
// progress-thread test needs it; the others call MPI from one thread at a time.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

namespace {

class CollectFailures : public testing::EmptyTestEventListener {
 public:
  explicit CollectFailures(std::string& sink) : sink_(sink) {}
  void OnTestStart(const testing::TestInfo& info) override {
    test_ = std::string(info.test_suite_name()) + "." + info.name();
  }
  void OnTestPartResult(const testing::TestPartResult& result) override {
    if (!result.failed()) return;
    sink_ += test_ + " at " + (result.file_name() ? result.file_name() : "?") + ":" +
             std::to_string(result.line_number()) + ": " + result.summary() + "\n";
  }

 private:
  std::string& sink_;
  std::string test_;
};

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  testing::InitGoogleTest(&argc, argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::string failures;
  auto& listeners = testing::UnitTest::GetInstance()->listeners();
  if (rank != 0) delete listeners.Release(listeners.default_result_printer());
  listeners.Append(new CollectFailures(failures));  // GoogleTest owns its listeners
  const int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;

  // Bring every rank's failure text to rank 0.
  const int length = static_cast<int>(failures.size());
  std::vector<int> lengths(size), offsets(size);
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::string all;
  if (rank == 0) {
    for (int r = 1; r < size; ++r) offsets[r] = offsets[r - 1] + lengths[r - 1];
    all.resize(static_cast<std::size_t>(offsets[size - 1] + lengths[size - 1]));
  }
  MPI_Gatherv(failures.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0,
              MPI_COMM_WORLD);
  if (rank == 0) {
    for (int r = 1; r < size; ++r)
      if (lengths[r] > 0)
        std::printf("[rank %d] FAILED:\n%s", r, all.substr(offsets[r], lengths[r]).c_str());
    std::fflush(stdout);
  }
  int any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0 && any) std::printf("FAILED on at least one rank\n");
  MPI_Finalize();
  return any;
}
