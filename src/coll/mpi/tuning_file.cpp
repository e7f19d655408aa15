#include "tuning_file.hpp"

#include "../../core/mpi/check.hpp"

#include <herald/config.hpp>
#include <herald/error.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace herald {
namespace {

int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

mpi::JobTuning read_checked(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(Errc::invalid_argument, "tuning file '" + path + "' (HERALD_TUNING_FILE) cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  Tuning tuning = parse_tuning(text.str(), path);
  const TuningLayout job = this_job_layout();
  if (const auto problem = layout_mismatch(tuning.layout, job))
    throw Error(Errc::invalid_argument, "tuning file '" + path + "': " + *problem +
                                            "; measure this machine with herald-tune, or set HERALD_TUNING_FALLBACK=1");
  TuningFit fit = fit_tuning(tuning, job);
  if (world_rank() == 0)
    for (const std::string& note : fit.unused) std::fprintf(stderr, "herald: tuning file '%s': %s\n", path.c_str(), note.c_str());
  return {std::move(tuning), std::move(fit)};
}

}  // namespace

TuningLayout this_job_layout() {
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  HERALD_MPI(MPI_Get_library_version(version, &length));
  std::string library(version, static_cast<std::size_t>(length));
  library = library.substr(0, library.find_first_of("\n,"));
  while (!library.empty() && (library.back() == ' ' || library.back() == '\t' || library.back() == '\0'))
    library.pop_back();
  int ranks = 0;
  HERALD_MPI(MPI_Comm_size(MPI_COMM_WORLD, &ranks));
  return {.mpi_library = library, .ranks = ranks, .ranks_per_node = launcher_ranks_on_node()};
}

std::optional<mpi::JobTuning> mpi::tuning_from_environment() {
  const auto path = environment("HERALD_TUNING_FILE");
  if (!path || path->empty()) return std::nullopt;
  try {
    return read_checked(*path);
  } catch (const Error& e) {
    if (!environment_switch("HERALD_TUNING_FALLBACK")) throw;
    if (world_rank() == 0) std::fprintf(stderr, "herald: %s; going on without it (HERALD_TUNING_FALLBACK=1)\n", e.what());
    return std::nullopt;
  }
}

}  // namespace herald
