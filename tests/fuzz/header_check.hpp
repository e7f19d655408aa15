// The property both the fuzzer and the corpus replay check on one input: decoding either refuses it with
// herald::Error or yields a message that encodes back to exactly the same bytes and whose route walks
// cleanly. Anything else (another exception, a crash, a hang, a mismatch) is a bug in the decoder.
#pragma once

#include "../../src/dyn/wire.hpp"
#include <herald/error.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <span>

namespace herald::dyn::fuzz {

[[noreturn]] inline void broken(const char* what) {
  std::fprintf(stderr, "header decoder invariant broken: %s\n", what);
  std::abort();
}

// True if the input is accepted as a frame holding a broadcast header, false if refused.
inline bool check_one(std::span<const std::byte> input) {
  Frame frame;
  Header header;
  try {
    frame = decode_frame(input);
    header = decode_header(frame.body);
  } catch (const Error&) {
    return false;
  }
  const auto again = encode_frame(frame.handler, frame.payload, encode_header(header), frame.carried);
  if (again.size() != input.size() || !std::equal(again.begin(), again.end(), input.begin()))
    broken("an accepted message does not encode back to its own bytes");
  if (header.segment.offset + header.segment.length > header.total) broken("segment outside the message");
  // Walk the route as a forwarder trims it: every hop's sub-tree must fit in what is left.
  std::size_t hops = 0;
  for (std::size_t i = 0; i < header.route.size(); i += header.route[i].subtree, ++hops)
    if (header.route[i].subtree == 0 || header.route[i].subtree > header.route.size() - i)
      broken("accepted route does not nest");
  if (hops > header.route.size()) broken("more hops than entries");
  return true;
}

}  // namespace herald::dyn::fuzz
