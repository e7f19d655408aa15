// herald-bcast-bench: OSU-style broadcast latency of herald's algorithms against the installed MPI_Bcast.
//
// For each size: an untimed validation pass checks every algorithm byte-exact on every rank; a short probe
// picks the iteration count (so large sizes stay within the time budget); after a warm-up, each repetition
// runs every algorithm in turn (native A B C ..., native A B C ...) so herald and its peer share the same
// conditions. One sample = barrier, N back-to-back broadcasts, the per-iteration average of each rank, the
// maximum over ranks. With --clock sync a sample is instead timed from one start instant shared by every
// rank to the latest finish (clock.hpp). Exit codes: 0 done, 2 bad option (before any broadcast), 3 wrong
// data or an error.
#include "calibration.hpp"
#include "clock.hpp"
#include "contender.hpp"
#include "mpi_call.hpp"
#include "options.hpp"
#include "pattern.hpp"
#include "report.hpp"

#include <herald/algorithms.hpp>
#include <herald/bcast.hpp>
#include <herald/coll_settings.hpp>
#include <herald/config.hpp>
#include <herald/tracing.hpp>
#include <herald/error.hpp>
#include <herald/selector.hpp>
#include <herald/settings.hpp>
#include <herald/simulator.hpp>

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <vector>

namespace herald::bench {
namespace {

constexpr int exit_bad_option = 2;
constexpr int exit_failure = 3;
constexpr int probe_iterations = 3;

// MPI_Init / MPI_Finalize around the program.
class MpiSession {
 public:
  MpiSession(int& argc, char**& argv) { MPI_Init(&argc, &argv); }
  ~MpiSession() {
    // An open trace (HERALD_TRACE) is written here, where every rank is: SimGrid's SMPI runs no
    // attribute callbacks in MPI_Finalize, where herald would write it otherwise.
    try {
      herald::trace::finish();
    } catch (const std::exception& e) {
      std::cerr << "herald-bcast-bench: the trace could not be written: " << e.what() << std::endl;
    }
    MPI_Finalize();
  }
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
};

// The benchmark's own duplicate of MPI_COMM_WORLD, so native runs on a communicator nothing else uses.
class OwnedComm {
 public:
  explicit OwnedComm(MPI_Comm parent) { BENCH_MPI(MPI_Comm_dup(parent, &comm_)); }
  ~OwnedComm() { MPI_Comm_free(&comm_); }
  OwnedComm(const OwnedComm&) = delete;
  OwnedComm& operator=(const OwnedComm&) = delete;
  MPI_Comm get() const noexcept { return comm_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

// The benchmark's message buffer, sized for the largest message: each rank's own, or with --shared-buffer
// (SMPI only) one SMPI_SHARED_MALLOC block that every simulated rank maps, since SMPI runs all ranks in one
// process and 1024 ranks cannot each hold 256 MiB. Its contents are then meaningless: the ranks overwrite
// each other's bytes, and SMPI (smpi/shared-malloc:global) skips copying them at all.
class MessageBuffer {
 public:
  MessageBuffer(std::size_t bytes, bool shared) {
#ifdef SMPI_H
    if (shared) {
      shared_ = static_cast<std::byte*>(SMPI_SHARED_MALLOC(std::max<std::size_t>(bytes, 1)));
      if (shared_ == nullptr) throw Error(Errc::invalid_argument, "SMPI_SHARED_MALLOC failed");
      data_ = shared_;
      return;
    }
#endif
    (void)shared;  // refused outside SMPI when parsing the options
    own_.resize(bytes);
    data_ = own_.data();
  }
  ~MessageBuffer() {
#ifdef SMPI_H
    if (shared_ != nullptr) SMPI_SHARED_FREE(shared_);
#endif
  }
  MessageBuffer(const MessageBuffer&) = delete;
  MessageBuffer& operator=(const MessageBuffer&) = delete;
  std::span<std::byte> first(std::size_t bytes) const noexcept { return {data_, bytes}; }

 private:
  std::vector<std::byte> own_;
  std::byte* shared_ = nullptr;
  std::byte* data_ = nullptr;
};

// True on every rank when rank 0 can write every output file (checked up front, not after the run).
bool outputs_writable(const Settings& s, int rank, MPI_Comm comm) {
  int ok = 1;
  if (rank == 0) {
    for (const std::optional<std::string>& given : {s.csv, s.json}) {
      if (!given) continue;
      const std::string& path = *given;
      if (!std::ofstream(path, std::ios::app)) {
        std::cerr << "herald-bcast-bench: cannot write '" << path << "'\n";
        ok = 0;
      }
    }
  }
  BENCH_MPI(MPI_Bcast(&ok, 1, MPI_INT, 0, comm));
  return ok != 0;
}

Calibration calibration_for(const Settings& s, MPI_Comm comm) {
  Calibration c;
  if (!s.alpha || !s.beta) c = calibrate(comm);
  if (s.alpha) c.alpha = *s.alpha;
  if (s.beta) c.beta = *s.beta;
  if (s.alpha || s.beta) c.measured = false;
  return c;
}

// Broadcasts patterned data once per algorithm and checks it on every rank. Returns false (after every
// failing rank has said what it found) when any rank got a wrong byte.
bool validate_size(std::span<const Contender> contenders, std::span<std::byte> buffer, int root, int rank,
                   MPI_Comm comm) {
  for (const Contender& c : contenders) {
    fill_for_validation(buffer, root, rank);
    c.broadcast(buffer, root, comm);
    int wrong = 0;
    if (const auto offset = first_mismatch(buffer, root)) {
      wrong = 1;
      std::fprintf(stderr,
                   "herald-bcast-bench: rank %d: %s, %zu bytes from root %d: byte %zu is 0x%02x, expected 0x%02x\n",
                   rank, c.name().c_str(), buffer.size(), root, *offset, static_cast<unsigned>(buffer[*offset]),
                   static_cast<unsigned>(pattern_byte(*offset, buffer.size(), root)));
    }
    int wrong_ranks = 0;
    BENCH_MPI(MPI_Allreduce(&wrong, &wrong_ranks, 1, MPI_INT, MPI_SUM, comm));
    if (wrong_ranks > 0) {
      if (rank == 0)
        std::fprintf(stderr, "herald-bcast-bench: VALIDATION FAILED: %s delivered wrong data at %zu bytes on %d rank(s)\n",
                     c.name().c_str(), buffer.size(), wrong_ranks);
      return false;
    }
  }
  return true;
}

// Iterations per repetition at this size: --iterations, scaled down so the slowest algorithm's repetition
// takes about --time-budget, but at least --min-iterations. Every rank gets the same answer, and `probes`
// each contender's probe time (the maximum over ranks; left empty without a time budget).
int iterations_for(std::span<const Contender> contenders, std::span<std::byte> buffer, const Settings& s,
                   MPI_Comm comm, std::vector<double>& probes) {
  probes.clear();
  if (s.time_budget <= 0) return s.iterations;
  // Each algorithm's estimate is the better of two short probes, so one stall on a busy machine does not
  // cut the iteration count for the whole size.
  const int probe = std::min(probe_iterations, s.iterations);
  for (const Contender& c : contenders) {
    const double first = c.average_seconds(buffer, s.root, comm, probe);
    probes.push_back(std::min(first, c.average_seconds(buffer, s.root, comm, probe)));
  }
  BENCH_MPI(MPI_Allreduce(MPI_IN_PLACE, probes.data(), static_cast<int>(probes.size()), MPI_DOUBLE, MPI_MAX,
                          comm));
  const double slowest = *std::max_element(probes.begin(), probes.end());
  if (slowest <= 0) return s.iterations;
  const double fit = s.time_budget / slowest;
  const int scaled = fit >= s.iterations ? s.iterations : std::max(static_cast<int>(fit), s.min_iterations);
  return std::min(scaled, s.iterations);
}

// What herald's simulator predicts for one algorithm at one size (rank 0 only; no communication).
void predict(Measurement& m, const Contender& c, const Settings& s, int ranks, const NodeLayout& layout) {
  // MPI's own algorithms are not schedules: nothing to simulate.
  if (c.is_native() || m.resolved == "native" || m.resolved == via_herald_native) return;
  Problem problem{ranks, s.root, m.bytes, merge(s.parameters, parameters_from_environment()), layout};
  // "auto" ran the parameters herald resolved for it (run_benchmark(): herald::resolve(), its tuning file
  // or its model, as the call decides).
  if (c.name() == "auto") problem.parameters = m.parameters;
  const Schedule schedule = make_schedule(find_algorithm(m.resolved), problem);
  // herald's own model (what "auto" prices with): the calibration above unless HERALD_* say otherwise, and
  // with HERALD_NETWORK=fair the fair-sharing network under the executor's send window.
  const Simulation sim = simulate(schedule, cost_model_from_environment(), send_window_from_environment());
  m.parameters = schedule.problem.parameters;
  m.predicted_seconds = sim.predicted_seconds;
  m.lower_bound_seconds = sim.lower_bound_seconds;
}

int run_benchmark(const Settings& s, MPI_Comm comm) {
  int rank = 0, ranks = 1;
  BENCH_MPI(MPI_Comm_rank(comm, &rank));
  BENCH_MPI(MPI_Comm_size(comm, &ranks));
  if (!outputs_writable(s, rank, comm)) return exit_bad_option;

  std::vector<Contender> contenders;
  for (const std::string& name : s.algorithms) contenders.emplace_back(name, s.parameters, s.nonblocking);

  Run run{describe_machine(ranks), s, calibration_for(s, comm), {}};
  // "auto" prices schedules with this machine's figures unless the user gave a model (the figures, a tuning
  // file or a preset: the calibration between ranks 0 and 1 would replace a tuning file's network model
  // with the node's where they share one). Every rank holds the same (broadcast) values, so every rank picks
  // the same algorithm. herald reads them at its first call, which comes after this.
  if (!environment("HERALD_TUNING_FILE") && !environment("HERALD_PRESET")) {
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", run.calibration.alpha);
    set_program_default("HERALD_ALPHA", text);
    std::snprintf(text, sizeof text, "%.6g", run.calibration.beta);
    set_program_default("HERALD_BETA", text);
  }
  // Which ranks share a node, as herald finds it: herald's first call, after the figures above are set
  // (collective: every rank is here).
  const NodeLayout layout = node_layout(comm);
  if (rank == 0) {
    print_header(std::cout, run);
    if (s.repetitions < 5)
      std::cout << "# note: fewer than 5 repetitions; reported figures need at least 5\n";
  }

  const MessageBuffer storage(*std::max_element(s.sizes.begin(), s.sizes.end()), s.shared_buffer);
  std::vector<Lead> leads(contenders.size());  // the sync clock's, one per contender
  std::vector<double> probes;
  for (const std::size_t bytes : s.sizes) {
    const std::span<std::byte> buffer = storage.first(bytes);
    // A shared buffer holds every rank's bytes at once: there is nothing to check.
    if (!s.shared_buffer && !validate_size(contenders, buffer, s.root, rank, comm)) return exit_failure;

    const int iterations = iterations_for(contenders, buffer, s, comm, probes);
    // A lead of twice the probe time rarely needs redoing (the probe may read short: it is on the OSU clock).
    for (std::size_t k = 0; k < probes.size(); ++k)
      leads[k].seconds = std::max(leads[k].seconds, 2 * probes[k]);
    for (std::size_t k = 0; k < contenders.size(); ++k) {
      for (int i = 0; i < std::min(s.warmup, iterations); ++i) {
        // On the sync clock the warm-up also finds the lead this size needs, one broadcast at a time,
        // so the timed samples seldom have to be redone.
        if (s.clock == Clock::sync) (void)synchronised_seconds(contenders[k], buffer, s.root, comm, 1, leads[k]);
        else contenders[k].broadcast(buffer, s.root, comm);
      }
    }

    std::vector<std::vector<double>> samples(contenders.size());
    for (int repetition = 0; repetition < s.repetitions; ++repetition) {
      for (std::size_t k = 0; k < contenders.size(); ++k) {
        if (s.clock == Clock::sync) {
          samples[k].push_back(synchronised_seconds(contenders[k], buffer, s.root, comm, iterations, leads[k]));
          continue;
        }
        const double mine = contenders[k].average_seconds(buffer, s.root, comm, iterations);
        double slowest = 0;
        BENCH_MPI(MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, comm));
        samples[k].push_back(slowest);
      }
    }
    if (rank != 0) continue;

    const std::size_t first = run.measurements.size();
    for (std::size_t k = 0; k < contenders.size(); ++k) {
      const Contender& c = contenders[k];
      Measurement m;
      m.bytes = bytes;
      m.algorithm = c.name();
      if (c.name() == "auto") {
        Resolved r = resolve(comm, c.options(), bytes, s.root);
        m.resolved = std::move(r.algorithm);
        m.parameters = r.parameters;
      } else {
        m.resolved = c.name();
      }
      m.iterations = iterations;
      m.samples = std::move(samples[k]);
      m.spread = spread_of(m.samples);
      predict(m, c, s, ranks, layout);
      run.measurements.push_back(std::move(m));
    }
    const std::span<Measurement> one_size(run.measurements.data() + first, contenders.size());
    compare_to_native(one_size);
    print_size(std::cout, one_size);
  }

  if (rank == 0) {
    if (s.clock == Clock::sync) {
      int late = 0;
      double longest = 0;
      for (const Lead& lead : leads) {
        late += lead.late_samples;
        longest = std::max(longest, lead.seconds);
      }
      std::cout << "# sync clock: " << late << " sample(s) redone after a rank reached the start late; "
                << "longest lead " << longest * 1e6 << " us\n";
    }
    print_summary(std::cout, run);
    if (s.csv) write_csv(*s.csv, run);
    if (s.json) write_json(*s.json, run);
  }
  return 0;
}

}  // namespace
}  // namespace herald::bench

int main(int argc, char** argv) {
  using namespace herald::bench;
  MpiSession session(argc, argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);

  // Every rank parses the same arguments and reaches the same verdict, so a bad option stops all of them
  // before any broadcast, without communication.
  const Parsed parsed = parse_command_line(argc, argv, ranks);
  if (!parsed.settings) {
    if (rank == 0) (parsed.exit_code == 0 ? std::cout : std::cerr) << parsed.message << std::flush;
    return parsed.exit_code;
  }
  // Checked before any message: with clocks that disagree, the sync clock would measure their offsets.
  if (parsed.settings->clock == Clock::sync && !global_clock()) {
    if (rank == 0)
      std::cerr << "herald-bcast-bench: --clock sync needs a global clock, and this MPI does not set "
                   "MPI_WTIME_IS_GLOBAL (SimGrid's SMPI does); use --clock osu\n" << std::flush;
    return exit_bad_option;
  }
  try {
    herald::trace::start_from_environment(MPI_COMM_WORLD);  // HERALD_TRACE: written at MPI_Finalize
    const OwnedComm comm(MPI_COMM_WORLD);
    return run_benchmark(*parsed.settings, comm.get());
  } catch (const std::exception& e) {
    // Other ranks may be waiting inside a broadcast: only an abort ends them all.
    std::cerr << "herald-bcast-bench: rank " << rank << ": " << e.what() << std::endl;
    MPI_Abort(MPI_COMM_WORLD, 3);
    return 3;
  }
}
