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

int ErrorCodes::code(int error_class, const std::string& message) {
  if (auto it = codes_.find(message); it != codes_.end()) return it->second;
  if (!usable()) return error_class;
  int code = error_class;
  if (codes_.size() < max_codes) {
    if (PMPI_Add_error_code(error_class, &code) != MPI_SUCCESS) return error_class;
    codes_.emplace(message, code);
  } else {
    // Past the cap, one code per class carries the latest message.
    auto [it, fresh] = overflow_.try_emplace(error_class, error_class);
    if (fresh && PMPI_Add_error_code(error_class, &it->second) != MPI_SUCCESS) {
      overflow_.erase(it);
      return error_class;
    }
    code = it->second;
  }
  std::string text = message;  // some MPIs (SimGrid's) declare the string non-const
  PMPI_Add_error_string(code, text.data());
  messages_[code] = message;
  return code;
}

std::optional<std::string> ErrorCodes::message(int code) const {
  if (auto it = messages_.find(code); it != messages_.end()) return it->second;
  return std::nullopt;
}

// Some MPI libraries (MPICH 4.0) accept a string for a code of a predefined class but do not give it back;
// such codes would show a wrong message, so herald returns the bare class there unless MPI_Error_string is
// answered by herald itself.
bool ErrorCodes::usable() {
  if (intercepted_) return true;
  if (!probed_) {
    probed_ = true;
    int code = MPI_ERR_OTHER;
    char probe[] = "herald: error string check";
    if (PMPI_Add_error_code(MPI_ERR_OTHER, &code) == MPI_SUCCESS &&
        PMPI_Add_error_string(code, probe) == MPI_SUCCESS) {
      char text[MPI_MAX_ERROR_STRING] = {};
      int length = 0;
      kept_ = PMPI_Error_string(code, text, &length) == MPI_SUCCESS && std::string(text, length) == probe;
    }
  }
  return kept_;
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
