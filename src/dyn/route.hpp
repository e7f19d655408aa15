// dyn's own (not installed): source routing, the tree a dynamic broadcast follows, planned at the origin and carried in its messages.
//
// The origin builds a coll schedule over a virtual group of k+1 ranks (0 = itself, then one rank per
// recipient) and reads the tree off it: who sends to whom, and in which order. Recipients are placed on
// that tree so the ones with higher priority get the data earlier. The whole tree below the origin is then
// written as one route in pre-order; each node hands every child the slice that is the child's sub-tree,
// so no node needs to know anything but its own sub-tree.
#pragma once

#include "wire.hpp"

#include <herald/algorithms.hpp>
#include <herald/dyn/shape.hpp>
#include <herald/error.hpp>
#include <herald/schedule.hpp>
#include <herald/simulator.hpp>

#include <cstdint>
#include <span>
#include <optional>
#include <string>
#include <vector>

namespace herald::dyn {

// A broadcast tree in virtual ranks, 0 being the root.
struct Tree {
  std::vector<int> parent;                 // parent[0] == -1
  std::vector<std::vector<int>> children;  // in the order each rank serves them
};

// The tree of a tree-shaped schedule rooted at 0: every other rank must receive only from one peer.
// Throws Error(invalid_schedule) when the schedule is not a tree (for example scatter + allgather).
Tree tree_of(const Schedule& schedule);

// The tree an algorithm builds over `group` ranks, read off a one-byte schedule and checked against a
// multi-segment one of an odd size (some algorithms only split the data once there is enough of it).
// Throws Error(invalid_schedule) if the algorithm is not a tree or its tree changes with the size.
Tree tree_of_algorithm(const AlgorithmInfo& algorithm, int group);

// For each virtual rank, the round in which its first byte arrives when each rank sends one message per
// round, in its order (0 for the root). For a pipelined shape this is the first segment's arrival.
std::vector<int> arrival_rounds(const Tree& tree);

// Virtual ranks 1..n-1 from the first served to the last: by arrival round, then depth, then number.
std::vector<int> service_order(const Tree& tree);

// Hops from the root to every rank (0 for the root), and the most of them.
std::vector<int> depths(const Tree& tree);
int tree_depth(const Tree& tree);

struct Recipient {
  int rank = 0;
  int priority = 0;
  std::uint64_t seq = 0;
};

// The route of the whole tree below the origin. The recipient with the highest priority takes the place
// served first, and so on; equal priorities keep the order they were given in. Needs one recipient per
// virtual rank other than the root.
std::vector<RouteEntry> plan_route(const Tree& tree, std::span<const Recipient> recipients);
// The same with the tree's service_order() already at hand (the endpoint keeps it per tree).
std::vector<RouteEntry> plan_route(const Tree& tree, std::span<const int> order, std::span<const Recipient> recipients);

// The tree a caller gives as parents (parents[i]: the index of recipient i's parent, -1 for the root), in
// virtual ranks (recipient i is i + 1), each rank serving its children in index order. Throws
// Error(invalid_argument) naming the first recipient whose parent is out of range or that the root does
// not reach (a cycle).
Tree tree_of_parents(std::span<const int> parents);
// The route of a tree whose virtual rank v + 1 is recipients[v]: the placement is the caller's.
std::vector<RouteEntry> route_of(const Tree& tree, std::span<const Recipient> placed);

// A direct child of the node holding a route, with the part of the route that child must serve.
struct Hop {
  RouteEntry to;
  std::span<const RouteEntry> route;
};

// Trims a route for each direct child, in service order. Throws Error(invalid_argument) on a route whose
// sub-trees do not nest.
std::vector<Hop> split_route(std::span<const RouteEntry> route);


// The busiest rank's serial work: the sum of gap + bytes * beta over all its steps, sends and receives,
// as if one core moved every byte it receives and sends, one message at a time (on the fair-sharing
// network, overhead + bytes * beta).
double serial_work(const Schedule& schedule, const CostModel& model);


// The price choose_shape() puts on a schedule: the simulator's time on the model's network, and with
// serial forwarding at least serial_work(); infinite if the schedule does not deliver. On the
// fair-sharing network, sends leave as dyn's channel lets them: a rank's copies of a piece under 64 KiB
// all at once, bulk pieces at most 512 KiB of them at a time.
double shape_cost(const Schedule& schedule, const CostModel& model, Forwarding forwarding = Forwarding::serial);

// The smallest segment size choose_shape() tries: it never segments a message of at most this many bytes.
inline constexpr std::size_t smallest_shape_segment = 64 * 1024;

// Of two trees, the deeper is preferred only when its price is at most this fraction of the shallower's.
// The single-port network leaves out that a rank's copies of a message share its link, which favours
// deep trees, and the forwarding cost of each hop; the fair-sharing network leaves out only the latter
// (about 0.2 us of a 3 us hop, measured under SimGrid).
inline constexpr double shape_margin = 0.8;
inline constexpr double shared_link_shape_margin = 0.97;
// The margin for `model`'s network.
double shape_margin_for(const CostModel& model);
// Segment sizes of one algorithm priced within this fraction of its cheapest count as equal; the one with
// the lowest single-port time (the best pipeline) is taken.
inline constexpr double segment_tie = 0.05;


}  // namespace herald::dyn
