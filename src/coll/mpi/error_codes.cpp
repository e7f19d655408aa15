#include "error_codes.hpp"

#include <mpi.h>

namespace herald::mpi {

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

}  // namespace herald::mpi
