// The pass-through: where a call goes to the MPI's own broadcast ("native", named or the tuning file's
// choice), herald's whole cost is its checks and look-ups, which cost as much as a small MPI_Bcast. So the
// last such call is remembered once every check has passed, and an identical repeat (communicator, bytes,
// root, options) skips them: no lock, no look-up, no string built (Context::repeat_passthrough()).
#pragma once

#include "comm_state.hpp"

#include <herald/bcast.hpp>

#include <mpi.h>

#include <cstddef>
#include <optional>
#include <string>

namespace herald::mpi {

class Passthrough {
 public:
  // The last call that went to MPI's broadcast as one message, once every check had passed.
  struct Call {
    MPI_Comm user = MPI_COMM_NULL;
    CommState* state = nullptr;  // the attribute keeps it while `user` lives; forget() clears this
    std::size_t bytes = 0;
    int root = 0;
    std::optional<std::string> algorithm;
    Parameters parameters;
  };
  const Call& last() const noexcept { return last_; }
  void remember(CommState& state, std::size_t bytes, int root, const Options& options) {
    if (bytes == 0 || bytes > max_message_bytes) return;
    last_ = {.user = state.user(), .state = &state, .bytes = bytes, .root = root,
             .algorithm = options.algorithm ? std::optional<std::string>(*options.algorithm) : std::nullopt,
             .parameters = options.parameters};
  }
  // `user` is being freed: a later communicator may reuse its handle.
  void forget(MPI_Comm user) noexcept {
    if (user == last_.user) last_ = {};
  }

  // The predefined, contiguous datatype last remembered (typed.hpp), and its size.
  MPI_Datatype plain_type() const noexcept { return plain_type_; }
  std::size_t plain_type_size() const noexcept { return plain_type_size_; }
  void remember_plain(MPI_Datatype type, std::size_t size) noexcept {
    plain_type_ = type;
    plain_type_size_ = size;
  }

 private:
  Call last_;
  MPI_Datatype plain_type_ = MPI_DATATYPE_NULL;
  std::size_t plain_type_size_ = 0;
};

}  // namespace herald::mpi
