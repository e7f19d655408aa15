// A broadcast strategy: how a version that tasks on several processes read gets from its root to its
// recipients, seen from one process taking part (docs/runtime.md, "Broadcasts"). The worker gives each
// strategy the orders of the broadcasts it takes part in, in id order, tells it when a version becomes
// held here, and polls it; the strategy tells the worker when a recipient's copy has landed and when the
// root's part is done. Adding a strategy touches this folder and the option that names it
// (herald/runtime/broadcast.hpp).
#pragma once

#include "../coordinator.hpp"
#include "../data_plan.hpp"
#include "../forwarding.hpp"
#include "../protocol/post.hpp"
#include "ordering.hpp"
#include "../store.hpp"

#include <herald/dyn/endpoint.hpp>
#include <herald/runtime/runtime.hpp>

#include <herald/dyn/channel.hpp>

#include <mpi.h>

#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

namespace herald::runtime::detail {

// The worker, as the strategies see it.
class Participant {
 public:
  virtual ~Participant() = default;
  virtual const Replica* held(const Key& key) const = 0;
  // Room for a copy of `bytes` bytes landing here.
  virtual Replica allocate(std::size_t bytes) = 0;
  // A recipient's copy is here.
  virtual void landed(const BroadcastOrder& order, Replica replica) = 0;
  // The root has started sending, from a copy of the replica the carrier keeps until its last byte: its
  // use of the version is counted now. (Counted at the end instead, a broadcast of an earlier batch could
  // take a use of the next batch's budget and drop the replica before a read that budget counts.)
  virtual void sending(const BroadcastOrder& order) = 0;
  // The root has sent its last byte.
  virtual void sent(const BroadcastOrder& order) = 0;
};

class BroadcastCarrier {
 public:
  virtual ~BroadcastCarrier() = default;
  // This process roots `order` or receives it. Orders come in the order of their ids on every process.
  virtual void join(const BroadcastOrder& order) = 0;
  // Version `key` is held here now: a root waiting for it may send.
  virtual void arrived(const Key& key, const Replica& replica) = 0;
  // Advances what is in flight; true if anything moved.
  virtual bool poll() = 0;
};

struct CarrierContext {
  Participant& worker;
  dyn::Channel& channel;     // the runtime's active messages (p2p)
  dyn::Endpoint* endpoint;   // dynbcast
  MPI_Comm groups;           // the parent of mpibcast's communicators (every process)
  int rank;
};

// Broadcasts rooted here whose version is not made yet, by version: sent once it is (arrived()).
class PendingRoots {
 public:
  void add(const BroadcastOrder& order) { waiting_[order.key].push_back(order); }
  // The orders waiting for `key`, removed.
  std::vector<BroadcastOrder> take(const Key& key) {
    const auto it = waiting_.find(key);
    if (it == waiting_.end()) return {};
    std::vector<BroadcastOrder> orders = std::move(it->second);
    waiting_.erase(it);
    return orders;
  }

 private:
  std::unordered_map<Key, std::vector<BroadcastOrder>, KeyHash> waiting_;
};

// The carrier of a strategy (never nobcast or automatic, which the plan resolves before).
std::unique_ptr<BroadcastCarrier> make_carrier(BroadcastStrategy strategy, const CarrierContext& context);

std::unique_ptr<BroadcastCarrier> make_p2p(const CarrierContext& context);
std::unique_ptr<BroadcastCarrier> make_dynbcast(const CarrierContext& context);
// mpibcast (MPI_Ibcast) or, with `herald`, mpibcast:herald (herald's own ibcast, "auto").
std::unique_ptr<BroadcastCarrier> make_mpibcast(const CarrierContext& context, bool herald);

}  // namespace herald::runtime::detail
