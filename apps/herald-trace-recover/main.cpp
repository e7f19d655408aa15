// herald-trace-recover DIR: the trace of a run that ended before finishing it (a crash, an abort, a job
// killed at its time limit). Every process of a traced run appends its full buffers to DIR/raw/rank-<r>.events
// as it goes, and rank 0 keeps the clocks measured at the start in DIR/raw/clocks.json; from them this
// writes DIR/trace.json (and DIR/trace.otf2 where herald has libotf2), as finish() would have, with each
// rank's events up to its last whole block and the start's clock offsets.
#include <herald/error.hpp>
#include <herald/trace.hpp>

#include "cli.hpp"

#include <cstdio>
#include <filesystem>
#include <string>

int main(int argc, char** argv) {
  CLI::App app{"herald-trace-recover: the trace of a run that ended before finishing it, from its spill files"};
  std::string directory;
  app.add_option("DIR", directory, "the run's trace directory (HERALD_TRACE's)")->required();
  if (const auto status = herald::cli::parse(app, argc, argv)) return *status;
  try {
    const herald::trace::Recording run = herald::trace::recover(directory);
    std::size_t events = 0;
    for (const auto& log : run.logs) events += log.events.size();
    herald::trace::write_chrome_json(run, std::filesystem::path(directory) / "trace.json");
    if (herald::trace::otf2_available()) herald::trace::write_otf2(run, directory, "trace");
    std::printf("herald-trace-recover: %zu events of %zu ranks written to %s/trace.json%s\n", events, run.logs.size(),
                directory.c_str(), herald::trace::otf2_available() ? " and trace.otf2" : "");
    return 0;
  } catch (const herald::Error& e) {
    std::fprintf(stderr, "herald-trace-recover: %s\n", e.what());
    return 2;
  }
}
