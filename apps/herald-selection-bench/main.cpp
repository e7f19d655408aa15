// herald-selection-bench: what one "auto" choice costs a rank (every algorithm priced in closed form at every
// candidate segment size), for a range of rank counts and sizes. The choice is made once per communicator,
// root and size and then cached with the plan; this is the price of that first call.
//
//   herald-selection-bench [Google Benchmark options, e.g. --benchmark_min_time=0.2]
#include <herald/selector.hpp>

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

}  // namespace

BENCHMARK(choose)->ArgsProduct({{16, 256, 1024, 65536}, {1024, 1 << 20, 64 << 20}})->ArgNames({"P", "bytes"});

BENCHMARK_MAIN();
