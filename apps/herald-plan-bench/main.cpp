// herald-plan-bench: what one planned tree costs (plan_tree, src/runtime/link_plan.hpp), for a broadcast from
// one rank to every other of P, on links a run's earlier broadcasts keep busy. The runtime plans every
// dynamic broadcast of a batch so, on every process under replicated control; the simulated runs of
// bench/cholesky charge no CPU time for it, so this is where its cost shows.
//
//   herald-plan-bench [Google Benchmark options, e.g. --benchmark_repetitions=5]
#include "benchmark_main.hpp"
#include "link_plan.hpp"

#include <benchmark/benchmark.h>

#include <random>
#include <vector>

namespace {

using herald::runtime::detail::LinkQueues;
using herald::runtime::detail::Need;
using herald::runtime::detail::plan_tree;

void planned_tree(benchmark::State& state) {
  const int ranks = static_cast<int>(state.range(0));
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> time(0.0, 1e-2);
  // Recipients with need times and priorities spread over a batch; links loaded by 64 earlier copies.
  std::vector<Need> recipients;
  for (int r = 1; r < ranks; ++r) recipients.push_back({.rank = r, .need = time(rng), .priority = r % 7});
  LinkQueues loaded;
  for (int i = 0; i < 64; ++i) {
    const int from = static_cast<int>(rng() % static_cast<unsigned>(ranks));
    const int to = (from + 1 + static_cast<int>(rng() % static_cast<unsigned>(ranks - 1))) % ranks;
    loaded.occupy(from, to, time(rng));
  }
  // 2 MiB (a tile of 512 x 512 doubles) in pieces of 64 KiB, at 10 Gbit/s.
  const double seconds = 2e-6 + 2.0 * 1048576 * 8e-10;
  const double lag = 2e-6 + 65536 * 8e-10;
  for (auto _ : state) {
    LinkQueues links = loaded;
    benchmark::DoNotOptimize(plan_tree(0, 1e-3, recipients, seconds, lag, links));
  }
  state.SetLabel(std::to_string(ranks - 1) + " recipients");
}
BENCHMARK(planned_tree)->Arg(4)->Arg(16)->Arg(64)->Arg(100)->Unit(benchmark::kMicrosecond);

}  // namespace

int main(int argc, char** argv) { return herald::bench::benchmark_main(argc, argv); }
