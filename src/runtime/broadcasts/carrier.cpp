#include "strategy.hpp"

#include "../link_plan.hpp"

#include <herald/algorithms.hpp>
#include <herald/error.hpp>

#include <algorithm>
#include <cstdio>
#include <span>
#include <string>

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

}  // namespace herald::runtime::detail
