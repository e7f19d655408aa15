// Opening and finishing a trace over MPI. Every call here is a PMPI one: the drop-in library intercepts
// MPI's point-to-point calls to move its broadcasts, and a trace must not be one of them.
#include "tracing.hpp"

#include <herald/config.hpp>
#include <herald/tracing.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <system_error>

namespace herald::trace {
namespace {

constexpr int probes_per_rank = 16;
constexpr int tag = 0;
constexpr std::size_t chunk_bytes = std::size_t{1} << 28;  // MPI counts are ints

bool one_clock() {
#ifdef SMPI_H
  return true;  // SimGrid's SMPI: every rank reads the simulated clock
#else
  int* global = nullptr;
  int flag = 0;
  PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &global, &flag);
  return flag && global && *global;
#endif
}

double monotonic_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The open trace: a Tracing, the one kind this file opens.
const Tracing* opened(const mpi::TracingHooks& hooks) { return static_cast<const Tracing*>(hooks.open_trace()); }

std::filesystem::path spill_path(const std::filesystem::path& directory, int rank) {
  return directory / "raw" / ("rank-" + std::to_string(rank) + ".events");
}

}  // namespace

Tracing::Tracing(MPI_Comm comm, std::filesystem::path directory)
    : user_(comm), comm_(comm), directory_(std::move(directory)) {
  rank_ = comm_.rank();
  size_ = comm_.size();
  simulated_ = one_clock();
  std::error_code ec;
  std::filesystem::create_directories(directory_ / "raw", ec);
  // Every rank learns whether every rank could open its spill file, so that all throw or none does.
  std::string problem;
  try {
    recorder_ = std::make_unique<Recorder>([] { return PMPI_Wtime(); }, spill_path(directory_, rank_), rank_);
  } catch (const Error& e) {
    problem = e.message();
  }
  int bad = problem.empty() ? 0 : 1, any = 0;
  HERALD_MPI(PMPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm_.get()));
  if (any)
    throw Error(Errc::invalid_argument, problem.empty() ? "another rank cannot write its part of the trace in " +
                                                              directory_.string()
                                                        : problem);
  recorder_->thread("main");
  if (rank_ == 0) clocks_.resize(static_cast<std::size_t>(size_));
  measure(false);
  if (rank_ == 0) {
    Recording start;
    start.clocks = clocks_;
    start.simulated = simulated_;
    write_clocks(start, directory_ / "raw" / "clocks.json");
  }
}

void Tracing::measure(bool at_end) {
  if (simulated_) return;
  MPI_Comm comm = comm_.get();
  // Processes of one host read MPI_Wtime off one system clock, each from a base of its own (Open MPI's
  // counts from its MPI_Init): the difference of the bases, read against that clock, is exact, where a
  // ping-pong errs by up to half its round trip (milliseconds, with more processes than cores). The
  // others play ping-pong; HERALD_EMULATE_NODES makes hosts up, so that the tests exercise it.
  struct Reading {
    std::uint64_t host;
    double base;  // MPI_Wtime() - the system's monotonic clock
  };
  const Reading mine{mpi::this_node(), PMPI_Wtime() - monotonic_seconds()};
  std::vector<Reading> readings(rank_ == 0 ? static_cast<std::size_t>(size_) : 0);
  HERALD_MPI(PMPI_Gather(&mine, sizeof mine, MPI_BYTE, readings.data(), sizeof mine, MPI_BYTE, 0, comm));
  std::vector<int> same_host(static_cast<std::size_t>(size_), 0);
  if (rank_ == 0)
    for (int r = 0; r < size_; ++r) same_host[static_cast<std::size_t>(r)] = readings[static_cast<std::size_t>(r)].host == mine.host;
  HERALD_MPI(PMPI_Bcast(same_host.data(), size_, MPI_INT, 0, comm));
  for (int r = 1; r < size_; ++r) {
    if (same_host[static_cast<std::size_t>(r)]) {
      if (rank_ != 0) continue;
      ClockFit& fit = clocks_[static_cast<std::size_t>(r)];
      const double offset = readings[static_cast<std::size_t>(r)].base - mine.base;
      // The instant the fit holds at, on that rank's clock: now, near enough for an offset that is exact.
      fit.measured(at_end, PMPI_Wtime() + offset, offset);
      continue;
    }
    if (rank_ == 0) {
      std::array<Probe, probes_per_rank> probes{};
      for (Probe& p : probes) {
        p.sent = PMPI_Wtime();
        HERALD_MPI(PMPI_Send(nullptr, 0, MPI_BYTE, r, tag, comm));
        HERALD_MPI(PMPI_Recv(&p.remote, 1, MPI_DOUBLE, r, tag, comm, MPI_STATUS_IGNORE));
        p.received = PMPI_Wtime();
      }
      // The remote reading of the probe taken is the instant the fit holds at, on that rank's clock.
      const Probe* best = &*std::min_element(probes.begin(), probes.end(), [](const Probe& a, const Probe& b) {
        return a.received - a.sent < b.received - b.sent;
      });
      ClockFit& fit = clocks_[static_cast<std::size_t>(r)];
      const double offset = offset_from(probes);
      fit.error = std::max(fit.error, (best->received - best->sent) / 2);
      fit.measured(at_end, best->remote, offset);
    } else if (rank_ == r) {
      for (int k = 0; k < probes_per_rank; ++k) {
        HERALD_MPI(PMPI_Recv(nullptr, 0, MPI_BYTE, 0, tag, comm, MPI_STATUS_IGNORE));
        const double now = PMPI_Wtime();
        HERALD_MPI(PMPI_Send(&now, 1, MPI_DOUBLE, 0, tag, comm));
      }
    }
  }
}

std::vector<Log> Tracing::gather() {
  recorder_->flush();
  std::vector<std::byte> mine = read_file(recorder_->spill_path());
  std::error_code ec;
  std::filesystem::remove(recorder_->spill_path(), ec);
  MPI_Comm comm = comm_.get();
  std::vector<Log> logs;
  if (rank_ != 0) {
    const std::uint64_t bytes = mine.size();
    HERALD_MPI(PMPI_Send(&bytes, 1, MPI_UINT64_T, 0, tag, comm));
    for (std::size_t at = 0; at < mine.size(); at += chunk_bytes)
      HERALD_MPI(PMPI_Send(mine.data() + at, static_cast<int>(std::min(chunk_bytes, mine.size() - at)), MPI_BYTE, 0,
                           tag, comm));
    return logs;
  }
  logs.push_back(decode_spill(mine, 0));
  for (int r = 1; r < size_; ++r) {
    std::uint64_t bytes = 0;
    HERALD_MPI(PMPI_Recv(&bytes, 1, MPI_UINT64_T, r, tag, comm, MPI_STATUS_IGNORE));
    std::vector<std::byte> theirs(bytes);
    for (std::size_t at = 0; at < theirs.size(); at += chunk_bytes)
      HERALD_MPI(PMPI_Recv(theirs.data() + at, static_cast<int>(std::min(chunk_bytes, theirs.size() - at)), MPI_BYTE,
                           r, tag, comm, MPI_STATUS_IGNORE));
    logs.push_back(decode_spill(theirs, r));
  }
  std::filesystem::remove(directory_ / "raw" / "clocks.json", ec);
  std::filesystem::remove(directory_ / "raw", ec);  // empty unless another run's files are there
  return logs;
}

void Tracing::finish() {
  measure(true);
  Recording run;
  run.logs = gather();
  if (rank_ != 0) return;
  run.clocks = clocks_;
  run.simulated = simulated_;
  write_chrome_json(run, directory_ / "trace.json");
  if (otf2_available()) write_otf2(run, directory_, "trace");
}

bool start(MPI_Comm comm, const std::string& directory) {
  if (directory.empty()) throw Error(Errc::invalid_argument, "the trace directory is empty");
  if (comm == MPI_COMM_NULL) throw Error(Errc::invalid_comm, "the communicator is MPI_COMM_NULL");
  const auto lock = mpi::lock_context();
  mpi::TracingHooks& hooks = mpi::tracing_hooks();
  if (const Tracing* open = opened(hooks)) {
    int same = MPI_UNEQUAL;
    HERALD_MPI(PMPI_Comm_compare(open->user(), comm, &same));
    if (same == MPI_IDENT) return false;
    throw Error(Errc::invalid_argument, "a trace is already open (into " + open->directory().string() +
                                            ") on another communicator: one trace per process at a time");
  }
  hooks.open(std::make_unique<Tracing>(comm, directory));
  return true;
}

bool start_from_environment(MPI_Comm comm) {
  const std::optional<std::string> directory = environment("HERALD_TRACE");
  if (!directory) return false;
  try {
    return start(comm, *directory);
  } catch (const Error& e) {
    throw Error(e.code(), "HERALD_TRACE '" + *directory + "': " + e.message());
  }
}

void finish() {
  std::unique_ptr<OpenTrace> open;
  {
    const auto lock = mpi::lock_context();
    open = mpi::tracing_hooks().close();
  }
  if (open) open->finish();
}

std::optional<std::string> directory() {
  const auto lock = mpi::lock_context();
  if (const Tracing* open = opened(mpi::tracing_hooks())) return open->directory().string();
  return std::nullopt;
}

Recorder* recorder() noexcept { return mpi::tracing_hooks().recorder(); }

}  // namespace herald::trace
