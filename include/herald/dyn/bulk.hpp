// How dyn's channel paces large payloads on the wire (docs/dyn.md, "One send queue"); the shape pricing
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
// Bulk messages (pieces) on one link at once, whatever their size: two keep the link busy across the
// completion of one, and a forwarder's children get a broadcast's segments one after the other rather
// than sharing its link over many (seed 000's broadcast of 1 MiB to 16 simulated workers: 0.419 ms with
// eight 64 KiB pieces per link, 0.288 with two; docs/dyn.md). 0: no bound.
inline constexpr std::size_t default_window_pieces = 2;
// Bulk bytes on the wire to all ranks together; 0: no bound.
inline constexpr std::size_t default_total_window = 0;

// Departures that may overtake a queued message before it goes first whatever its priority.
inline constexpr std::size_t default_patience = 256;

}  // namespace herald::dyn
