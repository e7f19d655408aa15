// The C API: MPI_Bcast's signature over herald::bcast.
#include "typed.hpp"

#include <herald/bcast.hpp>
#include <herald/herald.h>

namespace {

int typed_bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm, const char* algorithm) {
  try {
    herald::mpi::TypedBuffer data(buffer, count, type, root, comm);
    herald::bcast(data.bytes(), root, comm, {.algorithm = algorithm ? algorithm : ""});
    data.finish();
    return MPI_SUCCESS;
  } catch (const herald::Error& e) {
    return herald::mpi::report(comm, e);
  } catch (const std::bad_alloc&) {
    return herald::mpi::report(comm, herald::Error(herald::Errc::invalid_argument, "out of memory"));
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
