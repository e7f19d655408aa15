// What the running balancer has done so far, for programs and tests that link libherald_balance.
#pragma once

#include <herald/balance/decision.hpp>

#include <optional>

#if defined(__GNUC__) || defined(__clang__)
#define HERALD_BALANCE_API __attribute__((visibility("default")))
#else
#define HERALD_BALANCE_API
#endif

namespace herald::balance {

struct Status {
  bool active = false;   // the OpenMP runtime started herald's OMPT tool
  long calls = 0;        // phase ends seen (explicit herald_balanced() calls, or regions in implicit mode)
  long exchanges = 0;    // loads gathered and a decision taken
  long actions = 0;      // decisions applied (thread counts and binding changed)
  std::optional<Decision> last;  // the latest decision
};

// A snapshot; call it between parallel regions.
HERALD_BALANCE_API Status status();

}  // namespace herald::balance
