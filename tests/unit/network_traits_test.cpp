// herald-tune's network traits: the line between ports and fair sharing, and what reaches the model.
#include "network_traits.hpp"

#include <gtest/gtest.h>

namespace herald::bench {
namespace {

// Round trips as each network would give them, for a small message of round trip `rtt` and a large one
// whose bytes take `bytes_time` beyond it: on ports the small one waits for the large one's bytes (plus
// up to a latency), sharing the link it is slowed by a little.
TEST(NetworkTraits, TellsPortsFromFairSharingAcrossLatencyAndBandwidth) {
  for (double rtt : {1e-7, 1e-6, 4e-6, 5e-5}) {
    for (double bytes_time : {10 * rtt, 100 * rtt, 1e4 * rtt}) {
      const double large = rtt + bytes_time;
      for (double extra : {0.0, 0.5 * rtt, rtt}) {
        EXPECT_EQ(network_from_delays(rtt, large + extra, large), Network::ports) << rtt << " " << bytes_time;
        EXPECT_EQ(network_from_delays(rtt, rtt + 0.1 * bytes_time + extra * 0.1, large), Network::fair_sharing)
            << rtt << " " << bytes_time;
      }
    }
  }
  // A small message that came sooner behind the large one than alone (noise) is fair sharing.
  EXPECT_EQ(network_from_delays(2e-6, 1.5e-6, 1e-3), Network::fair_sharing);
}

TEST(NetworkTraits, ApplyKeepsPortsWhereTheNetworkWasNotMeasured) {
  CostModel model{.alpha = 1e-6, .beta = 1e-10};
  apply({.overhead = 4e-8, .eager_bytes = 4096, .network = Network::fair_sharing, .sharing_measured = false}, model);
  EXPECT_EQ(model.network, Network::ports);
  EXPECT_DOUBLE_EQ(model.overhead, 4e-8);
  EXPECT_EQ(model.eager_bytes, 4096u);
  apply({.overhead = 1e-7, .eager_bytes = 65535, .network = Network::fair_sharing, .sharing_measured = true}, model);
  EXPECT_EQ(model.network, Network::fair_sharing);
  EXPECT_EQ(model.eager_bytes, 65535u);
  EXPECT_DOUBLE_EQ(model.alpha, 1e-6);
}

}  // namespace
}  // namespace herald::bench
