// dynbcast: herald's dynamic broadcast (dyn.md): the root sends along a routed, pipelined tree; every
// recipient posts an ordinary receive for it when its order comes.
#include "strategy.hpp"

#include <algorithm>
#include <unordered_map>
#include <vector>

namespace herald::runtime::detail {
namespace {

// dyn tags are non-negative ints; broadcasts in flight at once are far fewer than 2^31.
int dyn_tag(std::uint64_t broadcast) { return static_cast<int>(broadcast % 0x7fffffff); }

class DynBcast final : public BroadcastCarrier {
 public:
  explicit DynBcast(const CarrierContext& c) : c_(c) {}

  void join(const BroadcastOrder& order) override {
    if (order.root == c_.rank) {
      if (const Replica* replica = c_.worker.held(order.key)) return send(order, *replica);
      waiting_.add(order);
      return;
    }
    Replica replica = c_.worker.allocate(order.bytes);
    dyn::Request request = c_.endpoint->irecv(replica.bytes, order.root, dyn_tag(order.id));
    in_flight_.push_back({order, std::move(replica), false, std::move(request), false});
  }

  void arrived(const Key& key, const Replica& replica) override {
    for (const BroadcastOrder& order : waiting_.take(key)) send(order, replica);
  }

  bool poll() override {
    if (in_flight_.empty()) return false;
    // One polling pass of the endpoint serves every broadcast in flight: a worker holds the receives of all
    // the broadcasts its tasks will read, and a pass per request would cost as many passes as broadcasts.
    bool any = c_.endpoint->progress();
    for (std::size_t i = 0; i < in_flight_.size();) {
      if (!in_flight_[i].root && !in_flight_[i].handed && in_flight_[i].request.delivered()) {
        // The tasks here read the bytes as soon as they are in, while the forwards to this rank's sub-tree
        // still read them: the copy kept here holds the replica, so no task writes it in place meanwhile.
        in_flight_[i].handed = true;
        const BroadcastOrder order = in_flight_[i].order;
        c_.worker.landed(order, in_flight_[i].replica);  // may start broadcasts: in_flight_ may grow
        any = true;
      }
      if (!in_flight_[i].request.done()) {
        ++i;
        continue;
      }
      InFlight f = std::move(in_flight_[i]);
      in_flight_.erase(in_flight_.begin() + static_cast<std::ptrdiff_t>(i));
      if (f.root) c_.worker.sent(f.order);
      any = true;
    }
    return any;
  }

 private:
  struct InFlight {
    BroadcastOrder order;
    Replica replica;
    bool root;
    dyn::Request request;
    bool handed = false;  // a recipient's replica is the worker's already
  };

  void send(const BroadcastOrder& order, const Replica& replica) {
    std::vector<int> recipients(order.recipients.begin(), order.recipients.end());
    std::vector<int> priorities(order.priorities.begin(), order.priorities.end());
    dyn::Request request = c_.endpoint->send(replica.bytes, recipients, dyn_tag(order.id),
                                             {.priorities = priorities, .parents = order.parents});
    in_flight_.push_back({order, replica, true, std::move(request), false});
    c_.worker.sending(order);
  }

  CarrierContext c_;
  PendingRoots waiting_;
  std::vector<InFlight> in_flight_;
};

}  // namespace

std::unique_ptr<BroadcastCarrier> make_dynbcast(const CarrierContext& context) {
  return std::make_unique<DynBcast>(context);
}

}  // namespace herald::runtime::detail
