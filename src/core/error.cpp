#include <herald/error.hpp>

#include <cstring>

namespace herald {

std::string Error::message() const {
  const char* text = what();
  const std::size_t prefix = std::strlen(to_string(code_)) + 2;  // "<code>: "
  return std::strlen(text) >= prefix ? std::string(text + prefix) : std::string(text);
}

const char* to_string(Errc code) noexcept {
  switch (code) {
    case Errc::invalid_argument: return "invalid_argument";
    case Errc::invalid_root: return "invalid_root";
    case Errc::invalid_comm: return "invalid_comm";
    case Errc::invalid_buffer: return "invalid_buffer";
    case Errc::unknown_algorithm: return "unknown_algorithm";
    case Errc::invalid_schedule: return "invalid_schedule";
    case Errc::truncated: return "truncated";
    case Errc::mpi: return "mpi";
    case Errc::invalid_count: return "invalid_count";
    case Errc::invalid_datatype: return "invalid_datatype";
    case Errc::invalid_request: return "invalid_request";
    case Errc::task_failed: return "task_failed";
    case Errc::worker_lost: return "worker_lost";
  }
  return "unknown";
}

}  // namespace herald
