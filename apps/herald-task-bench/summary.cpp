#include "summary.hpp"

#include <algorithm>
#include <cstdarg>
#include <cstdio>

namespace herald::taskbench {
namespace {

// printf into a string: Task Bench's numbers are printf's (%e, %f), which std::to_string does not match.
[[gnu::format(printf, 2, 3)]] void appendf(std::string& out, const char* format, ...) {
  std::va_list args;
  va_start(args, format);
  std::va_list again;
  va_copy(again, args);
  const int n = std::vsnprintf(nullptr, 0, format, args);
  va_end(args);
  if (n > 0) {
    const std::size_t old = out.size();
    out.resize(old + std::size_t(n) + 1);
    std::vsnprintf(out.data() + old, std::size_t(n) + 1, format, again);
    out.resize(old + std::size_t(n));
  }
  va_end(again);
}

// Points of [first, last] inside [lo, hi]; none when either range is empty.
long long overlap(long first, long last, long lo, long hi) {
  return std::max(0L, std::min(last, hi) - std::max(first, lo) + 1);
}

}  // namespace

RunTotals count_totals(std::span<const TaskGraph> graphs, long nodes) {
  RunTotals totals;
  for (const TaskGraph& g : graphs) {
    long long tasks = 0;
    long long local = 0;
    long long nonlocal = 0;
    for (long t = 0; t < g.timesteps; ++t) {
      const long offset = g.offset_at_timestep(t);
      const long width = g.width_at_timestep(t);
      const long last_first = g.offset_at_timestep(t - 1);
      const long last_last = last_first + g.width_at_timestep(t - 1) - 1;
      const long dset = g.dependence_set_at_timestep(t);
      tasks += width;
      for (long p = offset; p < offset + width; ++p) {
        totals.flops += flops_per_task(g, t, p);
        totals.bytes += bytes_per_task(g, t, p);
        // The consumer's node holds a block of consecutive points.
        long node_first = 0;
        long node_last = -1;
        if (nodes > 0) {
          const long node = p * nodes / g.max_width;
          node_first = node * g.max_width / nodes;
          node_last = (node + 1) * g.max_width / nodes - 1;
        }
        for (const Interval& d : g.dependencies(dset, p)) {
          const long live = overlap(d.first, d.last, last_first, last_last);
          totals.dependencies += live;
          if (nodes > 0 && live > 0) {
            const long first = std::max(d.first, last_first);
            const long last = std::min(d.last, last_last);
            const long here = overlap(first, last, node_first, node_last);
            local += here;
            nonlocal += live - here;
          }
        }
      }
    }
    totals.tasks += tasks;
    totals.local_dependencies += local;
    totals.nonlocal_dependencies += nonlocal;
    totals.local_transfer += local * (long long)g.output_bytes_per_task;
    totals.nonlocal_transfer += nonlocal * (long long)g.output_bytes_per_task;
    totals.broadcast_bytes += (long long)g.broadcast_bytes;
    totals.broadcast_reads += tasks * (long long)g.broadcast_bytes;
  }
  return totals;
}

std::string summary_text(std::span<const TaskGraph> graphs, long nodes, double elapsed) {
  const RunTotals r = count_totals(graphs, nodes);
  std::string s;
  appendf(s, "Total Tasks %lld\n", r.tasks);
  appendf(s, "Total Dependencies %lld\n", r.dependencies);
  if (nodes > 0) {
    appendf(s, "  Local Dependencies %lld (estimated)\n", r.local_dependencies);
    appendf(s, "  Nonlocal Dependencies %lld (estimated)\n", r.nonlocal_dependencies);
    appendf(s, "  Number of Nodes (used for estimate) %ld\n", nodes);
  } else {
    appendf(s, "  Unable to estimate local/nonlocal dependencies\n");
  }
  appendf(s, "Total FLOPs %lld\n", r.flops);
  appendf(s, "Total Bytes %lld\n", r.bytes);
  appendf(s, "Elapsed Time %e seconds\n", elapsed);
  appendf(s, "FLOP/s %e\n", double(r.flops) / elapsed);
  appendf(s, "B/s %e\n", double(r.bytes) / elapsed);
  appendf(s, "Transfer (estimated):\n");
  if (nodes > 0) {
    appendf(s, "  Local Bytes %lld\n", r.local_transfer);
    appendf(s, "  Nonlocal Bytes %lld\n", r.nonlocal_transfer);
    appendf(s, "  Local Bandwidth %e B/s\n", double(r.local_transfer) / elapsed);
    appendf(s, "  Nonlocal Bandwidth %e B/s\n", double(r.nonlocal_transfer) / elapsed);
  } else {
    appendf(s, "  Unable to estimate local/nonlocal transfer\n");
  }
  if (r.broadcast_bytes > 0) {
    appendf(s, "Broadcast Bytes %lld\n", r.broadcast_bytes);
    appendf(s, "  Read by Tasks %lld bytes\n", r.broadcast_reads);
    appendf(s, "  Read Bandwidth %e B/s\n", double(r.broadcast_reads) / elapsed);
  }
  return s;
}

std::string summary_text(const Options& options, double elapsed_seconds) {
  return summary_text(options.graphs, options.nodes, elapsed_seconds);
}

std::string configuration_text(const Options& options) {
  std::string s = "Running Task Benchmark\n  Configuration:\n";
  for (const TaskGraph& g : options.graphs) {
    appendf(s, "    Task Graph %ld:\n", g.graph_index + 1);
    appendf(s, "      Time Steps: %ld\n", g.timesteps);
    appendf(s, "      Max Width: %ld\n", g.max_width);
    appendf(s, "      Dependence Type: %s\n", std::string(dependence_name(g.dependence)).c_str());
    appendf(s, "      Radix: %ld\n", g.radix);
    appendf(s, "      Period: %ld\n", g.period);
    appendf(s, "      Fraction Connected: %f\n", g.fraction_connected);
    appendf(s, "      Kernel:\n");
    appendf(s, "        Type: %s\n", std::string(kernel_name(g.kernel.type)).c_str());
    appendf(s, "        Iterations: %ld\n", g.kernel.iterations);
    appendf(s, "        Samples: %d\n", g.kernel.samples);
    appendf(s, "        Imbalance: %f\n", g.kernel.imbalance);
    appendf(s, "      Output Bytes: %zu\n", g.output_bytes_per_task);
    appendf(s, "      Scratch Bytes: %zu\n", g.scratch_bytes_per_task);
    if (g.broadcast_bytes > 0) appendf(s, "      Broadcast Bytes: %zu\n", g.broadcast_bytes);
    if (options.verbose <= 0) continue;
    for (long t = 0; t < g.timesteps; ++t) {
      const long offset = g.offset_at_timestep(t);
      const long width = g.width_at_timestep(t);
      const long last_offset = g.offset_at_timestep(t - 1);
      const long last_width = g.width_at_timestep(t - 1);
      appendf(s, "      Timestep %ld (offset %ld, width %ld, last offset %ld, last width %ld):\n", t, offset, width,
              last_offset, last_width);
      s += "        Points:";
      for (long p = offset; p < offset + width; ++p) appendf(s, " %ld", p);
      s += "\n        Dependencies:\n";
      for (long p = offset; p < offset + width; ++p) {
        appendf(s, "          Point %ld:", p);
        for (const long d : g.input_points(t, p)) appendf(s, " %ld", d);
        s += "\n";
      }
      if (options.verbose > 1) {
        s += "        Reverse Dependencies:\n";
        const long dset = g.dependence_set_at_timestep(t);
        for (long p = last_offset; p < last_offset + last_width; ++p) {
          appendf(s, "          Point %ld:", p);
          for (const Interval& r : g.reverse_dependencies(dset, p)) {
            for (long c = std::max(r.first, offset); c <= r.last && c < offset + width; ++c) appendf(s, " %ld", c);
          }
          s += "\n";
        }
      }
    }
  }
  return s;
}

}  // namespace herald::taskbench
