// Task Bench's command line: one or more task graphs separated by -and, plus a few run-wide flags.
//
// Graph flags (-steps, -width, -type, -radix, -period, -fraction, -kernel, -iter, -imbalance, -output,
// -scratch, -sample, -field, -broadcast) configure the graph being written and start from Task Bench's
// defaults after each -and. Run-wide flags (-nodes, -v, -vv, -skip-graph-validation) may appear anywhere.
// -broadcast is herald's own: Task Bench has no such buffer.
#pragma once

#include "graph.hpp"

#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace herald::taskbench {

// A command line Task Bench would refuse (or crash on). what() is the whole message for rank 0 to print,
// starting with "error: ".
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Options {
  std::vector<TaskGraph> graphs;        // at least one, graph_index = position
  long nodes = 0;                       // -nodes: only for the summary's local/nonlocal estimate (0: none)
  int verbose = 0;                      // -v adds 1, -vv adds 2: the configuration lists dependencies
  bool enable_graph_validation = true;  // -skip-graph-validation clears it
  bool help = false;                    // -h or --help was given: print usage_text() and stop; nothing after it parsed
  std::vector<std::string> unrecognized;  // with UnknownFlags::keep, the arguments not taken, in order
};

// Task Bench ignores arguments it does not know (they belong to the runtime underneath); `keep` does the
// same and hands them back, `reject` refuses the first one.
enum class UnknownFlags { reject, keep };

// Parses the arguments after the program name. Throws UsageError on a bad value, a missing value, an
// unknown flag (with `reject`), or a graph find_graph_error() refuses.
Options parse_options(std::span<const std::string_view> args, UnknownFlags unknown = UnknownFlags::reject);
// The same from main()'s argc/argv (argv[0] is the program name).
Options parse_options(int argc, const char* const* argv, UnknownFlags unknown = UnknownFlags::reject);

// One flag of a program's own, beside Task Bench's: as written with its value ("-threads [INT]"), and what it
// does.
struct FlagHelp {
  std::string_view flag;
  std::string_view what;
};

// The help text for -h: what `program` does, its own flags (those it takes out of the command line before
// parse_options sees it), then every Task Bench flag, dependence type and kernel.
std::string usage_text(std::string_view program, std::string_view summary = "Task Bench task graphs",
                       std::span<const FlagHelp> own = {});

}  // namespace herald::taskbench
