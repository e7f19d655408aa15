// The shape of a dynamic broadcast: the tree algorithm and segment size dyn chooses for a broadcast's size
// and recipients (Endpoint::shape), and how its forwarding ranks move bytes.
#pragma once

#include <herald/error.hpp>
#include <herald/simulator.hpp>

#include <cstddef>
#include <optional>
#include <string>

namespace herald::dyn {

// The tree shape and segment size a dynamic broadcast uses.
struct Shape {
  std::string algorithm;         // a name from the algorithm table
  std::size_t segment = 0;       // bytes per segment; 0 = the whole message at once
  double predicted_seconds = 0;  // under the cost model it was chosen with
};

// How a forwarding rank moves bytes. `overlapped`: a network card moves them, so a rank receives segment
// k+1 while it sends segment k, as the simulator's single-port model has it. `serial`: a core moves them
// (shared memory, or ranks taking turns on shared cores), so a rank's receives and sends take turns.
enum class Forwarding { overlapped, serial };

// HERALD_DYN_FORWARDING ("serial" or "overlapped"), if set; throws Error(invalid_argument) on another value.
std::optional<Forwarding> forwarding_from_environment();

// Prices every tree-shaped algorithm of the table for `group` ranks and `bytes` bytes, each segmented
// algorithm unsegmented and at a few segment sizes, on the simulator with `model`'s network (docs/dyn.md, "The
// tree comes from a coll schedule"; sizes priced within 5% of an algorithm's cheapest are equal, and the best pipeline
// among them is its choice). Starts from binomial
// and goes through the table: an algorithm's cheapest shape replaces the choice so far when it costs
// less and its tree is as deep, when it costs at most shape_margin_for(model) times as much and its tree
// is deeper, or when its tree is shallower and the choice does not cost at most that fraction of it.
// predicted_seconds is the returned shape's price.
Shape choose_shape(int group, std::size_t bytes, const CostModel& model = {},
                   Forwarding forwarding = Forwarding::serial);

}  // namespace herald::dyn
