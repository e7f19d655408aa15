// libherald_pmpi checks that the process runs the MPI library it was built for.
//
// A libherald_pmpi.so built with Open MPI and preloaded into an MPICH program (or the reverse) loads both
// libraries: the program's MPI answers every call, while herald's code holds the other one's handles and
// constants, and the first of them it passes (its MPI_COMM_WORLD, to duplicate it) ends the job with an error
// from MPI that does not name herald. So the library compares the family of the MPI it was compiled against
// (mpi.h's macros) with the family each MPI C library in the process names through its
// MPI_Get_library_version: that call takes only a char* and an int*, the same in every ABI, and MPI allows it
// before MPI_Init. The one the program's calls reach comes first, then every other loaded object's: asking
// only the first is not enough, since the loader may put the preloaded library's own MPI first. An MPICH
// Fortran program reaches libmpich.so.12 only through libmpichfort.so.12, after the preloaded library's
// libmpi.so.40, so MPICH's Fortran bindings call Open MPI's C functions and MPI_Get_library_version names
// Open MPI.
//
// When: once at the first intercepted call, before it touches any MPI handle or constant; and once when the
// library is loaded, if the process holds two MPI C libraries then. The load-time check is for programs
// that never reach an intercepted call: an Open MPI Fortran program calls PMPI_ functions from its Fortran
// bindings, and an MPICH build of this library defines no Fortran entry points. The first-call check also
// sees an MPI opened after load (as mpi4py opens its own).
//
// On a mismatch every process prints why on stderr and exits with status 1 through _Exit, which neither runs
// the other MPI's exit handlers nor calls MPI (MPI_Abort would need this ABI's MPI_COMM_WORLD); the launcher
// then ends the job. Releases of one family are accepted (mpi_library.hpp says why).
#include "mpi_library.hpp"
#include "progress.hpp"

#include <mpi.h>

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

#define HERALD_PMPI_TEXT(x) #x
#define HERALD_PMPI_VALUE(x) HERALD_PMPI_TEXT(x)

// The MPI this library was compiled against, from its mpi.h. MPICH's derivatives define MPICH_VERSION too.
#if defined(OPEN_MPI)
constexpr herald::pmpi::MpiFamily built_family = herald::pmpi::MpiFamily::open_mpi;
constexpr const char* built_name = "Open MPI v" HERALD_PMPI_VALUE(OMPI_MAJOR_VERSION) "." HERALD_PMPI_VALUE(
    OMPI_MINOR_VERSION) "." HERALD_PMPI_VALUE(OMPI_RELEASE_VERSION);
#elif defined(I_MPI_VERSION)
constexpr herald::pmpi::MpiFamily built_family = herald::pmpi::MpiFamily::mpich;
constexpr const char* built_name = "Intel MPI " I_MPI_VERSION;
#elif defined(MVAPICH2_VERSION)
constexpr herald::pmpi::MpiFamily built_family = herald::pmpi::MpiFamily::mpich;
constexpr const char* built_name = "MVAPICH2 " MVAPICH2_VERSION;
#elif defined(MPICH_VERSION)
constexpr herald::pmpi::MpiFamily built_family = herald::pmpi::MpiFamily::mpich;
constexpr const char* built_name = "MPICH " MPICH_VERSION;
#else
// Another MPI (SimGrid's SMPI, say): nothing known to compare with, so nothing is refused.
constexpr herald::pmpi::MpiFamily built_family = herald::pmpi::MpiFamily::unknown;
constexpr const char* built_name = "an MPI of unknown family";
#endif

using LibraryVersion = int (*)(char*, int*);

// Every distinct MPI C library in the process, by its PMPI_Get_library_version: first the one the program's
// calls reach, then each loaded object's (dlsym on an object's handle searches what it depends on too, and
// the same function found twice counts once).
std::vector<LibraryVersion> mpi_libraries() {
  std::vector<LibraryVersion> found;
  const auto add = [&](void* symbol) {
    const auto function = reinterpret_cast<LibraryVersion>(symbol);
    if (function != nullptr && std::find(found.begin(), found.end(), function) == found.end())
      found.push_back(function);
  };
  add(dlsym(RTLD_DEFAULT, "PMPI_Get_library_version"));
  std::vector<std::string> objects;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* out) {
        if (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0')
          static_cast<std::vector<std::string>*>(out)->emplace_back(info->dlpi_name);
        return 0;
      },
      &objects);
  for (const std::string& object : objects) {
    if (void* handle = dlopen(object.c_str(), RTLD_LAZY | RTLD_NOLOAD)) {  // already loaded: no new object
      add(dlsym(handle, "PMPI_Get_library_version"));
      dlclose(handle);
    }
  }
  return found;
}

// `at_load`: only where the process holds two MPI C libraries already (the first call checks the rest).
void verify(bool at_load) {
  if constexpr (built_family == herald::pmpi::MpiFamily::unknown) return;
  const std::vector<LibraryVersion> libraries = mpi_libraries();
  if (at_load && libraries.size() < 2) return;
  // Sized for any MPI, not this mpi.h's MPI_MAX_LIBRARY_VERSION_STRING: Open MPI's is 256, MPICH's 8192,
  // and each library writes up to its own.
  std::string text(1 << 16, '\0');
  for (const LibraryVersion library_version : libraries) {
    std::fill(text.begin(), text.end(), '\0');
    int length = 0;
    if (library_version(text.data(), &length) != 0) continue;  // MPI_SUCCESS is 0 in every ABI
    const std::string running(text.c_str());
    if (const auto message = herald::pmpi::library_mismatch(built_family, built_name, running)) {
      std::fprintf(stderr, "%s\n", message->c_str());
      std::fflush(stderr);
      std::_Exit(EXIT_FAILURE);
    }
  }
}

// At load time, before main, where two MPI C libraries are loaded already: programs that may never reach an
// intercepted call.
__attribute__((constructor)) void verify_at_load() { verify(true); }

}  // namespace

namespace herald::pmpi {

void check_library() {
  // Once per process, thread-safe; after the first call a single load.
  static const bool checked = (verify(false), true);
  (void)checked;
}

}  // namespace herald::pmpi
