#include "options.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <limits>

namespace herald::taskbench {
namespace {

std::string quoted(std::string_view flag, std::string_view value) {
  return "\"" + std::string(flag) + " " + std::string(value) + "\"";
}

[[noreturn]] void refuse(std::string_view flag, std::string_view value, std::string_view why) {
  throw UsageError("error: invalid flag " + quoted(flag, value) + ": " + std::string(why));
}

// A whole-string number; Task Bench's atol/atof would read "12x" as 12 and "x" as 0, which hides typos.
template <typename T>
T number(std::string_view flag, std::string_view text) {
  T value{};
  const char* const end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc{} || stop != end || text.empty()) {
    refuse(flag, text, std::numeric_limits<T>::is_integer ? "not an integer" : "not a number");
  }
  return value;
}

// The graph being configured, with whether -period was given: Task Bench's default depends on the type,
// which may come later on the command line.
struct GraphDraft {
  TaskGraph graph;
  bool period_given = false;  // graph.period holds -period's value only then

  explicit GraphDraft(long index) { graph.graph_index = index; }

  TaskGraph finish() const {
    TaskGraph g = graph;
    if (!period_given) g.period = default_period(g.dependence);
    if (g.nb_fields == 0) g.nb_fields = int(std::min<long>(g.timesteps, std::numeric_limits<int>::max()));
    return g;
  }
};

class Parser {
 public:
  Parser(std::span<const std::string_view> args, UnknownFlags unknown) : args_(args), unknown_(unknown) {}

  Options run() {
    GraphDraft draft(0);
    for (pos_ = 0; pos_ < args_.size(); ++pos_) {
      const std::string_view flag = args_[pos_];
      if (flag == "-h" || flag == "--help") {
        options_.help = true;
        return std::move(options_);
      }
      if (flag == "-and") {
        options_.graphs.push_back(draft.finish());
        draft = GraphDraft(long(options_.graphs.size()));
      } else if (!run_flag(flag) && !graph_flag(flag, draft)) {
        if (unknown_ == UnknownFlags::reject) {
          throw UsageError("error: unknown flag \"" + std::string(flag) + "\" (-h lists the flags)");
        }
        options_.unrecognized.emplace_back(flag);
      }
    }
    options_.graphs.push_back(draft.finish());
    check_graphs();
    return std::move(options_);
  }

 private:
  std::string_view value_of(std::string_view flag) {
    if (pos_ + 1 >= args_.size()) throw UsageError("error: flag \"" + std::string(flag) + "\" needs a value");
    return args_[++pos_];
  }

  // Every count is read as a long first, so a negative one is refused with the bound, not as a typo.
  template <typename T>
  T at_least(std::string_view flag, long min, std::string_view why) {
    const std::string_view text = value_of(flag);
    const long value = number<long>(flag, text);
    if (value < min) refuse(flag, text, why);
    if (std::uintmax_t(value) > std::uintmax_t(std::numeric_limits<T>::max())) refuse(flag, text, "too large");
    return T(value);
  }

  double fraction_in(std::string_view flag, double max) {
    const std::string_view text = value_of(flag);
    const double value = number<double>(flag, text);
    if (!(value >= 0 && value <= max)) {
      char bound[32];
      std::snprintf(bound, sizeof bound, "%g", max);
      refuse(flag, text, "must be >= 0 and <= " + std::string(bound));
    }
    return value;
  }

  bool run_flag(std::string_view flag) {
    if (flag == "-nodes") {
      options_.nodes = at_least<long>(flag, 1, "the number of nodes must be > 0");
    } else if (flag == "-v") {
      options_.verbose += 1;
    } else if (flag == "-vv") {
      options_.verbose += 2;
    } else if (flag == "-skip-graph-validation") {
      options_.enable_graph_validation = false;
    } else {
      return false;
    }
    return true;
  }

  bool graph_flag(std::string_view flag, GraphDraft& draft) {
    TaskGraph& g = draft.graph;
    if (flag == "-steps") {
      g.timesteps = at_least<long>(flag, 1, "the number of timesteps must be > 0");
    } else if (flag == "-width") {
      g.max_width = at_least<long>(flag, 1, "the width must be > 0");
    } else if (flag == "-type") {
      const std::string_view name = value_of(flag);
      const auto type = dependence_type_named(name);
      if (!type) refuse(flag, name, "no such dependence type (-h lists them)");
      g.dependence = *type;
    } else if (flag == "-radix") {
      // Task Bench takes 0 here, then divides by it when checking the graph.
      g.radix = at_least<long>(flag, 1, "the radix must be > 0");
    } else if (flag == "-period") {
      g.period = at_least<long>(flag, 0, "the period must be >= 0");
      draft.period_given = true;
    } else if (flag == "-fraction") {
      g.fraction_connected = fraction_in(flag, 1);
    } else if (flag == "-kernel") {
      const std::string_view name = value_of(flag);
      const auto type = kernel_type_named(name);
      if (!type) refuse(flag, name, "no such kernel (-h lists them)");
      g.kernel.type = *type;
    } else if (flag == "-iter") {
      g.kernel.iterations = at_least<long>(flag, 0, "the number of iterations must be >= 0");
    } else if (flag == "-imbalance") {
      g.kernel.imbalance = fraction_in(flag, 2);
    } else if (flag == "-output") {
      g.output_bytes_per_task = at_least<std::size_t>(
          flag, long(min_output_bytes), "an output holds at least one record of " + std::to_string(min_output_bytes) + " bytes");
    } else if (flag == "-scratch") {
      g.scratch_bytes_per_task = at_least<std::size_t>(flag, 0, "the scratch size must be >= 0");
    } else if (flag == "-sample") {
      g.kernel.samples = at_least<int>(flag, 0, "the number of samples must be >= 0");
    } else if (flag == "-field") {
      g.nb_fields = at_least<int>(flag, 1, "the number of fields must be > 0");
    } else if (flag == "-broadcast") {
      g.broadcast_bytes = at_least<std::size_t>(flag, 0, "the broadcast size must be >= 0");
    } else {
      return false;
    }
    return true;
  }

  void check_graphs() const {
    for (const TaskGraph& g : options_.graphs) {
      if (auto error = find_graph_error(g)) {
        const std::string which =
            options_.graphs.size() > 1 ? "task graph " + std::to_string(g.graph_index + 1) + ": " : "";
        throw UsageError("error: " + which + *error);
      }
    }
  }

  std::span<const std::string_view> args_;
  UnknownFlags unknown_;
  std::size_t pos_ = 0;
  Options options_;
};

}  // namespace

Options parse_options(std::span<const std::string_view> args, UnknownFlags unknown) {
  return Parser(args, unknown).run();
}

Options parse_options(int argc, const char* const* argv, UnknownFlags unknown) {
  std::vector<std::string_view> args;
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  return parse_options(args, unknown);
}

std::string usage_text(std::string_view program, std::string_view summary, std::span<const FlagHelp> own) {
  const std::string name(program.empty() ? "herald-task-bench" : program);
  std::string text = name + ": " + std::string(summary) + "\n";
  std::size_t width = 22;  // the descriptions start in one column
  for (const FlagHelp& f : own) width = std::max(width, f.flag.size());
  auto line = [&](std::string_view flag, std::string_view what) {
    const std::string gap(width + 1 - std::min(width, flag.size()), ' ');
    text += "  " + std::string(flag) + gap + std::string(what) + "\n";
  };
  if (!own.empty()) {
    text += "\n" + name + "'s own options:\n";
    for (const FlagHelp& f : own) line(f.flag, f.what);
  }
  text += "\nRun-wide options:\n";
  line("-h, --help", "print this help and exit");
  line("-nodes [INT]", "nodes assumed when estimating local and nonlocal transfers");
  line("-v", "list every timestep's dependencies in the configuration");
  line("-vv", "list reverse dependencies too");
  line("-skip-graph-validation", "do not check that every graph ran");
  text += "\nTask graph options (-and starts the next graph, from the defaults):\n";
  line("-steps [INT]", "timesteps, the graph's height (4)");
  line("-width [INT]", "points per timestep at most (4)");
  line("-type [DEP]", "dependence pattern, listed below (trivial)");
  line("-radix [INT]", "dependencies per point for nearest, spread, random_nearest (3)");
  line("-period [INT]", "dependence sets cycled through by spread, random_nearest (3)");
  line("-fraction [FLOAT]", "share of the radix kept by random_nearest (0.25)");
  line("-broadcast [INT]", "bytes of a buffer every task of the graph reads (0: none)");
  line("-and", "start the next task graph");
  text += "\nKernel options (per graph):\n";
  line("-kernel [KERNEL]", "work of each task, listed below (empty)");
  line("-iter [INT]", "kernel iterations (0)");
  line("-imbalance [FLOAT]", "spread of load_imbalance's iterations, 0 to 2 (0)");
  line("-output [INT]", "output bytes per task, at least 16 (16)");
  line("-scratch [INT]", "scratch bytes per task, a multiple of 8 (0)");
  line("-sample [INT]", "slices of scratch the memory kernels cycle through (16)");
  line("-field [INT]", "output buffers an implementation may rotate through (timesteps)");
  text += "\nDependence types:\n";
  for (const DependenceType t : dependence_types_by_name()) text += "  " + std::string(dependence_name(t)) + "\n";
  text += "\nKernels:\n";
  for (const KernelType k : kernel_types_by_name()) text += "  " + std::string(kernel_name(k)) + "\n";
  return text;
}

}  // namespace herald::taskbench
