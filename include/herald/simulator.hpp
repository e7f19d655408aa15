// Runs every rank of a schedule in memory: checks delivery and prices the schedule.
#pragma once

#include <herald/layout.hpp>
#include <herald/schedule.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace herald {

// How the simulated network carries concurrent messages.
enum class Network : std::uint8_t {
  // Hockney's alpha-beta model: a message of n bytes arrives alpha + n * beta seconds after it starts; each
  // rank has one send port and one receive port (full duplex, single port). A message holds both ports for
  // gap + n * beta seconds: with the default gap (alpha) one message at a time is in flight per port; a
  // smaller gap (LogP's g) lets a rank start its next message while the previous one's latency runs, but
  // for a synchronous send (a pipeline's, paced(), or a schedule's in rounds), which holds its sender until
  // it has arrived (alpha + n * beta), as MPI_Issend does.
  ports,
  // A flat cluster of full-duplex links into a non-blocking switch, as SimGrid models one: every rank's
  // sends leave under the send window, each message spends `overhead` of its sender's time, then alpha in
  // latency, then moves its bytes at a max-min fair share of the sender's up link and the receiver's down
  // link (bandwidth 1/beta each); completing a receive costs its rank `overhead`. Sends of at most
  // eager_bytes complete when posted; longer ones when they arrive.
  fair_sharing,
};

struct CostModel {
  double alpha = 1.0e-6;  // seconds per message
  double beta = 1.0e-10;  // seconds per byte
  std::optional<double> gap{};  // ports: seconds a message holds its ports besides its bytes; unset: alpha
  Network network = Network::ports;
  double overhead = 0;          // fair_sharing: seconds of a rank's time per send posted, per receive completed
  std::size_t eager_bytes = 0;  // fair_sharing: largest send that completes when posted
  // Between two ranks of one node, where the figures above describe the network between nodes; unset: the
  // same. Only the node-aware algorithms tell the two apart.
  std::optional<double> node_alpha{};
  std::optional<double> node_beta{};

  double port_seconds() const noexcept { return gap.value_or(alpha); }
  // The model of messages within a node (Hockney's, with its own alpha and beta, when they are given).
  CostModel within_node() const noexcept {
    if (!node_alpha && !node_beta) return *this;
    CostModel m = *this;
    m.alpha = node_alpha.value_or(alpha);
    m.beta = node_beta.value_or(beta);
    m.gap.reset();
    m.node_alpha.reset();
    m.node_beta.reset();
    return m;
  }
};

struct Simulation {
  bool delivered = false;      // every rank ended with every byte, and every check passed
  std::string problem;         // the first check that failed, empty when delivered
  std::size_t messages = 0;    // point-to-point messages
  std::size_t bytes = 0;       // bytes on the wire
  std::size_t redundant_bytes = 0;  // bytes received by a rank that already had them
  std::size_t rounds = 0;      // completion time with alpha = 1, beta = 0: message hops on the critical path
  double predicted_seconds = 0;    // completion time under the cost model
  double lower_bound_seconds = 0;  // single-port bound max(ceil(log2 P) * alpha, n * beta); 0 if nothing moves
};

// Where the ranks run, for the fair-sharing network.
struct Platform {
  // Which ranks share a node, and so its links and memory: the platform's, whatever the algorithm reads (a
  // flat algorithm's schedule keeps no layout). Unknown (the default): the schedule's own nodes (nodes_of()),
  // and where that is one node, every rank a host of its own.
  NodeLayout hosts{};
  // A two-level fat tree, as SimGrid's FAT_TREE cluster "2;L,S;1,U;1,1" wires one: leaves of `leaf_nodes`
  // consecutive nodes (L), each linked once to each of `uplinks` top switches (U; L / U to 1 oversubscribed).
  // A message between leaves goes up to the top switch of its destination node's number modulo U and
  // crosses four links, so two alphas. 0: every node on one non-blocking switch.
  int leaf_nodes = 0;
  int uplinks = 0;
};

// Checks that sends and receives pair one to one (same peer order, same ranges), that no rank sends bytes
// it lacks, that the executor's order cannot deadlock, and that every rank receives every byte. The fair
// sharing network issues sends under `window`, as the MPI executor does, on `platform`.
Simulation simulate(const Schedule& schedule, const CostModel& model = {}, const SendWindow& window = {},
                    const Platform& platform = {});

}  // namespace herald
