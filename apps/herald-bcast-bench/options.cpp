#include "options.hpp"

#include "cli.hpp"
#include "clock.hpp"
#include "contender.hpp"

#include <herald/algorithms.hpp>
#include <herald/coll_settings.hpp>
#include <herald/config.hpp>
#include <herald/error.hpp>

#include <algorithm>
#include <sstream>

namespace herald::bench {
namespace {

// Splits on commas, trimming blanks; empty entries are dropped.
std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) {
    const auto first = item.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    const auto last = item.find_last_not_of(" \t");
    items.push_back(item.substr(first, last - first + 1));
  }
  return items;
}

void add_unique(std::vector<std::string>& names, const std::string& name) {
  if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
}

}  // namespace

std::vector<std::size_t> default_sizes() {
  std::vector<std::size_t> sizes;
  for (std::size_t n = 1; n <= (std::size_t{16} << 20); n *= 2) sizes.push_back(n);
  for (std::size_t n : {12287, 12288, 12289, 524287, 524289, 1000003}) sizes.push_back(n);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

std::vector<std::size_t> parse_size_list(const std::string& text) {
  std::vector<std::size_t> sizes;
  for (const std::string& item : split_list(text)) {
    const auto dots = item.find("..");
    if (dots == std::string::npos) {
      sizes.push_back(parse_bytes(item, "--sizes entry"));
      continue;
    }
    const std::size_t low = parse_bytes(item.substr(0, dots), "--sizes range start");
    const std::size_t high = parse_bytes(item.substr(dots + 2), "--sizes range end");
    if (low == 0 || low > high)
      throw Error(Errc::invalid_argument,
                  "--sizes range '" + item + "' must run from a positive size up to a larger one");
    for (std::size_t n = low; n <= high; n *= 2) {
      sizes.push_back(n);
      if (n > high / 2) break;  // the next doubling would pass `high` (or overflow)
    }
  }
  if (sizes.empty()) throw Error(Errc::invalid_argument, "--sizes '" + text + "' names no size");
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

std::vector<std::string> parse_algorithm_list(const std::string& text) {
  // The peer comes first so every repetition starts from the same reference.
  std::vector<std::string> names{"native"};
  const auto items = split_list(text);
  if (items.empty()) throw Error(Errc::invalid_argument, "--algorithms '" + text + "' names no algorithm");
  for (const std::string& item : items) {
    if (item == "all") {
      for (const AlgorithmInfo& info : algorithms()) add_unique(names, std::string(info.name));
      add_unique(names, "auto");
    } else if (item == "native" || item == "auto" || item == via_herald_native) {
      add_unique(names, item);
    } else {
      add_unique(names, std::string(find_algorithm(item).name));  // throws, naming the known ones
    }
  }
  return names;
}

Parsed parse_command_line(int argc, char** argv, int ranks) {
  CLI::App app{
      "OSU-style broadcast latency: every herald algorithm against the installed MPI_Bcast, interleaved in "
      "one run. Latency is the maximum over ranks of the per-iteration average; each figure is the median "
      "of the repetitions with min and max, and its ratio to native's median.",
      "herald-bcast-bench"};
  Settings s;
  std::string algorithms_text = "all";
  std::string sizes_text;
  std::string segment_text, leaders_text;
  double alpha = 0, beta = 0;
  app.add_option("--algorithms", algorithms_text,
                 "comma list of algorithms; 'all' = every herald algorithm, auto and native; native is "
                 "always measured as the peer; herald_native (not in 'all') is MPI_Bcast called through herald::bcast. Known: " +
                     algorithm_names() + ", auto, native, herald_native")
      ->capture_default_str();
  app.add_option("--sizes", sizes_text,
                 "comma list of byte counts with K/M/G suffixes, or power-of-two ranges like 1..16M "
                 "(default: 1 B to 16 MiB in powers of two, 12287, 12288, 12289, 524287, 524289, 1000003)");
  app.add_option("--iterations", s.iterations,
                 "timed broadcasts per repetition; scaled down per size so one algorithm's repetition stays "
                 "near --time-budget, but never below --min-iterations")
      ->capture_default_str();
  app.add_option("--min-iterations", s.min_iterations, "lower bound of the scaled iteration count")
      ->capture_default_str();
  app.add_option("--time-budget", s.time_budget,
                 "seconds one algorithm may take per repetition (0: always run --iterations)")
      ->capture_default_str();
  app.add_option("--repetitions", s.repetitions, "repetitions per algorithm and size (median, min, max)")
      ->capture_default_str();
  app.add_option("--warmup", s.warmup, "untimed broadcasts per algorithm and size before timing")
      ->capture_default_str();
  app.add_option("--root", s.root, "root rank; -1 means the last rank")->capture_default_str();
  app.add_option("--segment", segment_text, "segment size for the algorithms that read it (K/M/G suffixes)");
  app.add_option("--fanout", s.parameters.fanout, "chains leaving the root (chain)");
  app.add_option("--radix", s.parameters.radix, "tree radix (knomial)");
  app.add_option("--node-size", s.parameters.node_size, "ranks per node, consecutive (hierarchical)");
  app.add_option("--leaders", leaders_text,
                 "the stage among node leaders of node_pipeline and node_shared: " + herald::leader_stage_names() +
                     " (default chain; auto prices every one)");
  app.add_flag("--nonblocking", s.nonblocking, "time ibcast + wait instead of bcast");
  std::string clock_text = "osu";
  app.add_option("--clock", clock_text,
                 "osu: each rank times the back-to-back broadcasts from its own exit of a barrier, and the "
                 "sample is the slowest rank's average; sync: every broadcast starts at one instant T on "
                 "every rank (set by the root a lead ahead, the lead doubled and the sample redone whenever "
                 "a rank reaches T late), and lasts until the latest rank finishes; the sample is the "
                 "average of (latest finish - T). sync needs a global clock (MPI_WTIME_IS_GLOBAL, as under "
                 "SimGrid's SMPI)")
      ->check(CLI::IsMember({"osu", "sync"}))
      ->capture_default_str();
  app.add_flag("--shared-buffer", s.shared_buffer,
               "SimGrid's SMPI only: one buffer shared by every simulated rank (SMPI_SHARED_MALLOC; run with "
               "--cfg=smpi/shared-malloc:global), so large sizes fit in memory at hundreds of ranks; the data "
               "is not validated");
  app.add_option("--alpha", alpha, "seconds per message for the predictions (default: measured)");
  app.add_option("--beta", beta, "seconds per byte for the predictions (default: measured)");
  app.add_option("--csv", s.csv, "write the results as CSV to this file");
  app.add_option("--json", s.json, "write the results, raw samples included, as JSON to this file");

  Parsed parsed;
  std::ostringstream out;
  if (const auto status = herald::cli::parse(app, argc, argv, out, out)) {
    parsed.exit_code = *status;
    parsed.message = out.str();
    return parsed;
  }

  auto fail = [&](const std::string& why) {
    parsed.exit_code = 2;
    parsed.message = "herald-bcast-bench: " + why + "\n";
    return parsed;
  };
  try {
    s.algorithms = parse_algorithm_list(algorithms_text);
    s.sizes = sizes_text.empty() ? default_sizes() : parse_size_list(sizes_text);
    if (!segment_text.empty()) {
      s.parameters.segment = parse_bytes(segment_text, "--segment");
      if (*s.parameters.segment == 0) return fail("--segment must be positive");
    }
    if (!leaders_text.empty()) s.parameters.leaders = parse_leader_stage(leaders_text, "--leaders");
  } catch (const Error& e) {
    return fail(e.what());
  }
  s.clock = clock_text == "sync" ? Clock::sync : Clock::osu;
  if (s.shared_buffer && !under_smpi)
    return fail("--shared-buffer needs a build with SimGrid's smpicxx (SMPI_SHARED_MALLOC); this one runs on "
                "a real MPI, where every rank keeps its own buffer");
  if (s.iterations < 1) return fail("--iterations must be at least 1");
  if (s.min_iterations < 1) return fail("--min-iterations must be at least 1");
  if (s.repetitions < 1) return fail("--repetitions must be at least 1");
  if (s.warmup < 0) return fail("--warmup must not be negative");
  if (!(s.time_budget >= 0)) return fail("--time-budget must not be negative");
  if (s.root == -1) s.root = ranks - 1;
  if (s.root < 0 || s.root >= ranks)
    return fail("--root " + std::to_string(s.root) + " is not a rank of this " + std::to_string(ranks) +
                "-rank run (use 0.." + std::to_string(ranks - 1) + " or -1 for the last rank)");
  if (app.count("--alpha")) {
    if (!(alpha >= 0)) return fail("--alpha must not be negative");
    s.alpha = alpha;
  }
  if (app.count("--beta")) {
    if (!(beta >= 0)) return fail("--beta must not be negative");
    s.beta = beta;
  }
  // Parameters are checked against every algorithm now, so a bad one stops the run before any byte moves.
  try {
    const Parameters effective = merge(s.parameters, parameters_from_environment());
    for (const std::string& name : s.algorithms) {
      if (name == "native" || name == "auto" || name == via_herald_native) continue;
      (void)with_defaults(find_algorithm(name), Problem{ranks, s.root, 0, effective});
    }
    validate(Problem{ranks, s.root, 0, effective});
  } catch (const Error& e) {
    return fail(e.what());
  }
  for (int i = 0; i < argc; ++i) s.command_line.emplace_back(argv[i]);
  parsed.settings = std::move(s);
  return parsed;
}

}  // namespace herald::bench
