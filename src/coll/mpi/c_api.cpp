// The C API: MPI_Bcast's signature over herald's broadcasts.
#include "errors.hpp"
#include "typed.hpp"

#include <herald/herald.h>

namespace {

int typed_bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm, const char* algorithm) {
  try {
    herald::mpi::typed_bcast(buffer, count, type, root, comm,
                             algorithm ? std::optional<std::string_view>(algorithm) : std::nullopt);
    return MPI_SUCCESS;
  } catch (...) {
    return herald::mpi::report_exception(comm);
  }
}

}  // namespace

extern "C" int herald_bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  return typed_bcast(buffer, count, datatype, root, comm, nullptr);
}

extern "C" int herald_bcast_algorithm(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                                      const char* algorithm) {
  return typed_bcast(buffer, count, datatype, root, comm, algorithm);
}
