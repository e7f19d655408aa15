// The C API: MPI_Bcast's signature over herald::bcast. Contiguous datatypes go straight from the user's
// buffer; others are packed at the root and unpacked elsewhere.
#include "../../core/mpi/check.hpp"

#include <herald/bcast.hpp>
#include <herald/herald.h>

#include <cstdio>
#include <vector>

namespace herald {
namespace {

int error_class(Errc code) {
  switch (code) {
    case Errc::invalid_root: return MPI_ERR_ROOT;
    case Errc::invalid_comm: return MPI_ERR_COMM;
    case Errc::invalid_buffer: return MPI_ERR_BUFFER;
    case Errc::truncated: return MPI_ERR_TRUNCATE;
    case Errc::invalid_argument:
    case Errc::unknown_algorithm: return MPI_ERR_ARG;
    case Errc::invalid_schedule:
    case Errc::mpi: return MPI_ERR_OTHER;
  }
  return MPI_ERR_OTHER;
}

// Hands the error to the communicator's error handler, as an MPI call would. A fatal handler would hide
// herald's message, so it is printed first.
int raise(MPI_Comm comm, const Error& e, int code) {
  if (comm == MPI_COMM_NULL) comm = MPI_COMM_WORLD;
  MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
  if (MPI_Comm_get_errhandler(comm, &handler) == MPI_SUCCESS) {
    if (handler == MPI_ERRORS_ARE_FATAL) std::fprintf(stderr, "herald: %s\n", e.what());
    MPI_Errhandler_free(&handler);
  }
  MPI_Comm_call_errhandler(comm, code);
  return code;
}

// True when `count` elements of `type` lie in one contiguous run of bytes starting at the true lower bound.
bool contiguous(MPI_Datatype type, MPI_Aint& true_lb, MPI_Count& size) {
  MPI_Aint lb = 0, extent = 0, true_extent = 0;
  HERALD_MPI(MPI_Type_get_extent(type, &lb, &extent));
  HERALD_MPI(MPI_Type_get_true_extent(type, &true_lb, &true_extent));
  HERALD_MPI(MPI_Type_size_x(type, &size));
  return size == true_extent && extent == true_extent;
}

void bcast_typed(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm, const char* algorithm) {
  if (count < 0) throw Error(Errc::invalid_argument, "count " + std::to_string(count) + " is negative");
  if (type == MPI_DATATYPE_NULL) throw Error(Errc::invalid_argument, "the datatype is MPI_DATATYPE_NULL");
  if (comm == MPI_COMM_NULL) throw Error(Errc::invalid_comm, "the communicator is MPI_COMM_NULL");
  Options options;
  if (algorithm != nullptr) options.algorithm = algorithm;

  MPI_Aint true_lb = 0;
  MPI_Count size = 0;
  if (contiguous(type, true_lb, size)) {
    const std::size_t bytes = static_cast<std::size_t>(size) * static_cast<std::size_t>(count);
    if (buffer == nullptr && bytes > 0)
      throw Error(Errc::invalid_buffer, "the buffer is null but the count is " + std::to_string(count));
    std::byte* base = bytes ? static_cast<std::byte*>(buffer) + true_lb : nullptr;
    bcast({base, bytes}, root, comm, options);
    return;
  }

  if (buffer == nullptr && count > 0)
    throw Error(Errc::invalid_buffer, "the buffer is null but the count is " + std::to_string(count));
  int packed = 0, rank = 0;
  HERALD_MPI(MPI_Pack_size(count, type, comm, &packed));
  HERALD_MPI(MPI_Comm_rank(comm, &rank));
  std::vector<std::byte> staging(static_cast<std::size_t>(packed));
  int position = 0;
  if (rank == root) HERALD_MPI(MPI_Pack(buffer, count, type, staging.data(), packed, &position, comm));
  // Every rank must agree on the byte count; MPI_Pack_size gives the same bound everywhere.
  bcast(staging, root, comm, options);
  position = 0;
  if (rank != root) HERALD_MPI(MPI_Unpack(staging.data(), packed, &position, buffer, count, type, comm));
}

int guarded(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm, const char* algorithm) {
  try {
    bcast_typed(buffer, count, type, root, comm, algorithm);
    return MPI_SUCCESS;
  } catch (const Error& e) {
    return raise(comm, e, error_class(e.code()));
  } catch (const std::bad_alloc&) {
    return raise(comm, Error(Errc::invalid_argument, "out of memory"), MPI_ERR_NO_MEM);
  }
}

}  // namespace
}  // namespace herald

extern "C" int herald_bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  return herald::guarded(buffer, count, datatype, root, comm, nullptr);
}

extern "C" int herald_bcast_algorithm(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                                      const char* algorithm) {
  return herald::guarded(buffer, count, datatype, root, comm, algorithm);
}
