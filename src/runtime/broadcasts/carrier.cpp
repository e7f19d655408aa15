#include "strategy.hpp"

#include <herald/error.hpp>

namespace herald::runtime::detail {

std::unique_ptr<BroadcastCarrier> make_carrier(BroadcastStrategy strategy, const CarrierContext& context) {
  switch (strategy) {
    case BroadcastStrategy::p2p: return make_p2p(context);
    case BroadcastStrategy::dynbcast: return make_dynbcast(context);
    case BroadcastStrategy::mpibcast: return make_mpibcast(context, false);
    case BroadcastStrategy::mpibcast_herald: return make_mpibcast(context, true);
    case BroadcastStrategy::nobcast:
    case BroadcastStrategy::automatic: break;
  }
  throw Error(Errc::invalid_argument, "no carrier for broadcast strategy " + to_string(strategy));
}

BroadcastStrategy strategy_for(BroadcastStrategy setting, dyn::Endpoint* endpoint, const BroadcastOrder& b) {
  if (setting != BroadcastStrategy::automatic) return setting;
  const dyn::Shape shape = endpoint->shape(static_cast<int>(b.recipients.size()), b.bytes);
  return shape.algorithm == "linear" ? BroadcastStrategy::p2p : BroadcastStrategy::dynbcast;
}

void count_broadcast(Statistics& stats, const BroadcastOrder& b) {
  ++stats.broadcasts;
  stats.broadcast_recipients += b.recipients.size();
  stats.broadcast_bytes += b.bytes * b.recipients.size();
}

}  // namespace herald::runtime::detail
