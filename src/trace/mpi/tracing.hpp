// An open trace: the recorder of this process, the communicator it was started on, and (on its rank 0)
// every rank's clock against rank 0's.
#pragma once

#include "../../coll/mpi/tracing_hooks.hpp"
#include "../../core/mpi/check.hpp"

#include <herald/trace.hpp>

#include <mpi.h>

#include <filesystem>
#include <memory>
#include <vector>

namespace herald::trace {

class Tracing final : public OpenTrace {
 public:
  // Collective over `comm`.
  Tracing(MPI_Comm comm, std::filesystem::path directory);
  Tracing(const Tracing&) = delete;
  Tracing& operator=(const Tracing&) = delete;
  // Collective: measures the clocks again, gathers the events on rank 0, writes the files there.
  void finish() override;
  Recorder& recorder() noexcept override { return *recorder_; }
  MPI_Comm user() const noexcept { return user_; }
  const std::filesystem::path& directory() const noexcept { return directory_; }

 private:
  // Rank 0 plays ping-pong with every rank in turn; sets each rank's fit, at the start or the end.
  void measure(bool at_end);
  std::vector<Log> gather();

  MPI_Comm user_;
  mpi::Communicator comm_;
  std::filesystem::path directory_;
  int rank_ = 0, size_ = 1;
  bool simulated_ = false;  // every rank reads one clock (SMPI's, or MPI_WTIME_IS_GLOBAL)
  std::unique_ptr<Recorder> recorder_;
  std::vector<ClockFit> clocks_;  // rank 0: every rank's
};

}  // namespace herald::trace
