// What herald-tune measures in one cell of its grid, and when a pick measured there stands. Pure, so
// tested without MPI (tests/unit/tune_candidates_test.cpp).
#pragma once

#include <herald/schedule.hpp>

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace herald::tune {

struct Candidate {
  std::string algorithm;  // "native" or an algorithm of the table
  Parameters parameters{};
  friend bool operator==(const Candidate&, const Candidate&) = default;
};

// "native" first, then every algorithm of the table at its defaults, and each segmented one at segment sizes
// 16 KiB, 64 KiB, ... (at most 4 MiB) below the message size. The node-aware algorithms are measured on one
// node too, on the layout herald finds there: node_shared carries the node through its memory, which is
// where herald beats the MPI's own broadcast on one node. Everywhere they run on the nodes herald finds from
// the host names, as in the job that reads the file (blocks or cyclic alike): no node size is given. On one
// node their segment sizes are not measured: node memory moves slot-sized pieces whatever the segment, and
// node_pipeline is a chain there (measured as chain).
std::vector<Candidate> candidates(std::size_t bytes, bool spans_nodes);

// Whether a candidate is clearly faster than native (`pick` and `native`: the slowest rank's seconds per
// broadcast, one sample a repetition, taken interleaved): its median below every one of native's samples,
// and by at least `clear_margin` of native's median. One slow sample of either does not decide: on this
// machine a sample of node_shared now and then ran 3 to 12 times its median (as native's did), and the
// min-max rule (every sample of the pick below every one of native's) then left native in cells where
// node_shared ran twice as fast (one node, 2 ranks, 128 KiB to 1 MiB).
inline constexpr double clear_margin = 0.95;
bool clearly_faster(std::span<const double> pick, std::span<const double> native);

// Whether a pick measured faster than native stands when both are measured again: clearly faster, and, in a
// job with more ranks on a node than it has cores (`oversubscribed`), with a median at most
// `oversubscribed_margin` of native's. Such a job's times move from one launch to the next by more than
// the spread of one launch shows.
inline constexpr double oversubscribed_margin = 0.8;
bool pick_holds(std::span<const double> pick, std::span<const double> native, bool oversubscribed);

}  // namespace herald::tune
