// How dyn's channel paces large payloads on the wire; the shape pricing (shape.cpp) follows the same rules.
#pragma once

#include <cstddef>

namespace herald::dyn {

// Payload pieces from this size on are bulk: at most max_bulk_streams of them are on the wire to one
// destination at a time, the next leaving as one completes. A network moves the messages of one peer one
// after the other anyway; handing it a whole pipeline's segments at once would only let them share the
// link (as TCP connections or simulated flows do), so that all arrive late together and a forwarder could
// pass none on early. Two keep the link busy across the completion of one. Smaller pieces leave at once.
inline constexpr std::size_t bulk_bytes = 64 * 1024;
inline constexpr int max_bulk_streams = 2;

// Bytes of one broadcast's bulk pieces on the wire from one rank at once, over all the ranks they go to,
// unless the endpoint's options say otherwise.
inline constexpr std::size_t default_bulk_window = 512 * 1024;

}  // namespace herald::dyn
