// What Task Bench prints around a run: the configuration before it, the totals and rates after it.
//
// The text is Task Bench's, line for line and in the same number formats, so tools that read Task
// Bench's output read this one. -broadcast, which Task Bench lacks, adds lines only when it is used.
#pragma once

#include "options.hpp"

#include <span>
#include <string>

namespace herald::taskbench {

struct RunTotals {
  long long tasks = 0;
  long long dependencies = 0;           // inputs, i.e. dependencies live in the previous timestep
  long long local_dependencies = 0;     // with -nodes: producer on the consumer's node (points split in blocks)
  long long nonlocal_dependencies = 0;  // with -nodes: producer on another node
  long long flops = 0;
  long long bytes = 0;
  long long local_transfer = 0;     // local_dependencies * output bytes, per graph
  long long nonlocal_transfer = 0;  // nonlocal_dependencies * output bytes, per graph
  long long broadcast_bytes = 0;    // the graphs' broadcast buffers, added up
  long long broadcast_reads = 0;    // bytes tasks read from them: tasks * broadcast bytes, per graph
};

// With nodes > 0, point p of a graph of width W sits on node p * nodes / W, as Task Bench estimates.
RunTotals count_totals(std::span<const TaskGraph> graphs, long nodes);

// Task Bench's closing report ("Total Tasks ...", "Elapsed Time ... seconds", "FLOP/s ...", ...).
std::string summary_text(std::span<const TaskGraph> graphs, long nodes, double elapsed_seconds);
std::string summary_text(const Options& options, double elapsed_seconds);

// Task Bench's opening report ("Running Task Benchmark", each graph's parameters and, with -v, every
// timestep's points and dependencies; with -vv, reverse dependencies too).
std::string configuration_text(const Options& options);

}  // namespace herald::taskbench
