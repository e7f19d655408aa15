#include "mpi_library.hpp"

#include <algorithm>
#include <cctype>

namespace herald::pmpi {
namespace {

std::string lowercase(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

// What to do when the program's MPI is of `family`.
std::string_view remedy(MpiFamily family) {
  switch (family) {
    case MpiFamily::mpich:
      return "rebuild herald with that MPI (Debian's MPICH: HERALD_MPI=mpich scripts/setup.sh, then cmake "
             "-DMPI_EXECUTABLE_SUFFIX=.mpich in a build directory of its own; see docs/building.md) and preload "
             "that build's libherald_pmpi.so, or run the program without libherald_pmpi.so";
    case MpiFamily::open_mpi:
      return "rebuild herald with that MPI (Debian's Open MPI, the default one: scripts/setup.sh, then cmake "
             "-DMPI_EXECUTABLE_SUFFIX=.openmpi in a build directory of its own; see docs/building.md) and "
             "preload that build's libherald_pmpi.so, or run the program without libherald_pmpi.so";
    case MpiFamily::unknown:
      break;
  }
  return "rebuild herald with that MPI, or run the program without libherald_pmpi.so";
}

}  // namespace

std::string_view family_name(MpiFamily family) {
  switch (family) {
    case MpiFamily::open_mpi:
      return "Open MPI";
    case MpiFamily::mpich:
      return "MPICH";
    case MpiFamily::unknown:
      break;
  }
  return "an unknown MPI";
}

std::string first_line(std::string_view library_version) {
  library_version = library_version.substr(0, library_version.find_first_of("\r\n"));
  std::string out;
  bool blank = false;
  for (const char c : library_version) {
    if (c == ' ' || c == '\t') {
      blank = !out.empty();
      continue;
    }
    if (blank) out += ' ';
    blank = false;
    out += c;
  }
  return out;
}

std::string library_name(std::string_view library_version) {
  std::string line = first_line(library_version);
  return line.substr(0, line.find(','));
}

MpiFamily family_of(std::string_view library_version) {
  const std::string line = lowercase(first_line(library_version));
  if (contains(line, "open mpi")) return MpiFamily::open_mpi;
  // MPICH itself and Cray MPICH ("... CRAY MPICH version 8.1.25 (ANL base 3.4a2)"), MVAPICH2 and MVAPICH,
  // Intel MPI ("Intel(R) MPI Library 2021.6 for Linux* OS").
  if (contains(line, "mpich") || contains(line, "mvapich") || contains(line, "intel(r) mpi") ||
      contains(line, "intel mpi"))
    return MpiFamily::mpich;
  return MpiFamily::unknown;
}

std::optional<std::string> library_mismatch(MpiFamily built, std::string_view built_name, std::string_view running) {
  const MpiFamily actual = family_of(running);
  if (built == MpiFamily::unknown || actual == MpiFamily::unknown || actual == built) return std::nullopt;
  const std::string line = library_name(running);
  std::string message = "herald: libherald_pmpi.so was built for ";
  message += built_name;
  message += " but this program runs ";
  message += line;
  if (!contains(lowercase(line), lowercase(family_name(actual)))) {
    message += " (";
    message += family_name(actual);
    message += "'s family)";
  }
  message += ", another MPI ABI, so herald stops it here; ";
  message += remedy(actual);
  message += '.';
  return message;
}

}  // namespace herald::pmpi
