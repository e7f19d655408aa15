// Task Bench's command line: defaults, -and, run-wide flags, and refusals.
#include "options.hpp"

#include <gtest/gtest.h>

#include <iterator>
#include <sstream>
#include <string>
#include <vector>

namespace herald::taskbench {
namespace {

using enum DependenceType;

Options parse(const std::string& line, UnknownFlags unknown = UnknownFlags::reject) {
  std::istringstream in(line);
  std::vector<std::string> words{std::istream_iterator<std::string>(in), {}};
  std::vector<std::string_view> args(words.begin(), words.end());
  return parse_options(args, unknown);
}

std::string refusal(const std::string& line) {
  try {
    parse(line);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(TaskBenchOptions, DefaultsAreTaskBenchs) {
  const Options o = parse("");
  ASSERT_EQ(o.graphs.size(), 1u);
  const TaskGraph& g = o.graphs[0];
  EXPECT_EQ(g.graph_index, 0);
  EXPECT_EQ(g.timesteps, 4);
  EXPECT_EQ(g.max_width, 4);
  EXPECT_EQ(g.dependence, trivial);
  EXPECT_EQ(g.radix, 3);
  EXPECT_EQ(g.period, 0);
  EXPECT_EQ(g.fraction_connected, 0.25);
  EXPECT_EQ(g.kernel.type, KernelType::empty);
  EXPECT_EQ(g.kernel.iterations, 0);
  EXPECT_EQ(g.kernel.samples, 16);
  EXPECT_EQ(g.kernel.imbalance, 0.0);
  EXPECT_EQ(g.output_bytes_per_task, 16u);
  EXPECT_EQ(g.scratch_bytes_per_task, 0u);
  EXPECT_EQ(g.nb_fields, 4);
  EXPECT_EQ(g.broadcast_bytes, 0u);
  EXPECT_EQ(o.nodes, 0);
  EXPECT_EQ(o.verbose, 0);
  EXPECT_TRUE(o.enable_graph_validation);
  EXPECT_FALSE(o.help);
}

TEST(TaskBenchOptions, EveryGraphFlag) {
  const Options o = parse(
      "-steps 9 -width 17 -type spread -radix 4 -period 2 -fraction 0.5 -kernel memory_bound -iter 12 "
      "-imbalance 1.5 -output 64 -scratch 1024 -sample 8 -field 3 -broadcast 4096");
  const TaskGraph& g = o.graphs.at(0);
  EXPECT_EQ(g.timesteps, 9);
  EXPECT_EQ(g.max_width, 17);
  EXPECT_EQ(g.dependence, spread);
  EXPECT_EQ(g.radix, 4);
  EXPECT_EQ(g.period, 2);
  EXPECT_EQ(g.fraction_connected, 0.5);
  EXPECT_EQ(g.kernel.type, KernelType::memory_bound);
  EXPECT_EQ(g.kernel.iterations, 12);
  EXPECT_EQ(g.kernel.imbalance, 1.5);
  EXPECT_EQ(g.output_bytes_per_task, 64u);
  EXPECT_EQ(g.scratch_bytes_per_task, 1024u);
  EXPECT_EQ(g.kernel.samples, 8);
  EXPECT_EQ(g.nb_fields, 3);
  EXPECT_EQ(g.broadcast_bytes, 4096u);
}

TEST(TaskBenchOptions, AndStartsAFreshGraph) {
  const Options o = parse("-type stencil_1d -steps 7 -broadcast 64 -nodes 2 -and -width 6 -and -type random_nearest -v");
  ASSERT_EQ(o.graphs.size(), 3u);
  EXPECT_EQ(o.graphs[0].dependence, stencil_1d);
  EXPECT_EQ(o.graphs[0].timesteps, 7);
  EXPECT_EQ(o.graphs[0].broadcast_bytes, 64u);
  EXPECT_EQ(o.graphs[1].dependence, trivial);  // back to the defaults
  EXPECT_EQ(o.graphs[1].timesteps, 4);
  EXPECT_EQ(o.graphs[1].max_width, 6);
  EXPECT_EQ(o.graphs[1].broadcast_bytes, 0u);
  EXPECT_EQ(o.graphs[2].dependence, random_nearest);
  EXPECT_EQ(o.graphs[2].period, 3);  // random_nearest's default period
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(o.graphs[i].graph_index, long(i));
  EXPECT_EQ(o.nodes, 2);  // run-wide, wherever it stands
  EXPECT_EQ(o.verbose, 1);
}

TEST(TaskBenchOptions, PeriodDefaultFollowsTheTypeGivenLater) {
  EXPECT_EQ(parse("-type spread -width 12").graphs[0].period, 3);
  EXPECT_EQ(parse("-period 2 -type spread -width 12").graphs[0].period, 2);
  // Task Bench's defaults (width 4, radix 3, period 3) make a spread graph it refuses.
  EXPECT_NE(refusal("-type spread").find("at most 2"), std::string::npos);
  EXPECT_EQ(parse("-type nearest").graphs[0].period, 0);
  EXPECT_EQ(parse("-type nearest -period 0").graphs[0].period, 0);
}

TEST(TaskBenchOptions, RunWideFlags) {
  const Options o = parse("-vv -v -skip-graph-validation -nodes 8");
  EXPECT_EQ(o.verbose, 3);
  EXPECT_FALSE(o.enable_graph_validation);
  EXPECT_EQ(o.nodes, 8);
}

TEST(TaskBenchOptions, HelpStopsParsing) {
  const Options o = parse("-steps 3 -h -steps 0");
  EXPECT_TRUE(o.help);
  EXPECT_TRUE(parse("--help -steps 0").help);
  const std::string text = usage_text("herald-task-bench");
  for (const DependenceType t : dependence_types_by_name()) {
    EXPECT_NE(text.find(std::string(dependence_name(t))), std::string::npos);
  }
  for (const KernelType k : kernel_types_by_name()) EXPECT_NE(text.find(std::string(kernel_name(k))), std::string::npos);
  for (const char* flag : {"-steps", "-width", "-type", "-radix", "-period", "-fraction", "-kernel", "-iter", "-imbalance",
                           "-output", "-scratch", "-sample", "-nodes", "-and", "-field", "-broadcast", "-skip-graph-validation"}) {
    EXPECT_NE(text.find(flag), std::string::npos) << flag;
  }
}

TEST(TaskBenchOptions, HelpListsAProgramsOwnFlagsFirst) {
  const FlagHelp own[] = {{"-workers [INT,...]", "worker counts"}, {"-a-very-long-flag-name [X]", "long"}};
  const std::string text = usage_text("herald-task-bench-schedule", "makespans", own);
  EXPECT_EQ(text.rfind("herald-task-bench-schedule: makespans\n", 0), 0u) << text;
  const std::size_t mine = text.find("herald-task-bench-schedule's own options:\n");
  ASSERT_NE(mine, std::string::npos) << text;
  EXPECT_LT(mine, text.find("Run-wide options:"));
  // Every description starts in the same column, past the longest flag.
  EXPECT_NE(text.find("  -workers [INT,...]         worker counts\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  -a-very-long-flag-name [X] long\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  -steps [INT]               timesteps"), std::string::npos) << text;
}

TEST(TaskBenchOptions, BadValuesAreRefusedWithTheFlag) {
  EXPECT_EQ(refusal("-steps 0"), "error: invalid flag \"-steps 0\": the number of timesteps must be > 0");
  EXPECT_EQ(refusal("-width -3"), "error: invalid flag \"-width -3\": the width must be > 0");
  EXPECT_EQ(refusal("-steps 12x"), "error: invalid flag \"-steps 12x\": not an integer");
  EXPECT_EQ(refusal("-type stencil"), "error: invalid flag \"-type stencil\": no such dependence type (-h lists them)");
  EXPECT_EQ(refusal("-kernel fast"), "error: invalid flag \"-kernel fast\": no such kernel (-h lists them)");
  EXPECT_EQ(refusal("-radix 0"), "error: invalid flag \"-radix 0\": the radix must be > 0");
  EXPECT_EQ(refusal("-period -1"), "error: invalid flag \"-period -1\": the period must be >= 0");
  EXPECT_EQ(refusal("-fraction 1.5"), "error: invalid flag \"-fraction 1.5\": must be >= 0 and <= 1");
  EXPECT_EQ(refusal("-fraction nan"), "error: invalid flag \"-fraction nan\": must be >= 0 and <= 1");
  EXPECT_EQ(refusal("-imbalance 2.5"), "error: invalid flag \"-imbalance 2.5\": must be >= 0 and <= 2");
  EXPECT_EQ(refusal("-iter -1"), "error: invalid flag \"-iter -1\": the number of iterations must be >= 0");
  EXPECT_EQ(refusal("-output 8"),
            "error: invalid flag \"-output 8\": an output holds at least one record of 16 bytes");
  EXPECT_EQ(refusal("-scratch -8"), "error: invalid flag \"-scratch -8\": the scratch size must be >= 0");
  EXPECT_EQ(refusal("-sample -2"), "error: invalid flag \"-sample -2\": the number of samples must be >= 0");
  EXPECT_EQ(refusal("-sample 99999999999"), "error: invalid flag \"-sample 99999999999\": too large");
  EXPECT_EQ(refusal("-field 0"), "error: invalid flag \"-field 0\": the number of fields must be > 0");
  EXPECT_EQ(refusal("-nodes 0"), "error: invalid flag \"-nodes 0\": the number of nodes must be > 0");
  EXPECT_EQ(refusal("-broadcast -1"), "error: invalid flag \"-broadcast -1\": the broadcast size must be >= 0");
  EXPECT_EQ(refusal("-steps"), "error: flag \"-steps\" needs a value");
  EXPECT_EQ(refusal("-width 4 -type"), "error: flag \"-type\" needs a value");
}

TEST(TaskBenchOptions, BadGraphsAreRefused) {
  EXPECT_EQ(refusal("-type spread -period 0"),
            "error: graph type \"spread\" needs a non-zero period (give one with -period)");
  EXPECT_EQ(refusal("-type dom -period 2"),
            "error: graph type \"dom\" has no period to configure (only spread and random_nearest take -period)");
  EXPECT_EQ(refusal("-type spread -width 10 -radix 3 -period 5"),
            "error: graph type \"spread\" with -width 10 and -radix 3 allows a period of at most 4");
  EXPECT_NE(refusal("-type random_spread").find("random_spread"), std::string::npos);
  EXPECT_NE(refusal("-type fft -width 1").find("needs -width >= 2"), std::string::npos);
  EXPECT_NE(refusal("-type stencil_1d_periodic -width 2").find("twice"), std::string::npos);
  EXPECT_NE(refusal("-kernel memory_bound").find("-scratch"), std::string::npos);
  EXPECT_NE(refusal("-scratch 20").find("multiple of 8"), std::string::npos);
  // With several graphs the message names the graph (counting from 1, as the configuration does).
  EXPECT_EQ(refusal("-type stencil_1d -and -type spread -period 0"),
            "error: task graph 2: graph type \"spread\" needs a non-zero period (give one with -period)");
}

TEST(TaskBenchOptions, UnknownFlagsRefusedOrKept) {
  EXPECT_EQ(refusal("-steps 3 -ll:cpu 2"), "error: unknown flag \"-ll:cpu\" (-h lists the flags)");
  const Options o = parse("-ll:cpu -steps 3 extra -and -width 2", UnknownFlags::keep);
  EXPECT_EQ(o.unrecognized, (std::vector<std::string>{"-ll:cpu", "extra"}));
  EXPECT_EQ(o.graphs.size(), 2u);
  EXPECT_EQ(o.graphs[0].timesteps, 3);
}

TEST(TaskBenchOptions, FromArgcArgv) {
  const char* argv[] = {"herald-task-bench", "-steps", "5", "-type", "tree", "-and", "-type", "fft", "-width", "8"};
  const Options o = parse_options(10, argv);
  ASSERT_EQ(o.graphs.size(), 2u);
  EXPECT_EQ(o.graphs[0].timesteps, 5);
  EXPECT_EQ(o.graphs[0].dependence, tree);
  EXPECT_EQ(o.graphs[1].dependence, fft);
  EXPECT_EQ(o.graphs[1].max_width, 8);
}

}  // namespace
}  // namespace herald::taskbench
