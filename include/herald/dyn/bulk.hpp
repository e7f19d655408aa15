// How dyn's channel paces large payloads on the wire (see send_queue.hpp); the shape pricing
// (shape.cpp) follows the same rules.
#pragma once

#include <cstddef>

namespace herald::dyn {

// Payloads from this size on are bulk: they leave only while their link has room under the window.
// Smaller ones (and every frame) leave as soon as they are the most urgent message queued.
inline constexpr std::size_t bulk_bytes = 64 * 1024;

// Bulk bytes on one link at once, unless the endpoint's options say otherwise. A network moves one
// link's messages one after the other anyway; handing it more at once only lets them share the link (as
// TCP connections or simulated flows do), so that all arrive late together, a forwarder can pass none on
// early, and an urgent piece queued later waits behind every byte already handed over. A few pieces keep
// the link busy across the completion of one.
inline constexpr std::size_t default_bulk_window = 512 * 1024;
// Bulk bytes on the wire to all ranks together; 0: no bound.
inline constexpr std::size_t default_total_window = 0;

// Departures that may overtake a queued message before it goes first whatever its priority.
inline constexpr std::size_t default_patience = 256;

}  // namespace herald::dyn
