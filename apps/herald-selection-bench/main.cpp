// herald-selection-bench: what one "auto" choice costs a rank (every algorithm priced at every candidate
// segment size, and across nodes at every stage among their leaders), for a range of rank counts and sizes,
// on one node and on nodes of 8 ranks. The choice is made once per communicator,
// root and size and then cached with the plan; this is the price of that first call.
//
//   herald-selection-bench [Google Benchmark options, e.g. --benchmark_min_time=0.2]
#include <herald/algorithms.hpp>
#include <herald/selector.hpp>

#include "benchmark_main.hpp"

#include <benchmark/benchmark.h>

#include <cstddef>

namespace {

void choose(benchmark::State& state) {
  const herald::Problem problem{.ranks = static_cast<int>(state.range(0)),
                                .root = 0,
                                .bytes = static_cast<std::size_t>(state.range(1))};
  const herald::CostModel model{.alpha = 2e-6, .beta = 8e-11, .network = herald::Network::fair_sharing,
                                .overhead = 5e-7, .eager_bytes = 65535};
  for (auto _ : state) benchmark::DoNotOptimize(herald::choose_algorithm(problem, model));
  state.SetLabel(std::string(herald::choose_algorithm(problem, model).algorithm->name));
}

// P ranks in nodes of 8, with the node's own model. Link loads come from schedules once per communicator (the
// LinkLoads a communicator keeps, here filled before timing); the stage among up to 16 leaders is simulated
// at every candidate, which each size pays.
void choose_on_nodes(benchmark::State& state) {
  const int ranks = static_cast<int>(state.range(0));
  const herald::Problem problem{.ranks = ranks,
                                .root = 0,
                                .bytes = static_cast<std::size_t>(state.range(1)),
                                .layout = herald::NodeLayout::blocks(ranks, 8)};
  const herald::CostModel model{.alpha = 2e-6, .beta = 8e-11, .network = herald::Network::fair_sharing,
                                .overhead = 5e-7, .eager_bytes = 65535, .node_alpha = 4e-7, .node_beta = 1e-10};
  herald::LinkLoads loads;
  const herald::Choice c = herald::choose_algorithm(problem, model, &loads);
  for (auto _ : state) benchmark::DoNotOptimize(herald::choose_algorithm(problem, model, &loads));
  state.SetLabel(std::string(c.algorithm->name) + " " + std::string(herald::leader_stage_name(c.parameters.leaders)));
}

}  // namespace

BENCHMARK(choose)->ArgsProduct({{16, 256, 1024, 65536}, {1024, 1 << 20, 64 << 20}})->ArgNames({"P", "bytes"});
BENCHMARK(choose_on_nodes)
    ->ArgsProduct({{64, 128, 256, 512}, {1024, 1 << 20, 64 << 20}})
    ->ArgNames({"P", "bytes"})
    ->Unit(benchmark::kMicrosecond);

int main(int argc, char** argv) { return herald::bench::benchmark_main(argc, argv); }
