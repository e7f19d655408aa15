#include <herald/algorithms.hpp>
#include <herald/coll_settings.hpp>
#include <herald/config.hpp>
#include <herald/error.hpp>
#include <herald/selector.hpp>

#include <gtest/gtest.h>

#include <cstdlib>

namespace herald {
namespace {

TEST(Config, ParsesByteCountsWithUnits) {
  EXPECT_EQ(parse_bytes("0"), 0u);
  EXPECT_EQ(parse_bytes("4093"), 4093u);
  EXPECT_EQ(parse_bytes("64K"), 65536u);
  EXPECT_EQ(parse_bytes("16m"), 16u << 20);
  EXPECT_EQ(parse_bytes("2GiB"), std::size_t{2} << 30);
}

TEST(Config, RejectsMalformedByteCounts) {
  for (const char* bad : {"", "K", "-1", "12Q", "1.5M", "99999999999999999999999"}) {
    try {
      parse_bytes(bad, "--sizes");
      FAIL() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::invalid_argument);
      EXPECT_NE(std::string(e.what()).find("--sizes"), std::string::npos);
    }
  }
}

TEST(Config, ReadsParametersFromTheEnvironment) {
  ::setenv("HERALD_SEGMENT_SIZE", "32K", 1);
  ::setenv("HERALD_KNOMIAL_RADIX", "8", 1);
  const Parameters p = parameters_from_environment();
  EXPECT_EQ(p.segment, 32768u);
  EXPECT_EQ(p.radix, 8);
  EXPECT_EQ(p.fanout, std::nullopt);
  ::setenv("HERALD_CHAIN_FANOUT", "two", 1);
  try {
    parameters_from_environment();
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("HERALD_CHAIN_FANOUT"), std::string::npos);
  }
  ::unsetenv("HERALD_SEGMENT_SIZE");
  ::unsetenv("HERALD_KNOMIAL_RADIX");
  ::unsetenv("HERALD_CHAIN_FANOUT");
  EXPECT_EQ(parameters_from_environment().leaders, std::nullopt);
  for (LeaderStage stage : leader_stages()) {
    ::setenv("HERALD_LEADER_STAGE", std::string(leader_stage_name(stage)).c_str(), 1);
    EXPECT_EQ(parameters_from_environment().leaders, stage);
  }
  ::setenv("HERALD_LEADER_STAGE", "ring", 1);
  try {
    parameters_from_environment();
    FAIL();
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("HERALD_LEADER_STAGE 'ring'"), std::string::npos) << what;
    EXPECT_NE(what.find("two_tree"), std::string::npos) << "names the choices: " << what;
  }
  ::unsetenv("HERALD_LEADER_STAGE");
}

TEST(Config, ReadsTheNodeShapeAndTheNodesCosts) {
  ::setenv("HERALD_RANKS_PER_NODE", "16", 1);
  EXPECT_EQ(parameters_from_environment().node_size, 16);
  for (const char* bad : {"0", "-2", "many"}) {
    ::setenv("HERALD_RANKS_PER_NODE", bad, 1);
    try {
      parameters_from_environment();
      ADD_FAILURE() << "HERALD_RANKS_PER_NODE=" << bad << " accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("HERALD_RANKS_PER_NODE"), std::string::npos) << e.what();
    }
  }
  ::unsetenv("HERALD_RANKS_PER_NODE");
  // The node's own costs over a base model (a tuning file's): the network's figures stay.
  ::setenv("HERALD_NODE_ALPHA", "3e-7", 1);
  ::setenv("HERALD_NODE_BETA", "1e-10", 1);
  const CostModel m = cost_model_from_environment({.alpha = 5e-6, .beta = 1e-9});
  EXPECT_DOUBLE_EQ(m.alpha, 5e-6);
  EXPECT_DOUBLE_EQ(m.within_node().alpha, 3e-7);
  EXPECT_DOUBLE_EQ(m.within_node().beta, 1e-10);
  ::setenv("HERALD_NODE_ALPHA", "fast", 1);
  EXPECT_THROW(cost_model_from_environment(), Error);
  ::unsetenv("HERALD_NODE_ALPHA");
  ::unsetenv("HERALD_NODE_BETA");
}

TEST(Config, ReadsTheCostModelFromTheEnvironment) {
  ::unsetenv("HERALD_GAP");
  ::setenv("HERALD_ALPHA", "2e-6", 1);
  ::setenv("HERALD_BETA", "8e-10", 1);
  CostModel m = cost_model_from_environment();
  EXPECT_DOUBLE_EQ(m.alpha, 2e-6);
  EXPECT_DOUBLE_EQ(m.beta, 8e-10);
  EXPECT_DOUBLE_EQ(m.port_seconds(), 2e-6);  // no gap given: Hockney's, alpha
  ::setenv("HERALD_GAP", "5e-8", 1);
  m = cost_model_from_environment();
  EXPECT_DOUBLE_EQ(m.port_seconds(), 5e-8);
  for (const char* bad : {"-1", "fast", "1e-6us"}) {
    ::setenv("HERALD_GAP", bad, 1);
    try {
      cost_model_from_environment();
      ADD_FAILURE() << "HERALD_GAP=" << bad << " accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("HERALD_GAP"), std::string::npos) << e.what();
    }
  }
  ::unsetenv("HERALD_GAP");
  ::unsetenv("HERALD_ALPHA");
  ::unsetenv("HERALD_BETA");
}

TEST(Config, ReadsTheFairNetworkAndTheSendWindow) {
  ::setenv("HERALD_NETWORK", "fair", 1);
  ::setenv("HERALD_OVERHEAD", "5e-7", 1);
  ::setenv("HERALD_EAGER_BYTES", "64K", 1);
  CostModel m = cost_model_from_environment();
  EXPECT_EQ(m.network, Network::fair_sharing);
  EXPECT_DOUBLE_EQ(m.overhead, 5e-7);
  EXPECT_EQ(m.eager_bytes, 65536u);
  ::setenv("HERALD_NETWORK", "infiniband", 1);
  EXPECT_THROW(cost_model_from_environment(), Error);
  for (const char* name : {"HERALD_NETWORK", "HERALD_OVERHEAD", "HERALD_EAGER_BYTES"}) ::unsetenv(name);

  EXPECT_EQ(send_window_from_environment(), (SendWindow{.per_rank = 1, .per_peer = 1}));
  ::setenv("HERALD_SENDS_IN_FLIGHT", "4", 1);
  EXPECT_EQ(send_window_from_environment(), (SendWindow{.per_rank = 4, .per_peer = 4}));
  ::setenv("HERALD_SENDS_PER_PEER", "1", 1);
  EXPECT_EQ(send_window_from_environment(), (SendWindow{.per_rank = 4, .per_peer = 1}));
  for (const char* bad : {"0", "-2", "many"}) {
    ::setenv("HERALD_SENDS_IN_FLIGHT", bad, 1);
    try {
      send_window_from_environment();
      ADD_FAILURE() << "HERALD_SENDS_IN_FLIGHT=" << bad << " accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("HERALD_SENDS_IN_FLIGHT"), std::string::npos) << e.what();
    }
  }
  ::unsetenv("HERALD_SENDS_IN_FLIGHT");
  ::unsetenv("HERALD_SENDS_PER_PEER");
}

TEST(Config, CallParametersWinOverFallback) {
  const Parameters p = merge({.segment = 10}, {.segment = 20, .fanout = 3, .leaders = LeaderStage::binary});
  EXPECT_EQ(p.segment, 10u);
  EXPECT_EQ(p.fanout, 3);
  EXPECT_EQ(p.leaders, LeaderStage::binary);
  EXPECT_EQ(merge({.leaders = LeaderStage::two_tree}, {.leaders = LeaderStage::binary}).leaders, LeaderStage::two_tree);
}

}  // namespace
}  // namespace herald

namespace herald {
namespace {

TEST(Config, ParsesSeconds) {
  EXPECT_DOUBLE_EQ(parse_seconds("2", "t"), 2.0);
  EXPECT_DOUBLE_EQ(parse_seconds("1.5e-6", "t"), 1.5e-6);
  EXPECT_DOUBLE_EQ(parse_seconds("0", "t"), 0.0);
  for (const char* bad : {"", "-1", "2s", "nan", "inf", "x"}) {
    try {
      parse_seconds(bad, "HERALD_RUNTIME_TIMEOUT");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::invalid_argument);
      EXPECT_NE(std::string(e.what()).find("HERALD_RUNTIME_TIMEOUT"), std::string::npos) << e.what();
    }
  }
}

TEST(Config, ParsesSwitches) {
  // One rule for every switch: these words in any case, nothing else.
  for (const char* on : {"1", "true", "yes", "on", "TRUE", "Yes", "oN"}) EXPECT_TRUE(parse_switch(on, "HERALD_RUNTIME_LOG")) << on;
  for (const char* off : {"0", "false", "no", "off", "FALSE", "No", "OFF"}) EXPECT_FALSE(parse_switch(off, "HERALD_RUNTIME_LOG")) << off;
  for (const char* bad : {"", "2", "y", "01", " 1", "1 ", "enable", "nope"}) {
    try {
      parse_switch(bad, "HERALD_RUNTIME_BCAST_SYNC");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::invalid_argument);
      const std::string what = e.what();
      EXPECT_NE(what.find("HERALD_RUNTIME_BCAST_SYNC '" + std::string(bad) + "' is not a switch"), std::string::npos) << what;
      EXPECT_NE(what.find("true/false, yes/no or on/off"), std::string::npos) << what;
    }
  }
}

TEST(Config, ReadsSwitchVariablesByTheOneRule) {
  ::unsetenv("HERALD_STATS");
  EXPECT_FALSE(environment_switch("HERALD_STATS"));
  EXPECT_TRUE(environment_switch("HERALD_STATS", true));
  ::setenv("HERALD_STATS", "On", 1);
  EXPECT_TRUE(environment_switch("HERALD_STATS"));
  ::setenv("HERALD_STATS", "no", 1);
  EXPECT_FALSE(environment_switch("HERALD_STATS", true));
  ::setenv("HERALD_STATS", "maybe", 1);
  EXPECT_THROW(environment_switch("HERALD_STATS"), Error);
  ::unsetenv("HERALD_STATS");
}

TEST(Config, ParsesCountLists) {
  EXPECT_EQ(parse_count_list("4", "-workers"), (std::vector<long long>{4}));
  EXPECT_EQ(parse_count_list("4,16,64", "-workers"), (std::vector<long long>{4, 16, 64}));
  for (const char* bad : {"", "4,", ",4", "4,,16", "4;16", "-1,2"}) {
    try {
      parse_count_list(bad, "-workers");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::invalid_argument);
      EXPECT_NE(std::string(e.what()).find("-workers"), std::string::npos) << e.what();
    }
  }
}

// Built-in models of typical machines: HERALD_PRESET picks one, the single variables still win, a tuning
// file's model (a base) is not replaced, and an unknown name is refused with the choices.
TEST(Config, CostPresets) {
  ASSERT_GE(cost_presets().size(), 5u);
  for (const CostPreset& p : cost_presets()) {
    ::setenv("HERALD_PRESET", p.name, 1);
    const CostModel m = cost_model_from_environment();
    EXPECT_DOUBLE_EQ(m.alpha, p.model.alpha) << p.name;
    EXPECT_DOUBLE_EQ(m.beta, p.model.beta) << p.name;
    EXPECT_GT(m.alpha, 0) << p.name;
    EXPECT_LT(m.beta, 1e-9) << p.name;  // faster than 1 GB/s
    EXPECT_LE(m.within_node().alpha, m.alpha) << p.name;  // shared memory is never slower than the network
    EXPECT_EQ(&cost_preset(p.name), &p);
  }
  // Every cluster preset names its typical node, a rank per core, with shared memory within it.
  for (const CostPreset& p : cost_presets()) {
    if (p.model.network != Network::fair_sharing) continue;
    EXPECT_GE(p.ranks_per_node, 8) << p.name;
    EXPECT_NE(std::string(p.node), "") << p.name;
    EXPECT_GT(p.model.node_alpha.value_or(0), 0) << p.name;
    EXPECT_GT(p.model.node_beta.value_or(0), 0) << p.name;
  }
  EXPECT_EQ(cost_preset("shared-memory").ranks_per_node, 0);
  ::setenv("HERALD_PRESET", "infiniband-hdr", 1);
  ::setenv("HERALD_ALPHA", "7e-6", 1);
  EXPECT_DOUBLE_EQ(cost_model_from_environment().alpha, 7e-6);
  EXPECT_DOUBLE_EQ(cost_model_from_environment().beta, cost_preset("infiniband-hdr").model.beta);
  ::unsetenv("HERALD_ALPHA");
  EXPECT_DOUBLE_EQ(cost_model_from_environment({.alpha = 5e-6, .beta = 1e-9}).alpha, 5e-6);
  ::setenv("HERALD_PRESET", "token-ring", 1);
  try {
    (void)cost_model_from_environment();
    ADD_FAILURE() << "an unknown preset was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("HERALD_PRESET 'token-ring' is not one of shared-memory, ethernet-10g"),
              std::string::npos)
        << e.what();
  }
  ::unsetenv("HERALD_PRESET");
  // Different machines, different choices: at 64 ranks and 1 MiB auto does not price them alike.
  const Problem problem{.ranks = 64, .root = 0, .bytes = 1 << 20, .parameters = {}};
  EXPECT_NE(choose_algorithm(problem, cost_preset("shared-memory").model).seconds,
            choose_algorithm(problem, cost_preset("ethernet-10g").model).seconds);
}

}  // namespace
}  // namespace herald
