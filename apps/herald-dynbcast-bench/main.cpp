// herald-dynbcast-bench: dynamic broadcast against the installed MPI_Bcast over the same ranks and against
// a naive loop of sends, as a function of the number of recipients (Denis et al., "Using Dynamic Broadcasts to improve Task-Based Runtime Performances", Figure 2).
//
// Rank 0 broadcasts to ranks 1..k for k = 1..P-1. Timing follows OSU: a barrier, then one operation,
// summed over the iterations; a rank's latency is its average, the operation's latency the maximum over
// the ranks taking part (the broadcast is over when the last recipient has the data). The three methods
// are interleaved (dyn, native, naive, dyn, ...) in every repetition, and the data is checked in a
// separate untimed pass. Writes one CSV row per measurement and prints medians, spread and ratios.
#include <herald/algorithms.hpp>
#include <herald/coll_settings.hpp>
#include <herald/config.hpp>
#include <herald/dyn/endpoint.hpp>
#include <herald/dyn/shape.hpp>
#include <herald/error.hpp>
#include <herald/selector.hpp>

#include "calibration.hpp"
#include "cli.hpp"
#include "mpi_main.hpp"
#include "statistics.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

enum class Method { dyn, native, naive };
constexpr Method methods[] = {Method::dyn, Method::native, Method::naive};
const char* name(Method m) {
  switch (m) {
    case Method::dyn: return "dynbcast";
    case Method::native: return "mpi_bcast";
    case Method::naive: return "naive_loop";
  }
  return "?";
}

struct Setup {
  int rank = 0;
  int size = 1;
  int recipients = 0;         // k: ranks 1..k receive
  MPI_Comm group = MPI_COMM_NULL;  // ranks 0..k, for MPI_Bcast (MPI_COMM_NULL on the others)
  MPI_Comm naive = MPI_COMM_NULL;  // a duplicate of MPI_COMM_WORLD for the send loop
  herald::dyn::Endpoint* dyn = nullptr;
  herald::dyn::SendOptions send_options;  // the dynamic broadcast's tree shape (empty: cost model)
  bool taking_part() const { return rank <= recipients; }
};

// One broadcast of `buffer` from rank 0 to ranks 1..k.
void run_once(Method m, const Setup& s, std::vector<std::byte>& buffer, const std::vector<int>& recipients) {
  if (!s.taking_part()) return;
  const int count = static_cast<int>(buffer.size());
  switch (m) {
    case Method::dyn:
      if (s.rank == 0) {
        s.dyn->send(buffer, recipients, 0, s.send_options).wait();
      } else {
        s.dyn->recv(buffer, 0, 0);
      }
      break;
    case Method::native:
      MPI_Bcast(buffer.data(), count, MPI_BYTE, 0, s.group);
      break;
    case Method::naive:
      if (s.rank == 0) {
        std::vector<MPI_Request> requests(recipients.size());
        for (std::size_t i = 0; i < recipients.size(); ++i)
          MPI_Isend(buffer.data(), count, MPI_BYTE, recipients[i], 0, s.naive, &requests[i]);
        MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
      } else {
        MPI_Recv(buffer.data(), count, MPI_BYTE, 0, 0, s.naive, MPI_STATUS_IGNORE);
      }
      break;
  }
}

// In microseconds, valid on rank 0. OSU-style by default: the maximum over the ranks taking part of each
// one's average time from leaving the barrier to finishing; `per_rank`, when given, receives every rank's
// average on rank 0 (0 for ranks not taking part), which shows where the slowest rank spends its time.
// With a global clock (MPI_WTIME_IS_GLOBAL, as in a simulation), `from_root` measures what seed 003's
// Figure 2 shows instead: from the root's start to the last rank's finish, averaged over the iterations;
// late barrier exits then cannot shorten it.
double measure(Method m, const Setup& s, std::vector<std::byte>& buffer, const std::vector<int>& recipients,
               int iterations, bool from_root, std::vector<double>* per_rank) {
  double total = 0;
  std::vector<double> starts(from_root ? iterations : 0), ends(from_root ? iterations : 0);
  for (int i = 0; i < iterations; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    run_once(m, s, buffer, recipients);
    const double t1 = MPI_Wtime();
    total += t1 - t0;
    if (from_root) {
      starts[i] = t0;
      ends[i] = s.taking_part() ? t1 : 0.0;
    }
  }
  if (from_root) {
    std::vector<double> last(iterations);
    MPI_Reduce(ends.data(), last.data(), iterations, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    double sum = 0;
    for (int i = 0; i < iterations; ++i) sum += last[i] - starts[i];
    return sum / iterations * 1e6;
  }
  double mine = s.taking_part() ? total / iterations * 1e6 : 0.0, worst = 0;
  MPI_Reduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (per_rank) {
    per_rank->resize(static_cast<std::size_t>(s.size));
    MPI_Gather(&mine, 1, MPI_DOUBLE, per_rank->data(), 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  }
  return worst;
}

// Untimed: every recipient must end with the root's bytes. Returns the number of ranks with wrong data.
int validate(Method m, const Setup& s, std::vector<std::byte>& buffer, const std::vector<int>& recipients) {
  for (std::size_t i = 0; i < buffer.size(); ++i)
    buffer[i] = s.rank == 0 ? static_cast<std::byte>((i * 131 + 7) & 0xff) : std::byte{0};
  MPI_Barrier(MPI_COMM_WORLD);
  run_once(m, s, buffer, recipients);
  int wrong = 0;
  if (s.taking_part() && s.rank != 0)
    for (std::size_t i = 0; i < buffer.size() && !wrong; ++i)
      wrong = buffer[i] != static_cast<std::byte>((i * 131 + 7) & 0xff);
  int total = 0;
  MPI_Allreduce(&wrong, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return total;
}

std::string format_size(std::size_t bytes) {
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " B";
}

// Deterministic figures for more recipients than this machine has cores (benchmarking rule 4): the
// simulator's alpha-beta time of the naive loop (the `linear` schedule) and of the shape the dynamic
// broadcast picks, under HERALD_ALPHA / HERALD_BETA.
// The cost model's figures, for the tables' headers.
std::string model_text(const herald::CostModel& model) {
  char text[160];
  if (model.network == herald::Network::fair_sharing)
    std::snprintf(text, sizeof text, "alpha %.3g s, beta %.3g s/byte, links shared fairly, overhead %.3g s, eager up to %zu bytes",
                  model.alpha, model.beta, model.overhead, model.eager_bytes);
  else
    std::snprintf(text, sizeof text, "alpha %.3g s, beta %.3g s/byte, gap %.3g s", model.alpha, model.beta,
                  model.port_seconds());
  return text;
}

void print_predictions(const std::vector<int>& counts, const std::vector<std::size_t>& sizes) {
  const herald::CostModel model = herald::cost_model_from_environment();
  const auto forwarding = herald::dyn::forwarding_from_environment().value_or(herald::dyn::Forwarding::serial);
  std::printf("cost model: %s, %s forwarding (HERALD_DYN_FORWARDING); predicted microseconds\n\n",
              model_text(model).c_str(), forwarding == herald::dyn::Forwarding::serial ? "serial" : "overlapped");
  std::printf("| size | recipients | naive loop | dyn shape | dynbcast | dyn / naive |\n|---|---|---|---|---|---|\n");
  for (std::size_t bytes : sizes) {
    for (int k : counts) {
      if (k < 1) throw herald::Error(herald::Errc::invalid_argument, "--predict needs recipient counts >= 1");
      // The loop posts every send at once.
      const double naive =
          herald::simulate(herald::make_schedule(herald::find_algorithm("linear"), {.ranks = k + 1, .root = 0, .bytes = bytes}),
                           model, {.per_rank = k, .per_peer = 1})
              .predicted_seconds;
      const herald::dyn::Shape shape = herald::dyn::choose_shape(k + 1, bytes, model, forwarding);
      const std::string text = shape.algorithm + (shape.segment ? " / " + format_size(shape.segment) + " segments" : "");
      std::printf("| %s | %d | %.1f | %s | %.1f | %.2f |\n", format_size(bytes).c_str(), k, naive * 1e6, text.c_str(),
                  shape.predicted_seconds * 1e6, naive > 0 ? shape.predicted_seconds / naive : 1.0);
    }
  }
}

int run(int argc, char** argv) {
  CLI::App app{"Dynamic broadcast vs MPI_Bcast vs a naive loop of sends, by number of recipients"};
  std::vector<std::string> size_texts{"1K", "8M"};
  int reps = 9, warmup = 2;
  int small_iterations = 200, large_iterations = 10;
  std::size_t large_from = 1 << 20;
  std::string csv_path = "dynbcast.csv";
  app.add_option("--sizes", size_texts, "message sizes (K/M/G suffixes)")->delimiter(',')->capture_default_str();
  app.add_option("--reps", reps, "repetitions per point (median, min, max over them)")->capture_default_str();
  app.add_option("--warmup", warmup, "untimed broadcasts per method before each point")->capture_default_str();
  app.add_option("--iterations", small_iterations, "timed broadcasts per repetition below 1 MiB")
      ->capture_default_str();
  app.add_option("--large-iterations", large_iterations, "timed broadcasts per repetition from 1 MiB on")
      ->capture_default_str();
  app.add_option("--csv", csv_path, "raw results, one row per repetition")->capture_default_str();
  std::string rank_csv_path;
  app.add_option("--rank-csv", rank_csv_path,
                 "also write every rank's own average per repetition (OSU clock only), to see which rank is "
                 "slowest and by how much");
  std::string algorithm, segment_text;
  app.add_option("--algorithm", algorithm,
                 "tree of the dynamic broadcast (default: HERALD_DYN_ALGORITHM, else chosen by the cost model)");
  app.add_option("--segment", segment_text,
                 "its segment size, K/M/G suffixes (default: HERALD_SEGMENT_SIZE, else the algorithm's)");
  std::string clock = "osu";
  app.add_option("--clock", clock,
                 "osu: each rank times itself from the barrier; root: from the root's start to the last "
                 "finish, which needs a global clock (MPI_WTIME_IS_GLOBAL)")
      ->check(CLI::IsMember({"osu", "root"}))
      ->capture_default_str();
  std::vector<int> recipient_counts;
  app.add_option("--recipients", recipient_counts,
                 "recipient counts to measure, e.g. 1,2,4,8,16,32,64,99 (default: every count from 1 to P-1)")
      ->delimiter(',');
  std::vector<int> predict;
  app.add_option("--predict", predict,
                 "print the cost model's figures for these recipient counts (no broadcast is run), e.g. 4,7,15,63")
      ->delimiter(',');
  if (const auto status = herald::cli::parse(app, argc, argv, herald::bench::world_rank_zero())) return *status;
  std::vector<std::size_t> sizes;
  herald::bench::check_usage([&] {
    for (const auto& t : size_texts) sizes.push_back(herald::parse_bytes(t, "--sizes"));
    if (reps < 1) throw herald::Error(herald::Errc::invalid_argument, "--reps must be at least 1");
  });
  if (!predict.empty()) {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) print_predictions(predict, sizes);
    return 0;
  }

  Setup s;
  const bool from_root = clock == "root";
  herald::bench::check_usage([&] {
    // The same fallbacks as the endpoint's: HERALD_DYN_ALGORITHM, HERALD_SEGMENT_SIZE.
    if (algorithm.empty()) algorithm = herald::environment("HERALD_DYN_ALGORITHM").value_or("");
    if (algorithm == "auto") algorithm.clear();
    s.send_options.algorithm = algorithm.empty() ? "auto" : algorithm;
    s.send_options.segment = herald::parameters_from_environment().segment;
    if (!segment_text.empty()) {
      s.send_options.segment = herald::parse_bytes(segment_text, "--segment");
      if (*s.send_options.segment == 0) throw herald::Error(herald::Errc::invalid_argument, "--segment must be positive");
    }
    if (!algorithm.empty()) herald::find_algorithm(algorithm);  // refuse an unknown name before any broadcast
    MPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &s.size);
    if (s.size < 2) throw herald::Error(herald::Errc::invalid_argument, "needs at least 2 ranks");
    if (from_root && !rank_csv_path.empty())
      throw herald::Error(herald::Errc::invalid_argument,
                          "--rank-csv needs --clock osu: the root clock has one time per broadcast");
    if (from_root) {
      int* global = nullptr;
      int found = 0;
      MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &global, &found);
      if (!found || !*global)
        throw herald::Error(herald::Errc::invalid_argument,
                            "--clock root needs a global clock, and MPI_WTIME_IS_GLOBAL is not set");
    }
    for (int k : recipient_counts)
      if (k < 1 || k >= s.size)
        throw herald::Error(herald::Errc::invalid_argument, "--recipients " + std::to_string(k) + ": the " +
                                                                std::to_string(s.size) + " ranks allow 1 to " +
                                                                std::to_string(s.size - 1));
  });
  if (recipient_counts.empty())
    for (int k = 1; k < s.size; ++k) recipient_counts.push_back(k);
  MPI_Comm_dup(MPI_COMM_WORLD, &s.naive);
  // The tree shape is priced with this network's alpha and beta: measured by ping-pong between ranks 0
  // and 1 unless HERALD_ALPHA and HERALD_BETA both give them (then the rest of the model, HERALD_NETWORK
  // and its settings, comes from the environment too, as auto reads it).
  const bool given = herald::environment("HERALD_ALPHA") && herald::environment("HERALD_BETA");
  const herald::CostModel model = given ? herald::cost_model_from_environment() : [] {
    const herald::bench::Calibration c = herald::bench::calibrate(MPI_COMM_WORLD);
    return herald::CostModel{.alpha = c.alpha, .beta = c.beta, .gap = c.gap};
  }();
  herald::dyn::Endpoint endpoint(MPI_COMM_WORLD, {.cost_model = model});
  s.dyn = &endpoint;

  std::ofstream csv;
  if (s.rank == 0) {
    csv.open(csv_path);
    csv << "ranks,bytes,recipients,method,rep,latency_us\n";
  }
  std::ofstream rank_csv;
  std::vector<double> per_rank;
  if (s.rank == 0 && !rank_csv_path.empty()) {
    rank_csv.open(rank_csv_path);
    rank_csv << "ranks,bytes,recipients,method,rep,rank,latency_us\n";
  }
  struct Point {
    std::size_t bytes;
    int k;
    std::map<Method, std::vector<double>> samples;
  };
  std::vector<Point> points;
  for (std::size_t bytes : sizes) {
    std::vector<std::byte> buffer(bytes);
    const int iterations = bytes >= large_from ? large_iterations : small_iterations;
    for (int k : recipient_counts) {
      s.recipients = k;
      MPI_Comm_split(MPI_COMM_WORLD, s.rank <= k ? 0 : MPI_UNDEFINED, s.rank, &s.group);
      std::vector<int> recipients;
      for (int r = 1; r <= k; ++r) recipients.push_back(r);
      for (Method m : methods) {
        if (validate(m, s, buffer, recipients) != 0)
          throw herald::Error(herald::Errc::invalid_argument, std::string(name(m)) + " delivered wrong data for " +
                                                                  std::to_string(bytes) + " bytes to " +
                                                                  std::to_string(k) + " recipients");
        for (int w = 0; w < warmup; ++w) run_once(m, s, buffer, recipients);
      }
      Point point{bytes, k, {}};
      for (int rep = 0; rep < reps; ++rep) {
        for (Method m : methods) {
          const double us = measure(m, s, buffer, recipients, iterations, from_root,
                                    rank_csv_path.empty() ? nullptr : &per_rank);
          point.samples[m].push_back(us);
          if (s.rank == 0)
            csv << s.size << ',' << bytes << ',' << k << ',' << name(m) << ',' << rep << ',' << us << '\n';
          if (s.rank == 0 && !rank_csv_path.empty())
            for (int r = 0; r <= k; ++r)
              rank_csv << s.size << ',' << bytes << ',' << k << ',' << name(m) << ',' << rep << ',' << r << ','
                       << per_rank[static_cast<std::size_t>(r)] << '\n';
        }
      }
      points.push_back(std::move(point));
      if (s.group != MPI_COMM_NULL) MPI_Comm_free(&s.group);
    }
  }

  if (s.rank == 0) {
    std::printf("P = %d ranks, %d repetitions per point; latency in microseconds: median [min, max]; %s\n", s.size,
                reps, from_root ? "from the root's start to the last finish" : "OSU-style, each rank from the barrier");
    std::printf("cost model for the dyn shape: %s (%s), %s forwarding\n\n", model_text(model).c_str(),
                given ? "HERALD_* settings" : "measured between ranks 0 and 1",
                endpoint.forwarding() == herald::dyn::Forwarding::serial ? "serial" : "overlapped");
    std::printf("| size | recipients | dyn shape | dynbcast | MPI_Bcast | naive loop | dyn / MPI_Bcast | dyn / naive |\n");
    std::printf("|---|---|---|---|---|---|---|---|\n");
    for (const Point& p : points) {
      auto spread = [&](Method m) { return herald::bench::spread_of(p.samples.at(m)); };
      auto cell = [&](Method m) {
        const herald::bench::Spread v = spread(m);
        char text[96];
        std::snprintf(text, sizeof text, "%.1f [%.1f, %.1f]", v.median, v.min, v.max);
        return std::string(text);
      };
      // A ratio counts only when the two ranges do not overlap (benchmarking rule 2).
      auto ratio = [&](Method a, Method b) {
        const herald::bench::Spread x = spread(a), y = spread(b);
        const bool apart = herald::bench::compare(x, y) != herald::bench::Verdict::not_distinguishable;
        char text[64];
        std::snprintf(text, sizeof text, "%.2f%s", x.median / y.median, apart ? "" : " (n.d.)");
        return std::string(text);
      };
      herald::dyn::Shape shape;
      if (algorithm.empty()) {
        shape = endpoint.shape(p.k, p.bytes);
      } else {
        const herald::Problem q = herald::with_defaults(
            herald::find_algorithm(algorithm),
            {.ranks = p.k + 1, .root = 0, .bytes = p.bytes, .parameters = {.segment = s.send_options.segment}});
        shape = {algorithm, q.parameters.segment.value_or(0), 0};
      }
      const std::string shape_text =
          shape.algorithm + (shape.segment ? " / " + format_size(shape.segment) + " segments" : "");
      std::printf("| %s | %d | %s | %s | %s | %s | %s | %s |\n", format_size(p.bytes).c_str(), p.k,
                  shape_text.c_str(), cell(Method::dyn).c_str(), cell(Method::native).c_str(), cell(Method::naive).c_str(),
                  ratio(Method::dyn, Method::native).c_str(), ratio(Method::dyn, Method::naive).c_str());
    }
    std::printf("\n(n.d.: min-max ranges overlap, not distinguishable)\nraw results: %s\n", csv_path.c_str());
  }
  MPI_Comm_free(&s.naive);
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return herald::bench::mpi_main(argc, argv, "herald-dynbcast-bench", run); }
