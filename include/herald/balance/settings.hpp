// The balancer's configuration: HERALD_BALANCE_* environment variables (docs/balance.md lists them).
#pragma once

#include <herald/error.hpp>

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace herald::balance {

// When herald_balanced() acts: on every `every`-th call, or once at call `at` (calls count from 1).
struct Trigger {
  long every = 1;
  std::optional<long> at;
  bool fires(long call) const noexcept { return at ? call == *at : call % every == 0; }
};

enum class Clock { wall, cpu };  // what a thread's busy time is measured in

struct Settings {
  bool implicit = false;                  // HERALD_BALANCE_IMPLICIT: a phase ends with every parallel region
  Trigger trigger;                        // HERALD_BALANCE_EVERY / HERALD_BALANCE_AT
  bool log = false;                       // HERALD_BALANCE_LOG: print each decision on the node's first process
  bool bind = true;                       // HERALD_BALANCE_BIND: bind threads to the chosen cores
  Clock clock = Clock::wall;              // HERALD_BALANCE_CLOCK: wall | cpu
  std::optional<std::vector<int>> cores;  // HERALD_BALANCE_CORES: cores per socket, replacing hwloc's
};

// Switches follow herald::parse_switch (<herald/config.hpp>): 1/0, true/false, yes/no, on/off, any case.

// Cores per socket: "48" (one socket), "2x24" (sockets x cores) or "24,24" (one count per socket).
// Throws Error naming `what` on anything else, a zero, or more than 65536 cores.
std::vector<int> parse_socket_cores(std::string_view text, std::string_view what);

// Reads the settings through `lookup` (a variable's value, if set and not empty). Throws Error(invalid_argument)
// naming the variable on a malformed value, and on HERALD_BALANCE_EVERY and HERALD_BALANCE_AT set together.
Settings parse_settings(const std::function<std::optional<std::string>(const char*)>& lookup);

// Throws Error(invalid_argument) naming the first variable in `names` that starts with HERALD_BALANCE_ but is
// not one of the settings above: a misspelt name would otherwise be silently ignored.
void check_names(std::span<const std::string> names);

// check_names and parse_settings over the process environment.
Settings settings_from_environment();

}  // namespace herald::balance
