// The settings registry (include/herald/settings.hpp): the one table of HERALD_* variables.
#include <herald/settings.hpp>

#include <herald/config.hpp>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <map>
#include <mutex>
#include <numeric>
#include <string>

namespace herald {
namespace {

// docs/configuration.md lists the same settings in the same order; a test checks that they agree.
constexpr auto make_table() {
  using enum SettingType;  // inside: a batched build would carry the names into the next sources
  return std::array{
      // coll
      Setting{"HERALD_ALGORITHM", choice, "auto", "auto|native|<an algorithm of the table>", "coll",
              "algorithm used when a call names none", ""},
      Setting{"HERALD_SEGMENT_SIZE", bytes, "per algorithm", "", "coll", "segment size of the segmented algorithms", ""},
      Setting{"HERALD_CHAIN_FANOUT", count, "per algorithm", "1..", "coll", "number of chains leaving the root in chain", ""},
      Setting{"HERALD_KNOMIAL_RADIX", count, "per algorithm", "2..", "coll", "radix of knomial", ""},
      Setting{"HERALD_LEADER_STAGE", choice, "chain", "chain|two_tree|split_binary|binary|scatter_ring_tuned|binomial|circulant",
              "coll", "the broadcast among node leaders of node_pipeline and node_shared", ""},
      Setting{"HERALD_RANKS_PER_NODE", count, "the node layout herald finds", "1..", "coll",
              "ranks per node for the node-aware algorithms, nodes holding consecutive ranks", ""},
      Setting{"HERALD_ALPHA", seconds, "1e-6, or the tuning file's", "", "coll", "per-message cost of auto's cost model", ""},
      Setting{"HERALD_BETA", seconds, "1e-10, or the tuning file's", "", "coll", "per-byte cost of auto's cost model", ""},
      Setting{"HERALD_NODE_ALPHA", seconds, "as between nodes", "", "coll", "per-message cost between two ranks of one node", ""},
      Setting{"HERALD_NODE_BETA", seconds, "as between nodes", "", "coll", "per-byte cost between two ranks of one node", ""},
      Setting{"HERALD_GAP", seconds, "HERALD_ALPHA", "", "coll", "seconds a message holds its ports besides its bytes (LogP's g)", ""},
      Setting{"HERALD_NETWORK", choice, "ports", "ports|fair", "coll",
              "network the cost model describes: one message per port, or links shared fairly", ""},
      Setting{"HERALD_OVERHEAD", seconds, "0", "", "coll", "with fair: seconds a rank spends per message sent and received", ""},
      Setting{"HERALD_EAGER_BYTES", bytes, "0", "", "coll", "with fair: largest message the MPI sends eagerly", ""},
      Setting{"HERALD_PRESET", choice, "", "shared-memory|ethernet-10g|ethernet-100g|infiniband-edr|infiniband-hdr|omni-path|slingshot",
              "coll", "a built-in model of a typical machine when there is no tuning file", ""},
      Setting{"HERALD_TUNING_FILE", path, "", "", "coll", "a tuning file written by herald-tune, for auto", ""},
      Setting{"HERALD_TUNING_FALLBACK", switch_, "0", "", "coll", "a refused tuning file is reported once and set aside", ""},
      Setting{"HERALD_AUTO_NATIVE_BELOW", bytes, "512 at 2 ranks a node, 256 above", "", "coll",
              "without a measurement, on one node, auto keeps the MPI's own broadcast below this size", ""},
      Setting{"HERALD_VERBOSE", switch_, "0", "", "coll", "rank 0 of each communicator says what auto runs and why", ""},
      Setting{"HERALD_AUTO_LEARN", switch_, "0", "", "coll",
              "auto tries its nearest candidates on each communicator's blocking calls and keeps the fastest", ""},
      Setting{"HERALD_TUNING_LEARN", path, "", "", "coll", "MPI_Finalize writes what HERALD_AUTO_LEARN learned as a tuning file", ""},
      Setting{"HERALD_SENDS_IN_FLIGHT", count, "1", "1..", "coll", "sends of one rank the executor keeps in flight", ""},
      Setting{"HERALD_SENDS_PER_PEER", count, "HERALD_SENDS_IN_FLIGHT", "1..", "coll", "of those, at most this many to one peer", ""},
      Setting{"HERALD_EMULATE_NODES", text, "", "<k>[,blocks]|<k>,cyclic", "coll",
              "nodes made up from the ranks of MPI_COMM_WORLD in place of the host names", ""},
      Setting{"HERALD_MAX_MESSAGE_BYTES", bytes, "2147483647", "1..2147483647", "coll",
              "largest single MPI message herald sends; longer steps are split", ""},
      Setting{"HERALD_STRICT_SETTINGS", switch_, "0", "", "coll",
              "an unknown or deprecated HERALD_* variable, or a refused value, is an error, not a warning", ""},
      // dyn
      Setting{"HERALD_DYN_ALGORITHM", choice, "auto", "auto|binomial|balanced_binomial|binary|chain|knomial|linear", "dyn",
              "tree shape of dynamic broadcasts", ""},
      Setting{"HERALD_DYN_FORWARDING", choice, "serial on one node, else overlapped", "serial|overlapped", "dyn",
              "how forwarders move bytes when shapes are priced", ""},
      Setting{"HERALD_DYN_FRAME_SLOT", bytes, "16K", "", "dyn", "size of each pre-posted receive slot for message headers", ""},
      Setting{"HERALD_DYN_WINDOW", bytes, "512K", "0: no bound", "dyn",
              "bulk bytes a rank keeps on the wire to one rank at once", ""},
      Setting{"HERALD_DYN_WINDOW_PIECES", count, "2", "0: no bound", "dyn",
              "bulk pieces a rank keeps on the wire to one rank at once", ""},
      Setting{"HERALD_DYN_TOTAL_WINDOW", bytes, "0", "0: no bound", "dyn",
              "bulk bytes a rank keeps on the wire to all ranks together", ""},
      Setting{"HERALD_DYN_PROGRESS_THREAD", switch_, "0", "", "dyn", "a progress thread advances active messages", ""},
      // runtime
      Setting{"HERALD_RUNTIME_THREADS", count, "1; 0 in a process bound to one core", "", "runtime",
              "threads per worker that run kernels", ""},
      Setting{"HERALD_RUNTIME_CONTROL", choice, "head", "head|replicated", "runtime", "who runs the program and decides", ""},
      Setting{"HERALD_RUNTIME_SCHEDULER", choice, "heft", "heft|round_robin|mapped|owner", "runtime", "the task scheduler", ""},
      Setting{"HERALD_RUNTIME_BCAST", choice, "nobcast", "nobcast|p2p|mpibcast|mpibcast:herald|dynbcast|auto", "runtime",
              "how a version read on several workers that lack it moves", "HERALD_RT_BCAST"},
      Setting{"HERALD_RUNTIME_BCAST_SYNC", switch_, "0", "", "runtime",
              "a broadcast's recipients run no task reading it until every recipient has it", "HERALD_RT_BCAST_SYNC"},
      Setting{"HERALD_RUNTIME_REDUCE", choice, "auto", "tree|all_to_one|scatter|auto", "runtime",
              "how the ranks' partials of a reduction meet", ""},
      Setting{"HERALD_RUNTIME_TREES", choice, "dyn", "dyn|spread|planned", "runtime",
              "who forwards a dynamic broadcast: dyn's shape, spread by bytes sent, or planned on the links", ""},
      Setting{"HERALD_RUNTIME_LOG", switch_, "0", "", "runtime", "one line per broadcast found, by the head or, replicated, its root",
              "HERALD_RT_LOG"},
      Setting{"HERALD_RUNTIME_TIMEOUT", seconds, "60", "", "runtime", "seconds a worker may stay silent before it is lost", ""},
      Setting{"HERALD_RUNTIME_IDLE_SLEEP", seconds, "50e-6", "", "runtime", "longest sleep of an idle polling loop", ""},
      Setting{"HERALD_RUNTIME_INJECT", text, "", "<kind>:<rank>", "runtime", "a fault injected for the runtime's tests", ""},
      Setting{"HERALD_SMPI_SHARED_REPLICAS", switch_, "0", "", "runtime",
              "SimGrid builds: every replica maps one shared block", ""},
      // trace
      Setting{"HERALD_TRACE", path, "", "", "trace", "a directory to write a trace into", ""},
      // balance
      Setting{"HERALD_BALANCE_IMPLICIT", switch_, "0", "", "balance", "every outermost parallel region ends a phase", ""},
      Setting{"HERALD_BALANCE_EVERY", count, "1", "1..", "balance", "act on every X-th phase end", ""},
      Setting{"HERALD_BALANCE_AT", count, "", "1..", "balance", "act once, at the X-th phase end", ""},
      Setting{"HERALD_BALANCE_LOG", switch_, "0", "", "balance", "the node's first process prints each decision", ""},
      Setting{"HERALD_BALANCE_BIND", switch_, "1", "", "balance", "bind threads to the chosen cores", ""},
      Setting{"HERALD_BALANCE_CLOCK", choice, "wall", "wall|cpu", "balance", "the clock a thread's work is read on", ""},
      Setting{"HERALD_BALANCE_CORES", list, "hwloc's topology", "48|2x24|24,24", "balance", "pretend the node has these cores per socket", ""},
      // pmpi
      Setting{"HERALD_PMPI_LOG", switch_, "0", "", "pmpi", "each intercepted broadcast prints its size and algorithm", ""},
      Setting{"HERALD_STATS", switch_, "0", "", "pmpi", "MPI_Finalize prints the broadcasts herald ran", ""},
      // The test suite's own (besides any HERALD_TEST_* variable).
      Setting{"HERALD_EXPECT_PMPI", switch_, "0", "", "tests", "the drop-in test program checks that herald ran", ""},
      Setting{"HERALD_BAD_SETTING", text, "", "", "tests", "the drop-in error test's variable set to a bad value", ""},
      Setting{"HERALD_WRITE_MESSAGE_CORPUS", path, "", "", "tests", "a folder the message test writes the fuzz seeds into", ""},
      // The scripts' (README.md, docs/building.md): set for them, seen by the programs they run.
      Setting{"HERALD_BUILD_DIR", path, "build", "", "scripts", "build directory of scripts/test.sh and main.sh", ""},
      Setting{"HERALD_BUILD_TYPE", choice, "Release", "", "scripts", "CMAKE_BUILD_TYPE of scripts/test.sh", ""},
      Setting{"HERALD_MPI", choice, "the system's", "openmpi|mpich|both", "scripts", "the MPI scripts/setup.sh and test.sh use", ""},
      Setting{"HERALD_CMAKE_ARGS", text, "", "", "scripts", "extra configure arguments of scripts/test.sh", ""},
      Setting{"HERALD_CTEST_ARGS", text, "", "", "scripts", "extra ctest arguments of scripts/test.sh", ""},
      Setting{"HERALD_SIMGRID", switch_, "0", "", "scripts", "scripts/setup.sh also installs SimGrid", ""},
      Setting{"HERALD_STARPU", switch_, "0", "", "scripts", "scripts/setup.sh also installs StarPU", ""},
      Setting{"HERALD_MPI4PY_VENV", path, "~/.cache/herald/mpi4py-venv", "", "scripts", "a virtual environment with mpi4py, which the mpi4py test prefers to Debian's", ""},
      Setting{"HERALD_FRESH_ENV", text, "", "", "scripts", "variables scripts/fresh-root.sh passes to its command", ""},
      Setting{"HERALD_CLUSTER_NET", text, "10.213.0", "", "scripts", "the emulated cluster's network (bench/cluster)", ""},
      Setting{"HERALD_TASK_BENCH_DIR", path, "~/.cache/herald/task-bench", "", "scripts", "where bench/taskbench/peer.sh builds Task Bench", ""},
      Setting{"HERALD_TASK_BENCH_SOURCE", path, "", "", "scripts", "where bench/taskbench/peer.sh clones Task Bench from", ""},
      Setting{"HERALD_METG_NAME", text, "metg-p<ranks>", "", "scripts", "the name of bench/taskbench/metg.sh's results", ""},

  };
}

constexpr std::array settings_table = make_table();

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// The programs' defaults (set_program_default): process-wide, like the environment they stand below.
struct ProgramDefaults {
  std::mutex mutex;
  std::map<std::string, std::string, std::less<>> values;
};

ProgramDefaults& program_defaults() {
  static ProgramDefaults defaults;
  return defaults;
}

const Setting& registered(std::string_view name) {
  const Setting* s = find_setting(name);
  if (!s || s->name != name)
    throw Error(Errc::invalid_argument, std::string(name) + " is read but not declared in herald's settings registry");
  return *s;
}

}  // namespace

std::string_view setting_type_name(SettingType type) {
  using enum SettingType;
  switch (type) {
    case switch_: return "switch";
    case count: return "count";
    case bytes: return "bytes";
    case seconds: return "seconds";
    case choice: return "choice";
    case path: return "path";
    case list: return "list";
    case text: return "text";
  }
  return "text";
}

std::span<const Setting> settings() { return settings_table; }

const Setting* find_setting(std::string_view name) {
  for (const Setting& s : settings_table)
    if (s.name == name || (!s.old_name.empty() && s.old_name == name)) return &s;
  return nullptr;
}

std::string_view nearest_name(std::string_view name, std::span<const std::string_view> names) {
  // A name cut short ("dyn", "repl") means the shortest it begins, however far that is by letters.
  std::string_view best;
  if (!name.empty())
    for (std::string_view candidate : names)
      if (candidate.starts_with(name) && (best.empty() || candidate.size() < best.size())) best = candidate;
  if (!best.empty()) return best;
  std::size_t best_distance = std::max<std::size_t>(3, name.size() / 4) + 1;  // a few letters off, no more
  for (std::string_view candidate : names) {
    const std::size_t d = edit_distance(name, candidate);
    if (d < best_distance) {
      best = candidate;
      best_distance = d;
    }
  }
  return best;
}

std::string_view nearest_setting(std::string_view name) {
  std::vector<std::string_view> names;
  for (const Setting& s : settings_table) names.push_back(s.name);
  return nearest_name(name, names);
}

std::string not_one_of(std::string_view what, std::string_view given, std::span<const std::string_view> choices) {
  std::string message = std::string(what) + " '" + std::string(given) + "' is not one of ";
  for (std::size_t i = 0; i < choices.size(); ++i) message += (i == 0 ? "" : ", ") + std::string(choices[i]);
  if (const std::string_view near = nearest_name(given, choices); !near.empty())
    message += "; did you mean " + std::string(near) + "?";
  return message;
}

std::optional<std::string> value_problem(const Setting& s, std::string_view value) {
  // The lower bound of a range such as "1.." or "1..2147483647", the upper one if given.
  auto range_problem = [&](long double v) -> std::optional<std::string> {
    const std::size_t dots = s.allowed.find("..");
    if (dots == std::string_view::npos || dots == 0) return std::nullopt;
    const long double low = std::stold(std::string(s.allowed.substr(0, dots)));
    const std::string high_text(s.allowed.substr(dots + 2));
    if (v < low || (!high_text.empty() && v > std::stold(high_text)))
      return std::string(s.name) + " '" + std::string(value) + "' is outside " + std::string(s.allowed);
    return std::nullopt;
  };
  try {
    switch (s.type) {
      case SettingType::switch_: (void)parse_switch(value, s.name); return std::nullopt;
      case SettingType::count: return range_problem(static_cast<long double>(parse_count(value, s.name)));
      case SettingType::bytes: return range_problem(static_cast<long double>(parse_bytes(value, s.name)));
      case SettingType::seconds: (void)parse_seconds(value, s.name); return std::nullopt;
      case SettingType::choice: {
        if (s.allowed.empty() || s.allowed.find('<') != std::string_view::npos) return std::nullopt;
        std::vector<std::string_view> choices;
        for (std::size_t start = 0; start <= s.allowed.size();) {
          const std::size_t bar = std::min(s.allowed.find('|', start), s.allowed.size());
          choices.push_back(s.allowed.substr(start, bar - start));
          start = bar + 1;
        }
        if (std::ranges::find(choices, value) != choices.end()) return std::nullopt;
        return not_one_of(s.name, value, choices);
      }
      case SettingType::path:
      case SettingType::list:
      case SettingType::text: return std::nullopt;
    }
  } catch (const Error& e) {
    return e.message();
  }
  return std::nullopt;
}

SettingValue setting_value(std::string_view name) {
  auto read = [](std::string_view n) -> std::optional<std::string> {
    const char* v = std::getenv(std::string(n).c_str());
    if (v == nullptr || *v == '\0') return std::nullopt;
    return std::string(v);
  };
  // The test suite's own namespace: its programs read them through herald too, undeclared.
  if (name.starts_with("HERALD_TEST_")) {
    auto v = read(name);
    return {v, v ? SettingSource::environment : SettingSource::unset};
  }
  const Setting* s = &registered(name);
  if (auto v = read(s->name)) return {std::move(v), SettingSource::environment};
  if (!s->old_name.empty())
    if (auto v = read(s->old_name)) return {std::move(v), SettingSource::former_name};
  ProgramDefaults& defaults = program_defaults();
  const std::lock_guard lock(defaults.mutex);
  if (const auto it = defaults.values.find(name); it != defaults.values.end() && !it->second.empty())
    return {it->second, SettingSource::program};
  return {};
}

void set_program_default(std::string_view name, std::string value) {
  registered(name);
  ProgramDefaults& defaults = program_defaults();
  const std::lock_guard lock(defaults.mutex);
  defaults.values.insert_or_assign(std::string(name), std::move(value));
}

std::vector<std::string> environment_problems(std::span<const std::string> environment) {
  std::vector<std::string> problems;
  for (const std::string& entry : environment) {
    const std::size_t equals = entry.find('=');
    const std::string name = entry.substr(0, equals);
    if (!name.starts_with("HERALD_") || name.starts_with("HERALD_TEST_")) continue;
    const Setting* s = find_setting(name);
    if (!s) {
      const std::string value = equals == std::string::npos ? "" : entry.substr(equals + 1);
      std::string message = name + " (set to '" + value + "') is not a herald setting";
      if (const std::string_view near = nearest_setting(name); !near.empty())
        message += "; did you mean " + std::string(near) + "?";
      problems.push_back(message + " (herald-info lists them all)");
    } else if (s->name != name) {
      problems.push_back(name + " is deprecated: use " + std::string(s->name));
    } else if (equals != std::string::npos && equals + 1 < entry.size()) {  // empty means unset
      if (auto problem = value_problem(*s, std::string_view(entry).substr(equals + 1)))
        problems.push_back(std::move(*problem));
    }
  }
  std::ranges::sort(problems);
  return problems;
}

}  // namespace herald
