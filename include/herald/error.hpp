// herald's one error type: a code a program can branch on and a message a person can read.
#pragma once

#include <stdexcept>
#include <string>

namespace herald {

enum class Errc {
  invalid_argument,   // a value outside its domain (count, size, parameter)
  invalid_root,       // root not a rank of the communicator
  invalid_comm,       // MPI_COMM_NULL or an unusable communicator
  invalid_buffer,     // null buffer with a non-zero count
  unknown_algorithm,  // a name that is not in the algorithm table
  invalid_schedule,   // a schedule that fails its checks (generator bug)
  truncated,          // a message larger or smaller than the buffer meant for it (counts differ between ranks)
  mpi,                // an MPI call returned an error
  invalid_count,      // a negative element count
  invalid_datatype,   // MPI_DATATYPE_NULL, or a datatype not committed
  invalid_request,    // a request operation a broadcast does not allow (MPI_Cancel)
  task_failed,        // a task's kernel threw, or the runtime stopped after such a failure
  worker_lost,        // a runtime worker went silent (dead or stuck)
};

// Short, stable name of a code ("invalid_root"), for messages and tests.
const char* to_string(Errc code) noexcept;

class Error : public std::runtime_error {
 public:
  Error(Errc code, const std::string& message)
      : std::runtime_error(std::string(to_string(code)) + ": " + message), code_(code) {}
  Errc code() const noexcept { return code_; }
  // The message without the code's name before it (what() is "<code>: <message>"): for passing an error on
  // under another code, or inside another message, without naming a code twice.
  std::string message() const;

 private:
  Errc code_;
};

}  // namespace herald
