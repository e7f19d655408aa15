// coll's settings for the MPI layer: the HERALD_* values read once, at the first call, and the error a
// malformed one caused, which every later call reports again (check()).
#pragma once

#include <herald/algorithms.hpp>
#include <herald/error.hpp>
#include <herald/schedule.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace herald::mpi {

class TuningState;

// HERALD_EMULATE_NODES=<k>[,cyclic]: nodes made up from MPI_COMM_WORLD ranks instead of host names, for
// tests and simulation; size 0 when unset.
struct EmulatedNodes {
  int size = 0;
  bool cyclic = false;
};

class CollSettings {
 public:
  // Reads every setting, `tuning`'s among them, in one fixed order; never throws. The first malformed one
  // ends the reading and is kept for check(): those after it keep their defaults, so what a refused
  // setting leaves unread (the tuning file's notices, say) stays unread.
  explicit CollSettings(TuningState& tuning);

  // Throws the error a malformed HERALD_* setting caused, at every call until the program fixes it.
  void check() const {
    if (error_) throw *error_;
  }
  // HERALD_ALGORITHM: "auto" unless set.
  const std::string& default_algorithm() const noexcept { return default_algorithm_; }
  const Parameters& parameters() const noexcept { return parameters_; }
  // HERALD_VERBOSE: "auto" says what it runs and why (Context::explain()).
  bool verbose() const noexcept { return verbose_; }
  // HERALD_AUTO_LEARN: auto learns from each communicator's blocking calls (CommState::learn()).
  bool learn() const noexcept { return learn_; }
  EmulatedNodes emulated_nodes() const noexcept { return emulated_nodes_; }
  const SendWindow& send_window() const noexcept { return window_; }
  // HERALD_MAX_MESSAGE_BYTES: the largest message herald sends.
  std::size_t message_limit() const noexcept { return message_limit_; }
  // HERALD_AUTO_NATIVE_BELOW: without a measurement, on one node, auto keeps MPI_Bcast below this size (0:
  // never); unset, default_native_below() (see docs/configuration.md for what it costs an erroneous program).
  std::optional<std::size_t> native_below() const noexcept { return native_below_; }

  // A name from the table, nullptr for "auto" or "native" (`native` says which); an empty name is
  // HERALD_ALGORITHM's. Throws on unknown names.
  const AlgorithmInfo* algorithm(std::optional<std::string_view> name, bool& native);

 private:
  std::string default_algorithm_;
  Parameters parameters_;
  bool verbose_ = false;
  bool learn_ = false;
  EmulatedNodes emulated_nodes_{};
  SendWindow window_;
  std::size_t message_limit_ = max_message_bytes;
  std::optional<std::size_t> native_below_;
  std::optional<Error> error_;
  // The last name resolved, checked before the table look-up.
  std::string last_name_;
  const AlgorithmInfo* last_algorithm_ = nullptr;
  bool last_native_ = false;
};

}  // namespace herald::mpi
