// main() for a unit benchmark (Google Benchmark): BENCHMARK_MAIN, except that a refused command line exits
// 2, as every herald program's does (Google Benchmark's own main exits 1); --help is Google Benchmark's and
// exits 0.
#pragma once

#include <benchmark/benchmark.h>

namespace herald::bench {

inline int benchmark_main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace herald::bench
