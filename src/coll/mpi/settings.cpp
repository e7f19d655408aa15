#include "settings.hpp"

#include "tuning_state.hpp"

#include <herald/coll_settings.hpp>
#include <herald/config.hpp>

namespace herald::mpi {

CollSettings::CollSettings(TuningState& tuning) {
  try {
    require_known_settings();
    default_algorithm_ = environment("HERALD_ALGORITHM").value_or("auto");
    check_algorithm_choice(default_algorithm_, "HERALD_ALGORITHM");
    parameters_ = parameters_from_environment();
    tuning.load();
    verbose_ = environment_switch("HERALD_VERBOSE");
    learn_ = environment_switch("HERALD_AUTO_LEARN");
    if (auto v = environment("HERALD_EMULATE_NODES")) {
      const auto comma = v->find(',');
      const std::string placement = comma == std::string::npos ? "" : v->substr(comma + 1);
      if (placement != "" && placement != "cyclic" && placement != "blocks")
        throw Error(Errc::invalid_argument,
                    "HERALD_EMULATE_NODES '" + *v + "': expected <ranks per node>[,blocks] or <nodes>,cyclic");
      emulated_nodes_.size = static_cast<int>(parse_count(v->substr(0, comma), "HERALD_EMULATE_NODES"));
      emulated_nodes_.cyclic = placement == "cyclic";
      if (emulated_nodes_.size < 1)
        throw Error(Errc::invalid_argument, "HERALD_EMULATE_NODES '" + *v + "' must name at least 1");
    }
    window_ = send_window_from_environment();
    if (auto v = environment("HERALD_AUTO_NATIVE_BELOW")) native_below_ = parse_bytes(*v, "HERALD_AUTO_NATIVE_BELOW");
    if (auto v = environment("HERALD_MAX_MESSAGE_BYTES")) {
      message_limit_ = parse_bytes(*v, "HERALD_MAX_MESSAGE_BYTES");
      if (message_limit_ == 0 || message_limit_ > max_message_bytes)
        throw Error(Errc::invalid_argument, "HERALD_MAX_MESSAGE_BYTES '" + *v + "' must be in 1.." +
                                                std::to_string(max_message_bytes));
    }
  } catch (const Error& e) {
    error_ = e;
  }
}

const AlgorithmInfo* CollSettings::algorithm(std::optional<std::string_view> given, bool& native) {
  const std::string_view name = given ? *given : std::string_view(default_algorithm_);
  if (name != last_name_) {
    last_native_ = name == "native";
    last_algorithm_ = (last_native_ || name == "auto") ? nullptr : &find_algorithm(name);
    last_name_ = name;
  }
  native = last_native_;
  return last_algorithm_;
}

}  // namespace herald::mpi
