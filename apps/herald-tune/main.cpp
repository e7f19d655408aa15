// herald-tune: measures this machine for `auto` and writes a tuning file (HERALD_TUNING_FILE, docs/tuning.md).
//
// Always: the point-to-point model (alpha, beta, gap) between two ranks of rank 0's node and, when the job
// spans nodes, between rank 0 and a rank of another node. With --exhaustive: for every (ranks, bytes) of a
// grid, every algorithm at its defaults and each segmented one at each segment size, interleaved with the
// installed MPI_Bcast, medians of the repetitions; the fastest is the cell's winner if it is clearly faster
// than MPI_Bcast (tune::clearly_faster(): its median below every sample of native's, by 5% at least) in that
// round, again in a second round of the two alone, and once more at the end of the run (pick_holds(), with a
// margin where ranks outnumber cores), else native.
#include "calibration.hpp"
#include "candidates.hpp"
#include "cli.hpp"
#include "contender.hpp"
#include "mpi_call.hpp"
#include "mpi_main.hpp"
#include "network_probe.hpp"
#include "statistics.hpp"

#include <herald/algorithms.hpp>
#include <herald/config.hpp>
#include <herald/error.hpp>
#include <herald/tuning.hpp>

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace herald::bench {
namespace {

struct Settings {
  std::string output = "herald-tuning.json";
  bool exhaustive = false;
  std::vector<int> ranks;          // empty: powers of two up to the job's size, and its size
  std::size_t max_bytes = 4 << 20;  // the grid's sizes: 1, 2, 4, ... up to this
  int reps = 5;
  double sample_seconds = 20e-3;  // each sample runs about this long
  bool oversubscribed = false;    // more ranks on a node than it has cores (found, not given)
};

// The communicator of `members` (ranks of MPI_COMM_WORLD, in order), or MPI_COMM_NULL on the others.
MPI_Comm sub_communicator(const std::vector<int>& members) {
  int me = 0;
  BENCH_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &me));
  const bool in = std::ranges::find(members, me) != members.end();
  MPI_Comm comm = MPI_COMM_NULL;
  BENCH_MPI(MPI_Comm_split(MPI_COMM_WORLD, in ? 0 : MPI_UNDEFINED, me, &comm));
  return comm;
}

// The model between world rank 0 and `peers` (one or two other ranks), valid on rank 0: alpha, beta and the
// gap to the first, then the overhead and the eager limit, and with a second peer whether rank 0's
// messages to the two share its link.
CostModel model_from(const std::vector<int>& peers) {
  std::vector<int> members{0};
  members.insert(members.end(), peers.begin(), peers.end());
  MPI_Comm pair = sub_communicator({0, peers.front()});
  CostModel model;
  if (pair != MPI_COMM_NULL) {
    const Calibration c = calibrate(pair);
    model = {.alpha = c.alpha, .beta = c.beta, .gap = c.gap};
    MPI_Comm_free(&pair);
  }
  MPI_Comm group = sub_communicator(members);
  if (group != MPI_COMM_NULL) {
    apply(probe_network(group), model);
    MPI_Comm_free(&group);
  }
  return model;
}

// Up to two world ranks other than 0 for which `wanted` holds, the first two found.
template <class Wanted>
std::vector<int> peers_where(int size, Wanted wanted) {
  std::vector<int> peers;
  for (int r = 1; r < size && peers.size() < 2; ++r)
    if (wanted(r)) peers.push_back(r);
  return peers;
}

// Every rank's node, as the lowest world rank sharing its memory.
std::vector<int> node_leaders() {
  MPI_Comm node = MPI_COMM_NULL;
  int me = 0, size = 0;
  BENCH_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &me));
  BENCH_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  BENCH_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &node));
  int leader = me;
  BENCH_MPI(MPI_Allreduce(&me, &leader, 1, MPI_INT, MPI_MIN, node));
  MPI_Comm_free(&node);
  // Gathered to rank 0 and broadcast, 2 (P - 1) messages: SimGrid's SMPI runs MPI_Allgather as P (P - 1)
  // messages at once, which took it minutes of solving its network at 256 ranks.
  std::vector<int> leaders(static_cast<std::size_t>(size));
  BENCH_MPI(MPI_Gather(&leader, 1, MPI_INT, leaders.data(), 1, MPI_INT, 0, MPI_COMM_WORLD));
  BENCH_MPI(MPI_Bcast(leaders.data(), size, MPI_INT, 0, MPI_COMM_WORLD));
  return leaders;
}

// The slowest rank's seconds per broadcast over `iterations`.
double sample(const Contender& c, std::span<std::byte> buffer, MPI_Comm comm, int iterations) {
  const double mine = c.average_seconds(buffer, 0, comm, iterations);
  double worst = 0;
  BENCH_MPI(MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, comm));
  return worst;
}

// Every rank holds the root's bytes after one broadcast of `c`; throws otherwise (a herald bug).
void check(const Contender& c, std::span<std::byte> buffer, MPI_Comm comm) {
  int me = 0;
  BENCH_MPI(MPI_Comm_rank(comm, &me));
  for (std::size_t i = 0; i < buffer.size(); ++i)
    buffer[i] = me == 0 ? static_cast<std::byte>((i * 131 + 7) % 251) : std::byte{0};
  c.broadcast(buffer, 0, comm);
  int wrong = 0;
  for (std::size_t i = 0; i < buffer.size() && !wrong; ++i)
    wrong = buffer[i] != static_cast<std::byte>((i * 131 + 7) % 251);
  int any = 0;
  BENCH_MPI(MPI_Allreduce(&wrong, &any, 1, MPI_INT, MPI_MAX, comm));
  if (any) throw Error(Errc::invalid_argument, c.name() + " delivered wrong data for " + std::to_string(buffer.size()) + " bytes");
}

// The communicator of world ranks 0 .. p-1 (MPI_COMM_NULL on the others): the grid's cells for p ranks.
MPI_Comm first_ranks(int p) {
  std::vector<int> members(static_cast<std::size_t>(p));
  for (int r = 0; r < p; ++r) members[static_cast<std::size_t>(r)] = r;
  return sub_communicator(members);
}

// A cell's winner, and herald's fastest candidate with why it did not win where native did.
struct Measured {
  TuningCell cell;
  std::string fastest;  // herald's fastest candidate: name, median and min-max in us
  std::string why;      // where native won: why the fastest did not
};

std::string describe(const std::string& algorithm, const Parameters& parameters) {
  std::string name = algorithm;
  if (parameters.segment) name += " / " + std::to_string(*parameters.segment) + " B segments";
  return name;
}

void print_cell(const Measured& m) {
  const TuningCell& cell = m.cell;
  std::printf("| %d | %zu | %s | %.2f | %.2f | %.2f | %s%s%s |\n", cell.ranks, cell.bytes,
              describe(cell.algorithm, cell.parameters).c_str(), cell.seconds * 1e6, cell.native_seconds * 1e6,
              cell.native_seconds / std::max(cell.seconds, 1e-12), m.fastest.c_str(), m.why.empty() ? "" : ": ",
              m.why.c_str());
  std::fflush(stdout);
}

// One iteration count for every contender of a cell, from native's time over a few (a single broadcast after
// a barrier is no measure of back-to-back ones): each sample lasts about sample_seconds, 5 to 1000
// broadcasts, as herald-bcast-bench's.
int iterations_for(const Contender& native, std::span<std::byte> buffer, MPI_Comm comm, const Settings& s) {
  const double once = sample(native, buffer, comm, 5);
  return static_cast<int>(std::clamp(s.sample_seconds / std::max(once, 1e-9), 5.0, 1000.0));
}

// Whether `pick` is still faster than `native` in a round of the two alone (tune::pick_holds()).
bool pick_holds(const Contender& pick, const Contender& native, std::span<std::byte> buffer, MPI_Comm comm,
                int iterations, const Settings& s) {
  std::vector<double> again_pick, again_native;
  for (int rep = 0; rep < s.reps; ++rep) {
    again_native.push_back(sample(native, buffer, comm, iterations));
    again_pick.push_back(sample(pick, buffer, comm, iterations));
  }
  return tune::pick_holds(again_pick, again_native, s.oversubscribed);
}

// One cell of the grid, measured on `comm` (its first `ranks` world ranks).
Measured measure_cell(MPI_Comm comm, int ranks, std::size_t bytes, bool spans_nodes, const Settings& s) {
  std::vector<std::byte> buffer(bytes);
  std::vector<Contender> list;
  for (const tune::Candidate& c : tune::candidates(bytes, spans_nodes))
    list.emplace_back(c.algorithm, c.parameters, false);
  for (const Contender& c : list) check(c, buffer, comm);
  const int iterations = iterations_for(list.front(), buffer, comm, s);
  std::vector<std::vector<double>> samples(list.size());
  for (int rep = 0; rep < s.reps; ++rep)
    for (std::size_t i = 0; i < list.size(); ++i) samples[i].push_back(sample(list[i], buffer, comm, iterations));
  // The fastest herald candidate wins only where it is clearly faster than native: a difference smaller than
  // native's spread is no reason to leave the installed MPI_Bcast.
  std::vector<Spread> spreads;
  for (const auto& v : samples) spreads.push_back(spread_of(v));
  std::size_t best = 1;
  for (std::size_t i = 2; i < list.size(); ++i)
    if (spreads[i].median < spreads[best].median) best = i;
  char fastest[200];
  std::snprintf(fastest, sizeof fastest, "%s %.2f [%.2f, %.2f] against native [%.2f, %.2f]",
                describe(list[best].name(), list[best].options().parameters).c_str(), spreads[best].median * 1e6,
                spreads[best].min * 1e6, spreads[best].max * 1e6, spreads.front().min * 1e6, spreads.front().max * 1e6);
  std::string why;
  if (!tune::clearly_faster(samples[best], samples.front())) {
    why = spreads[best].median < spreads.front().median ? "not clearly faster" : "slower";
    best = 0;
  }
  // A second, separate round of the two alone must confirm it: one round's drift (a core busy elsewhere for
  // a while) can make a candidate look faster than it is.
  if (best != 0 && !pick_holds(list[best], list.front(), buffer, comm, iterations, s)) {
    why = "not faster in a second round";
    best = 0;
  }
  return {.cell = {.ranks = ranks,
                   .bytes = bytes,
                   .algorithm = list[best].is_native() ? "native" : list[best].name(),
                   .parameters = list[best].options().parameters,
                   .seconds = spreads[best].median,
                   .native_seconds = spreads.front().median},
          .fastest = fastest,
          .why = why};
}

int run(int argc, char** argv) {
  Settings s;
  std::string max_bytes_text = "4M";
  CLI::App app{"Measure this machine for herald's auto and write a tuning file (HERALD_TUNING_FILE)"};
  app.add_option("-o,--output", s.output, "the tuning file to write")->capture_default_str();
  app.add_flag("--exhaustive", s.exhaustive,
               "also measure every algorithm and segment size on a grid of (ranks, bytes) against MPI_Bcast");
  app.add_option("--ranks", s.ranks, "the grid's rank counts (default: powers of two up to the job's size, and its size)")
      ->delimiter(',');
  app.add_option("--max-bytes", max_bytes_text, "the grid's largest size; sizes are 1, 2, 4, ... (K/M/G)")
      ->capture_default_str();
  app.add_option("--reps", s.reps, "repetitions per candidate, interleaved (median)")->capture_default_str();
  double sample_ms = s.sample_seconds * 1e3;
  app.add_option("--sample-ms", sample_ms, "about how long one sample runs, in milliseconds")
      ->check(herald::cli::positive)
      ->capture_default_str();
  int me = 0, size = 0;
  BENCH_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &me));
  BENCH_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  if (const auto status = herald::cli::parse(app, argc, argv, me == 0)) return *status;
  s.sample_seconds = sample_ms * 1e-3;
  check_usage([&] {
    s.max_bytes = parse_bytes(max_bytes_text, "--max-bytes");
    if (size < 2) throw UsageError("needs at least 2 ranks (it measures between ranks)");
    if (s.reps < 1) throw UsageError("--reps must be at least 1");
    for (int p : s.ranks)
      if (p < 2 || p > size) throw UsageError("--ranks " + std::to_string(p) + " is not in 2.." + std::to_string(size));
    if (me == 0 && !std::ofstream(s.output, std::ios::app)) throw UsageError("cannot write '" + s.output + "'");
  });
  if (s.ranks.empty()) {
    for (int p = 2; p < size; p *= 2) s.ranks.push_back(p);
    s.ranks.push_back(size);
  }

  Tuning tuning;
  tuning.layout = this_job_layout();
  const std::vector<int> leaders = node_leaders();
  const auto on_my_node = std::ranges::count(leaders, leaders[0]);
  if (tuning.layout.ranks_per_node == 0) tuning.layout.ranks_per_node = static_cast<int>(on_my_node);
  // Rank 0's node decides for every rank, so that all pick alike.
  int oversubscribed = on_my_node > static_cast<long>(std::max(1U, std::thread::hardware_concurrency()));
  BENCH_MPI(MPI_Bcast(&oversubscribed, 1, MPI_INT, 0, MPI_COMM_WORLD));
  s.oversubscribed = oversubscribed != 0;
  // Rank 0 and the next ranks of its node; rank 0 and the first ranks of other nodes (of two nodes where
  // there are more than two).
  const auto on_node_0 = [&](int r) { return leaders[static_cast<std::size_t>(r)] == leaders[0]; };
  const std::vector<int> neighbours = peers_where(size, on_node_0);
  std::vector<int> remotes = peers_where(size, [&](int r) { return !on_node_0(r); });
  if (remotes.size() == 2) {
    const auto other_node = std::find_if(leaders.begin(), leaders.end(), [&](int l) {
      return l != leaders[0] && l != leaders[static_cast<std::size_t>(remotes[0])];
    });
    if (other_node != leaders.end()) remotes[1] = static_cast<int>(other_node - leaders.begin());
  }
  if (!neighbours.empty()) tuning.intra_node = model_from(neighbours);
  if (!remotes.empty()) tuning.inter_node = model_from(remotes);
  if (neighbours.empty()) tuning.intra_node = *tuning.inter_node;  // one rank per node: only the network is known
  // A model the tuning file's reader refuses (a zero alpha or beta) is a failed measurement: say so rather
  // than write a file no run can use.
  auto measured = [](const CostModel& m) { return m.alpha > 0 && m.beta > 0; };
  int failed = me == 0 && (!measured(tuning.intra_node) || (tuning.inter_node && !measured(*tuning.inter_node)));
  BENCH_MPI(MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD));
  if (failed) {
    if (me == 0)
      std::fprintf(stderr, "herald-tune: the point-to-point measurement gave alpha %.3g s and beta %.3g s/byte; "
                   "a 4 MiB message took no longer than an 8-byte one in every attempt, so the machine was too "
                   "busy to measure: run again on a quieter one\n", tuning.intra_node.alpha, tuning.intra_node.beta);
    return 1;
  }
  if (me == 0) {
    std::printf("herald-tune: %s, %d ranks, %d per node\n", tuning.layout.mpi_library.c_str(), size,
                tuning.layout.ranks_per_node);
    const auto print_model = [](const char* where, const CostModel& m, bool network_measured) {
      std::printf("%s: alpha %.3g s, beta %.3g s/byte, gap %.3g s, overhead %.3g s, eager up to %zu bytes, "
                  "network %s\n", where, m.alpha, m.beta, m.port_seconds(), m.overhead, m.eager_bytes,
                  !network_measured ? "ports (not measured: it takes three ranks)"
                  : m.network == Network::fair_sharing ? "fair (concurrent messages share the link)"
                                                         : "ports (messages leave one at a time)");
    };
    print_model("intra-node", tuning.intra_node, neighbours.size() == 2 || (neighbours.empty() && remotes.size() == 2));
    if (tuning.inter_node) print_model("inter-node", *tuning.inter_node, remotes.size() == 2);
  }

  if (s.exhaustive) {
    if (me == 0) std::printf("\n| ranks | bytes | winner | us | native us | native / winner | herald's fastest, us: median [min, max] |\n|---|---|---|---|---|---|---|\n");
    std::vector<TuningCell> cells;  // those of the rank counts this rank takes part in (rank 0: all)
    for (int p : s.ranks) {
      MPI_Comm comm = first_ranks(p);
      const bool spans_nodes = std::ranges::count(leaders.begin(), leaders.begin() + p, leaders[0]) < p;
      for (std::size_t bytes = 1; bytes <= s.max_bytes && comm != MPI_COMM_NULL; bytes *= 2) {
        // herald finds the nodes itself, as it will in the job that reads the file: no node size is given.
        const Measured m = measure_cell(comm, p, bytes, spans_nodes, s);
        cells.push_back(m.cell);
        if (me == 0) print_cell(m);
      }
      if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
      BENCH_MPI(MPI_Barrier(MPI_COMM_WORLD));
    }
    // A pick stands only if it still beats native at the end of the run: a core busy for a while, or a
    // launch's placement, can make a candidate look faster over the minutes of one cell.
    if (me == 0) std::printf("\nat the end of the run, each pick against native again:\n");
    for (int p : s.ranks) {
      MPI_Comm comm = first_ranks(p);
      for (TuningCell& cell : cells) {
        if (comm == MPI_COMM_NULL || cell.ranks != p || cell.algorithm == "native") continue;
        std::vector<std::byte> buffer(cell.bytes);
        const Contender pick(cell.algorithm, cell.parameters, false), native("native", {}, false);
        const bool holds = pick_holds(pick, native, buffer, comm, iterations_for(native, buffer, comm, s), s);
        if (me == 0)
          std::printf("| %d | %zu | %s | %s |\n", p, cell.bytes, cell.algorithm.c_str(),
                      holds ? "holds" : "no longer faster: native");
        if (!holds) cell = {.ranks = cell.ranks, .bytes = cell.bytes, .algorithm = "native",
                            .seconds = cell.native_seconds, .native_seconds = cell.native_seconds};
      }
      if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
      BENCH_MPI(MPI_Barrier(MPI_COMM_WORLD));
    }
    if (me == 0) tuning.cells = std::move(cells);
  }
  if (me == 0) {
    std::ofstream(s.output) << tuning_json(tuning);
    std::printf("\nwrote %s (use it with HERALD_TUNING_FILE=%s)\n", s.output.c_str(), s.output.c_str());
  }
  return 0;
}

}  // namespace
}  // namespace herald::bench

int main(int argc, char** argv) { return herald::bench::mpi_main(argc, argv, "herald-tune", herald::bench::run); }
