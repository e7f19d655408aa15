#include "errors.hpp"

#include "context.hpp"

#include <cstdio>
#include <exception>
#include <new>

namespace herald::mpi {

int error_class(const Error& error) {
  switch (error.code()) {
    case Errc::invalid_root: return MPI_ERR_ROOT;
    case Errc::invalid_comm: return MPI_ERR_COMM;
    case Errc::invalid_buffer: return MPI_ERR_BUFFER;
    case Errc::truncated: return MPI_ERR_TRUNCATE;
    case Errc::invalid_count: return MPI_ERR_COUNT;
    case Errc::invalid_datatype: return MPI_ERR_TYPE;
    case Errc::invalid_request: return MPI_ERR_REQUEST;
    case Errc::invalid_argument:
    case Errc::unknown_algorithm: return MPI_ERR_ARG;
    case Errc::invalid_schedule:
    case Errc::task_failed:
    case Errc::worker_lost:
    case Errc::mpi: return MPI_ERR_OTHER;
  }
  return MPI_ERR_OTHER;
}

int error_code(const Error& error) {
  Context& context = Context::get();
  const auto lock = context.lock();
  return context.error_codes().code(error_class(error), error.what());
}

int report(MPI_Comm comm, const Error& error) {
  const int code = error_code(error);
  if (comm == MPI_COMM_NULL) comm = MPI_COMM_WORLD;
  MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
  if (MPI_Comm_get_errhandler(comm, &handler) == MPI_SUCCESS) {
    if (handler == MPI_ERRORS_ARE_FATAL) std::fprintf(stderr, "herald: %s\n", error.what());
    MPI_Errhandler_free(&handler);
  }
  MPI_Comm_call_errhandler(comm, code);
  return code;
}

int report_exception(MPI_Comm comm) {
  try {
    throw;
  } catch (const Error& e) {
    return report(comm, e);
  } catch (const std::bad_alloc&) {
    return report(comm, Error(Errc::mpi, "out of memory"));
  } catch (const std::exception& e) {
    return report(comm, Error(Errc::mpi, e.what()));
  }
}

std::optional<std::string> message_of(int code) {
  Context& context = Context::get();
  const auto lock = context.lock();
  return context.error_codes().message(code);
}

void error_strings_intercepted() {
  Context& context = Context::get();
  const auto lock = context.lock();
  context.error_codes().intercepted();
}

}  // namespace herald::mpi
