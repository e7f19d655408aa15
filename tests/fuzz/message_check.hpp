// The property both the runtime-message fuzzer and its unit tests check on one input: decoding it as
// whatever kind its envelope names either refuses it with herald::Error or yields a message that encodes
// back to exactly the same bytes. Anything else (another exception, a crash, a hang, a mismatch) is a bug.
#pragma once

#include "../../src/runtime/protocol/messages.hpp"

#include <herald/error.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <span>

namespace herald::runtime::detail::fuzz {

[[noreturn]] inline void broken(const char* what) {
  std::fprintf(stderr, "runtime message decoder invariant broken: %s\n", what);
  std::abort();
}

// True if the input is accepted, false if refused.
inline bool check_one(std::span<const std::byte> input) {
  msg::Message message;
  try {
    message = msg::decode_any(input);
  } catch (const Error&) {
    return false;
  }
  const auto again = msg::encode(message);
  if (again.size() != input.size() || !std::equal(again.begin(), again.end(), input.begin()))
    broken("an accepted message does not encode back to its own bytes");
  return true;
}

}  // namespace herald::runtime::detail::fuzz
