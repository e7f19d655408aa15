#include "typed.hpp"

#include "../../core/mpi/check.hpp"

#include <cstdio>
#include <string>

namespace herald::mpi {
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

// True when `count` elements of `type` form one contiguous run of bytes from the true lower bound.
bool contiguous(MPI_Datatype type, MPI_Aint& true_lb, MPI_Count& size) {
  MPI_Aint lb = 0, extent = 0, true_extent = 0;
  HERALD_MPI(MPI_Type_get_extent(type, &lb, &extent));
  HERALD_MPI(MPI_Type_get_true_extent(type, &true_lb, &true_extent));
  HERALD_MPI(MPI_Type_size_x(type, &size));
  return size == true_extent && extent == true_extent;
}

}  // namespace

TypedBuffer::TypedBuffer(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm)
    : buffer_(buffer), count_(count), type_(type), comm_(comm) {
  if (count < 0) throw Error(Errc::invalid_argument, "count " + std::to_string(count) + " is negative");
  if (type == MPI_DATATYPE_NULL) throw Error(Errc::invalid_argument, "the datatype is MPI_DATATYPE_NULL");
  if (comm == MPI_COMM_NULL) throw Error(Errc::invalid_comm, "the communicator is MPI_COMM_NULL");
  if (buffer == nullptr && count > 0)
    throw Error(Errc::invalid_buffer, "the buffer is null but the count is " + std::to_string(count));

  MPI_Aint true_lb = 0;
  MPI_Count size = 0;
  if (contiguous(type, true_lb, size)) {
    const std::size_t n = static_cast<std::size_t>(size) * static_cast<std::size_t>(count);
    bytes_ = {n ? static_cast<std::byte*>(buffer) + true_lb : nullptr, n};
    return;
  }
  // Every rank computes the same packed size, so the byte broadcast agrees everywhere.
  int packed = 0, rank = 0, size_of_comm = 0;
  HERALD_MPI(MPI_Pack_size(count, type, comm, &packed));
  HERALD_MPI(MPI_Comm_rank(comm, &rank));
  HERALD_MPI(MPI_Comm_size(comm, &size_of_comm));
  if (root < 0 || root >= size_of_comm)  // checked again by bcast; here before packing
    throw Error(Errc::invalid_root, "root " + std::to_string(root) + " is not a rank of this " +
                                        std::to_string(size_of_comm) + "-rank communicator");
  staging_.resize(static_cast<std::size_t>(packed));
  int position = 0;
  if (rank == root) HERALD_MPI(MPI_Pack(buffer, count, type, staging_.data(), packed, &position, comm));
  unpack_ = rank != root;
  bytes_ = staging_;
}

void TypedBuffer::finish() {
  if (!unpack_) return;
  int position = 0;
  HERALD_MPI(MPI_Unpack(staging_.data(), static_cast<int>(staging_.size()), &position, buffer_, count_, type_,
                        comm_));
  unpack_ = false;
}

int report(MPI_Comm comm, const Error& error) {
  const int code = error_class(error.code());
  if (comm == MPI_COMM_NULL) comm = MPI_COMM_WORLD;
  MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
  if (MPI_Comm_get_errhandler(comm, &handler) == MPI_SUCCESS) {
    if (handler == MPI_ERRORS_ARE_FATAL) std::fprintf(stderr, "herald: %s\n", error.what());
    MPI_Errhandler_free(&handler);
  }
  MPI_Comm_call_errhandler(comm, code);
  return code;
}

}  // namespace herald::mpi
