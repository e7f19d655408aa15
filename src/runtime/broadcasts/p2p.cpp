// p2p: the root sends a copy to every recipient in turn, most urgent first (the plan ordered them), as
// data messages naming the broadcast; a recipient has nothing to prepare (the worker's data handler hands
// the copy on as landed).
#include "strategy.hpp"

#include <unordered_map>
#include <vector>

namespace herald::runtime::detail {
namespace {

class P2p final : public BroadcastCarrier {
 public:
  explicit P2p(const CarrierContext& c) : c_(c) {}

  void join(const BroadcastOrder& order) override {
    if (order.root != c_.rank) return;
    if (const Replica* replica = c_.worker.held(order.key)) return send(order, *replica);
    waiting_.add(order);
  }

  void arrived(const Key& key, const Replica& replica) override {
    for (const BroadcastOrder& order : waiting_.take(key)) send(order, replica);
  }

  bool poll() override { return false; }  // the channel's own progress moves the copies

 private:
  void send(const BroadcastOrder& order, const Replica& replica) {
    // The root's use of the version ends with its last copy.
    auto left = std::make_shared<std::size_t>(order.recipients.size());
    for (std::int32_t r : order.recipients)
      post(c_.channel, r, msg::Data{order.key, order.id, order.sync}, replica.bytes, 0,
           [this, order, keep = replica, left] {
             if (--*left == 0) c_.worker.sent(order);
           });
    c_.worker.sending(order);
  }

  CarrierContext c_;
  PendingRoots waiting_;
};

}  // namespace

std::unique_ptr<BroadcastCarrier> make_p2p(const CarrierContext& context) { return std::make_unique<P2p>(context); }

}  // namespace herald::runtime::detail
