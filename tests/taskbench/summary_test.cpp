// Task Bench's reports: the summary and configuration compared with what the reference implementation
// printed for the same flags (a conformance table), and herald's -broadcast lines.
#include "summary.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

namespace herald::taskbench {
namespace {

Options parse(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words{std::istream_iterator<std::string>(in), {}};
  std::vector<std::string_view> args(words.begin(), words.end());
  return parse_options(args);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// A rate line ("FLOP/s ...", "B/s ...", "... Bandwidth ... B/s"): Task Bench divided by its unrounded
// elapsed time, of which it printed 7 digits, so these agree to about 1e-6 and are compared as numbers.
bool is_rate(const std::string& line) {
  return line.starts_with("FLOP/s ") || line.starts_with("B/s ") || line.find("Bandwidth") != std::string::npos;
}

double last_number(const std::string& line) {
  std::istringstream in(line);
  double value = NAN;
  for (std::string word; in >> word;) {
    char* end = nullptr;
    const double v = std::strtod(word.c_str(), &end);
    if (end != word.c_str()) value = v;
  }
  return value;
}

void expect_same_summary(const std::string& printed, const std::string& mine) {
  const std::vector<std::string> want = lines_of(printed);
  const std::vector<std::string> got = lines_of(mine);
  ASSERT_EQ(got.size(), want.size()) << mine;
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (is_rate(want[i])) {
      EXPECT_EQ(got[i].substr(0, got[i].find_first_of("0123456789")), want[i].substr(0, want[i].find_first_of("0123456789")));
      const double w = last_number(want[i]);
      EXPECT_NEAR(last_number(got[i]), w, 2e-6 * std::abs(w)) << want[i];
    } else {
      EXPECT_EQ(got[i], want[i]);
    }
  }
}

struct Reference {
  const char* flags;
  double elapsed;       // the elapsed time it printed, fed back to summary_text()
  const char* printed;  // its summary, verbatim
};

// Conformance table. Task Bench at commit bf4ad1982d4b748bf3fd54e8239e798114e6ade8, unpacked into /tmp/tb
// (core/ and mpi/), built with `make -C /tmp/tb/core && make -C /tmp/tb/mpi nonblock` (g++ 12.2, Open MPI
// 4.1.4, no BLAS), then run as in the comment above each entry; the lines from "Total Tasks" on are copied.
const std::vector<Reference> mpi_references{
    // cd /tmp/tb/mpi && mpirun -np 2 --oversubscribe ./nonblock -steps 10 -width 8 -type stencil_1d -kernel compute_bound -iter 1000 -nodes 2
    {"-steps 10 -width 8 -type stencil_1d -kernel compute_bound -iter 1000 -nodes 2",
     9.553300e-05,
         "Total Tasks 80\n"
         "Total Dependencies 198\n"
         "  Local Dependencies 180 (estimated)\n"
         "  Nonlocal Dependencies 18 (estimated)\n"
         "  Number of Nodes (used for estimate) 2\n"
         "Total FLOPs 10245120\n"
         "Total Bytes 0\n"
         "Elapsed Time 9.553300e-05 seconds\n"
         "FLOP/s 1.072417e+11\n"
         "B/s 0.000000e+00\n"
         "Transfer (estimated):\n"
         "  Local Bytes 2880\n"
         "  Nonlocal Bytes 288\n"
         "  Local Bandwidth 3.014665e+07 B/s\n"
         "  Nonlocal Bandwidth 3.014665e+06 B/s\n"},
    // cd /tmp/tb/mpi && mpirun -np 2 --oversubscribe ./nonblock -steps 12 -width 16 -type fft -kernel memory_bound -scratch 65536 -iter 8 -sample 4 -nodes 2
    {"-steps 12 -width 16 -type fft -kernel memory_bound -scratch 65536 -iter 8 -sample 4 -nodes 2",
     7.882800e-05,
         "Total Tasks 192\n"
         "Total Dependencies 454\n"
         "  Local Dependencies 380 (estimated)\n"
         "  Nonlocal Dependencies 74 (estimated)\n"
         "  Number of Nodes (used for estimate) 2\n"
         "Total FLOPs 0\n"
         "Total Bytes 25165824\n"
         "Elapsed Time 7.882800e-05 seconds\n"
         "FLOP/s 0.000000e+00\n"
         "B/s 3.192498e+11\n"
         "Transfer (estimated):\n"
         "  Local Bytes 6080\n"
         "  Nonlocal Bytes 1184\n"
         "  Local Bandwidth 7.712995e+07 B/s\n"
         "  Nonlocal Bandwidth 1.502004e+07 B/s\n"},
    // cd /tmp/tb/mpi && mpirun -np 2 --oversubscribe ./nonblock -steps 9 -width 8 -type tree -kernel load_imbalance -iter 2000 -imbalance 0.5 -nodes 2
    {"-steps 9 -width 8 -type tree -kernel load_imbalance -iter 2000 -imbalance 0.5 -nodes 2",
     1.600890e-04,
         "Total Tasks 55\n"
         "Total Dependencies 54\n"
         "  Local Dependencies 30 (estimated)\n"
         "  Nonlocal Dependencies 24 (estimated)\n"
         "  Number of Nodes (used for estimate) 2\n"
         "Total FLOPs 14187456\n"
         "Total Bytes 0\n"
         "Elapsed Time 1.600890e-04 seconds\n"
         "FLOP/s 8.862230e+10\n"
         "B/s 0.000000e+00\n"
         "Transfer (estimated):\n"
         "  Local Bytes 480\n"
         "  Nonlocal Bytes 384\n"
         "  Local Bandwidth 2.998332e+06 B/s\n"
         "  Nonlocal Bandwidth 2.398666e+06 B/s\n"},
    // cd /tmp/tb/mpi && mpirun -np 2 --oversubscribe ./nonblock -steps 11 -width 12 -type random_nearest -radix 5 -fraction 0.4 -period 4 -kernel busy_wait -iter 500 -nodes 3
    {"-steps 11 -width 12 -type random_nearest -radix 5 -fraction 0.4 -period 4 -kernel busy_wait -iter 500 -nodes 3",
     1.331690e-04,
         "Total Tasks 132\n"
         "Total Dependencies 275\n"
         "  Local Dependencies 228 (estimated)\n"
         "  Nonlocal Dependencies 47 (estimated)\n"
         "  Number of Nodes (used for estimate) 3\n"
         "Total FLOPs 0\n"
         "Total Bytes 0\n"
         "Elapsed Time 1.331690e-04 seconds\n"
         "FLOP/s 0.000000e+00\n"
         "B/s 0.000000e+00\n"
         "Transfer (estimated):\n"
         "  Local Bytes 3648\n"
         "  Nonlocal Bytes 752\n"
         "  Local Bandwidth 2.739376e+07 B/s\n"
         "  Nonlocal Bandwidth 5.646960e+06 B/s\n"},
    // cd /tmp/tb/mpi && mpirun -np 2 --oversubscribe ./nonblock -steps 8 -width 6 -type dom -kernel compute_bound2 -iter 300 -output 64
    {"-steps 8 -width 6 -type dom -kernel compute_bound2 -iter 300 -output 64",
     8.363000e-06,
         "Total Tasks 20\n"
         "Total Dependencies 30\n"
         "  Unable to estimate local/nonlocal dependencies\n"
         "Total FLOPs 384000\n"
         "Total Bytes 0\n"
         "Elapsed Time 8.363000e-06 seconds\n"
         "FLOP/s 4.591654e+10\n"
         "B/s 0.000000e+00\n"
         "Transfer (estimated):\n"
         "  Unable to estimate local/nonlocal transfer\n"},
    // cd /tmp/tb/mpi && mpirun -np 2 --oversubscribe ./nonblock -steps 6 -width 10 -type spread -radix 3 -period 2 -nodes 2 -and -steps 4 -width 6 -type all_to_all -kernel compute_bound -iter 10 -output 32
    {"-steps 6 -width 10 -type spread -radix 3 -period 2 -nodes 2 -and -steps 4 -width 6 -type all_to_all -kernel compute_bound -iter 10 -output 32",
     5.876700e-05,
         "Total Tasks 84\n"
         "Total Dependencies 258\n"
         "  Local Dependencies 134 (estimated)\n"
         "  Nonlocal Dependencies 124 (estimated)\n"
         "  Number of Nodes (used for estimate) 2\n"
         "Total FLOPs 32256\n"
         "Total Bytes 0\n"
         "Elapsed Time 5.876700e-05 seconds\n"
         "FLOP/s 5.488795e+08\n"
         "B/s 0.000000e+00\n"
         "Transfer (estimated):\n"
         "  Local Bytes 3008\n"
         "  Nonlocal Bytes 2848\n"
         "  Local Bandwidth 5.118519e+07 B/s\n"
         "  Nonlocal Bandwidth 4.846257e+07 B/s\n"},
    // cd /tmp/tb/mpi && mpirun -np 2 --oversubscribe ./nonblock -steps 5 -width 9 -type nearest -radix 4 -kernel load_imbalance -iter 100 -imbalance 2 -nodes 4 -and -steps 3 -width 7 -type stencil_1d_periodic -kernel busy_wait -iter 10
    {"-steps 5 -width 9 -type nearest -radix 4 -kernel load_imbalance -iter 100 -imbalance 2 -nodes 4 -and -steps 3 -width 7 -type stencil_1d_periodic -kernel busy_wait -iter 10",
     2.494800e-05,
         "Total Tasks 66\n"
         "Total Dependencies 170\n"
         "  Local Dependencies 100 (estimated)\n"
         "  Nonlocal Dependencies 70 (estimated)\n"
         "  Number of Nodes (used for estimate) 4\n"
         "Total FLOPs 572224\n"
         "Total Bytes 0\n"
         "Elapsed Time 2.494800e-05 seconds\n"
         "FLOP/s 2.293667e+10\n"
         "B/s 0.000000e+00\n"
         "Transfer (estimated):\n"
         "  Local Bytes 1600\n"
         "  Nonlocal Bytes 1120\n"
         "  Local Bandwidth 6.413340e+07 B/s\n"
         "  Nonlocal Bandwidth 4.489338e+07 B/s\n"},
    // cd /tmp/tb/mpi && mpirun -np 2 --oversubscribe ./nonblock -steps 4 -width 4 -type no_comm
    {"-steps 4 -width 4 -type no_comm",
     2.123000e-06,
         "Total Tasks 16\n"
         "Total Dependencies 12\n"
         "  Unable to estimate local/nonlocal dependencies\n"
         "Total FLOPs 0\n"
         "Total Bytes 0\n"
         "Elapsed Time 2.123000e-06 seconds\n"
         "FLOP/s 0.000000e+00\n"
         "B/s 0.000000e+00\n"
         "Transfer (estimated):\n"
         "  Unable to estimate local/nonlocal transfer\n"},
};

TEST(TaskBenchSummary, MatchesTaskBenchsMpiImplementation) {
  for (const Reference& r : mpi_references) {
    SCOPED_TRACE(r.flags);
    expect_same_summary(r.printed, summary_text(parse(r.flags), r.elapsed));
  }
}

// compute_dgemm and memory_daxpy stop Task Bench's MPI implementation when it is built without MKL, so
// these come from Task Bench's own core: /tmp/tb/cmp/ref_dump.cc builds its App from the flags and calls
// App::report_timing(0.5); g++ -O2 -I/tmp/tb/core ref_dump.cc -L/tmp/tb/core -lcore_s -o ref_dump, then
// ELAPSED=0.5 ./ref_dump FLAGS.
const std::vector<Reference> core_references{
    // ELAPSED=0.5 ./ref_dump -steps 3 -width 3 -type all_to_all -kernel compute_dgemm -scratch 98304 -iter 3 -nodes 3
    {"-steps 3 -width 3 -type all_to_all -kernel compute_dgemm -scratch 98304 -iter 3 -nodes 3",
     0.5,
         "Total Tasks 9\n"
         "Total Dependencies 18\n"
         "  Local Dependencies 6 (estimated)\n"
         "  Nonlocal Dependencies 12 (estimated)\n"
         "  Number of Nodes (used for estimate) 3\n"
         "Total FLOPs 14155776\n"
         "Total Bytes 0\n"
         "Elapsed Time 5.000000e-01 seconds\n"
         "FLOP/s 2.831155e+07\n"
         "B/s 0.000000e+00\n"
         "Transfer (estimated):\n"
         "  Local Bytes 96\n"
         "  Nonlocal Bytes 192\n"
         "  Local Bandwidth 1.920000e+02 B/s\n"
         "  Nonlocal Bandwidth 3.840000e+02 B/s\n"},
    // ELAPSED=0.5 ./ref_dump -steps 7 -width 3 -type dom -kernel memory_daxpy -scratch 4096 -iter 3 -sample 3 -nodes 2
    {"-steps 7 -width 3 -type dom -kernel memory_daxpy -scratch 4096 -iter 3 -sample 3 -nodes 2",
     0.5,
         "Total Tasks 15\n"
         "Total Dependencies 22\n"
         "  Local Dependencies 18 (estimated)\n"
         "  Nonlocal Dependencies 4 (estimated)\n"
         "  Number of Nodes (used for estimate) 2\n"
         "Total FLOPs 0\n"
         "Total Bytes 61440\n"
         "Elapsed Time 5.000000e-01 seconds\n"
         "FLOP/s 0.000000e+00\n"
         "B/s 1.228800e+05\n"
         "Transfer (estimated):\n"
         "  Local Bytes 288\n"
         "  Nonlocal Bytes 64\n"
         "  Local Bandwidth 5.760000e+02 B/s\n"
         "  Nonlocal Bandwidth 1.280000e+02 B/s\n"},
};

TEST(TaskBenchSummary, MatchesTaskBenchsCoreForBlasKernels) {
  for (const Reference& r : core_references) {
    SCOPED_TRACE(r.flags);
    // Exact: the same elapsed time goes into both divisions.
    EXPECT_EQ(summary_text(parse(r.flags), r.elapsed), r.printed);
  }
}

// The configuration Task Bench's MPI implementation printed on rank 0 for
// cd /tmp/tb/mpi && mpirun -np 2 --oversubscribe ./nonblock -vv -steps 4 -width 5 -type random_nearest -radix 3 -fraction 0.5 -period 2
TEST(TaskBenchSummary, ConfigurationMatchesTaskBench) {
  const std::string printed =
      "Running Task Benchmark\n"
      "  Configuration:\n"
      "    Task Graph 1:\n"
      "      Time Steps: 4\n"
      "      Max Width: 5\n"
      "      Dependence Type: random_nearest\n"
      "      Radix: 3\n"
      "      Period: 2\n"
      "      Fraction Connected: 0.500000\n"
      "      Kernel:\n"
      "        Type: empty\n"
      "        Iterations: 0\n"
      "        Samples: 16\n"
      "        Imbalance: 0.000000\n"
      "      Output Bytes: 16\n"
      "      Scratch Bytes: 0\n"
      "      Timestep 0 (offset 0, width 5, last offset 0, last width 0):\n"
      "        Points: 0 1 2 3 4\n"
      "        Dependencies:\n"
      "          Point 0:\n"
      "          Point 1:\n"
      "          Point 2:\n"
      "          Point 3:\n"
      "          Point 4:\n"
      "        Reverse Dependencies:\n"
      "      Timestep 1 (offset 0, width 5, last offset 0, last width 5):\n"
      "        Points: 0 1 2 3 4\n"
      "        Dependencies:\n"
      "          Point 0: 0 1\n"
      "          Point 1: 1\n"
      "          Point 2: 2\n"
      "          Point 3: 2 3 4\n"
      "          Point 4: 4\n"
      "        Reverse Dependencies:\n"
      "          Point 0: 0\n"
      "          Point 1: 0 1\n"
      "          Point 2: 2 3\n"
      "          Point 3: 3\n"
      "          Point 4: 3 4\n"
      "      Timestep 2 (offset 0, width 5, last offset 0, last width 5):\n"
      "        Points: 0 1 2 3 4\n"
      "        Dependencies:\n"
      "          Point 0: 0\n"
      "          Point 1: 0 1 2\n"
      "          Point 2: 2\n"
      "          Point 3: 3\n"
      "          Point 4: 3 4\n"
      "        Reverse Dependencies:\n"
      "          Point 0: 0 1\n"
      "          Point 1: 1\n"
      "          Point 2: 1 2\n"
      "          Point 3: 3 4\n"
      "          Point 4: 4\n"
      "      Timestep 3 (offset 0, width 5, last offset 0, last width 5):\n"
      "        Points: 0 1 2 3 4\n"
      "        Dependencies:\n"
      "          Point 0: 0 1\n"
      "          Point 1: 1\n"
      "          Point 2: 2\n"
      "          Point 3: 2 3 4\n"
      "          Point 4: 4\n"
      "        Reverse Dependencies:\n"
      "          Point 0: 0\n"
      "          Point 1: 0 1\n"
      "          Point 2: 2 3\n"
      "          Point 3: 3\n"
      "          Point 4: 3 4\n";
  EXPECT_EQ(configuration_text(parse("-vv -steps 4 -width 5 -type random_nearest -radix 3 -fraction 0.5 -period 2")),
            printed);
}

TEST(TaskBenchSummary, CountTotals) {
  const Options o = parse("-steps 10 -width 8 -type stencil_1d -kernel compute_bound -iter 1000 -nodes 2");
  const RunTotals t = count_totals(o.graphs, o.nodes);
  EXPECT_EQ(t.tasks, 80);
  // Row 0 reads nothing; each later row reads 3 per interior point and 2 per edge point.
  EXPECT_EQ(t.dependencies, 9 * (6 * 3 + 2 * 2));
  EXPECT_EQ(t.local_dependencies + t.nonlocal_dependencies, t.dependencies);
  EXPECT_EQ(t.nonlocal_dependencies, 9 * 2);  // points 3 and 4 each read one point across the split
  EXPECT_EQ(t.flops, 80LL * (2 * 64 * 1000 + 64));
  EXPECT_EQ(t.local_transfer, t.local_dependencies * 16);
  const RunTotals no_nodes = count_totals(o.graphs, 0);
  EXPECT_EQ(no_nodes.dependencies, t.dependencies);
  EXPECT_EQ(no_nodes.local_dependencies, 0);
  EXPECT_EQ(no_nodes.nonlocal_dependencies, 0);
}

TEST(TaskBenchSummary, BroadcastLinesOnlyWithBroadcast) {
  const std::string flags = "-steps 3 -width 4 -and -type tree -steps 3 -width 4";
  const std::string plain = summary_text(parse(flags), 2.0);
  EXPECT_EQ(plain.find("Broadcast"), std::string::npos);
  EXPECT_EQ(configuration_text(parse(flags)).find("Broadcast"), std::string::npos);
  const Options o = parse("-steps 3 -width 4 -broadcast 1000 -and -type tree -steps 3 -width 4 -broadcast 24");
  // Task Bench's lines stay as they were; herald's follow them.
  EXPECT_EQ(summary_text(o, 2.0),
            plain + "Broadcast Bytes 1024\n  Read by Tasks 12168 bytes\n  Read Bandwidth 6.084000e+03 B/s\n");
  EXPECT_NE(configuration_text(o).find("      Broadcast Bytes: 1000\n"), std::string::npos);
  const RunTotals t = count_totals(o.graphs, 0);
  EXPECT_EQ(t.broadcast_bytes, 1024);
  EXPECT_EQ(t.broadcast_reads, 12 * 1000 + 7 * 24);
}

TEST(TaskBenchSummary, ZeroElapsedPrintsLikePrintf) {
  const std::string text = summary_text(parse("-kernel compute_bound -iter 1"), 0.0);
  EXPECT_NE(text.find("Elapsed Time 0.000000e+00 seconds\n"), std::string::npos);
  EXPECT_NE(text.find("FLOP/s inf\n"), std::string::npos);
}

}  // namespace
}  // namespace herald::taskbench
