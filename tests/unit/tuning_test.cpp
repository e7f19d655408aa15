// Tuning files: the round trip, every refusal names the file and the problem, and the cell look-up.
#include <herald/error.hpp>
#include <herald/tuning.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>

namespace herald {
namespace {

Tuning sample() {
  Tuning t;
  t.layout = {.mpi_library = "Open MPI v4.1.4", .ranks = 4, .ranks_per_node = 4};
  t.intra_node = {.alpha = 3e-7, .beta = 1e-10, .gap = 5e-8};
  t.cells = {{.ranks = 4, .bytes = 1024, .algorithm = "binomial", .seconds = 1e-6, .native_seconds = 2e-6},
             {.ranks = 4,
              .bytes = 1 << 20,
              .algorithm = "chain",
              .parameters = {.segment = 65536, .fanout = 2},
              .seconds = 3e-4,
              .native_seconds = 4e-4},
             {.ranks = 2, .bytes = 1024, .algorithm = "native", .seconds = 1e-6, .native_seconds = 1e-6},
             {.ranks = 4,
              .bytes = 1 << 24,
              .algorithm = "node_pipeline",
              .parameters = {.segment = 131072, .leaders = LeaderStage::two_tree},
              .seconds = 3e-3,
              .native_seconds = 4e-3}};
  return t;
}

// Parses `text` expecting a refusal whose message contains `problem` and the file's name.
void expect_refused(const std::string& text, const std::string& problem) {
  try {
    parse_tuning(text, "site.json");
    ADD_FAILURE() << "accepted: " << text;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_argument);
    const std::string what = e.what();
    EXPECT_NE(what.find("site.json"), std::string::npos) << what;
    EXPECT_NE(what.find(problem), std::string::npos) << what;
  }
}

TEST(Tuning, RoundTrips) {
  const Tuning t = sample();
  const Tuning back = parse_tuning(tuning_json(t), "t.json");
  EXPECT_EQ(back.layout, t.layout);
  EXPECT_DOUBLE_EQ(back.intra_node.alpha, 3e-7);
  EXPECT_DOUBLE_EQ(back.intra_node.beta, 1e-10);
  EXPECT_DOUBLE_EQ(back.intra_node.gap.value(), 5e-8);
  EXPECT_FALSE(back.inter_node);
  ASSERT_EQ(back.cells.size(), 4u);
  EXPECT_EQ(back.cells[0].ranks, 2);  // sorted by (ranks, bytes)
  EXPECT_EQ(back.cells[2], t.cells[1]);
  EXPECT_EQ(back.cells[3], t.cells[3]);  // its leader stage too
  EXPECT_EQ(tuning_json(t).find("\"leaders\": \"chain\""), std::string::npos) << "only set stages are written";

  Tuning two = t;
  two.inter_node = CostModel{.alpha = 2e-6, .beta = 1e-9, .gap = 1e-7, .network = Network::fair_sharing,
                             .overhead = 4e-8, .eager_bytes = 65535};
  const Tuning back_two = parse_tuning(tuning_json(two), "t.json");
  EXPECT_DOUBLE_EQ(back_two.inter_node->alpha, 2e-6);
  EXPECT_EQ(back_two.inter_node->network, Network::fair_sharing);
  EXPECT_DOUBLE_EQ(back_two.inter_node->overhead, 4e-8);
  EXPECT_EQ(back_two.inter_node->eager_bytes, 65535u);
  EXPECT_EQ(back_two.intra_node.network, Network::ports);
}

// A file of an herald-tune that measured only alpha, beta and the gap reads as the ports network.
TEST(Tuning, ModelWithoutNetworkFieldsIsPorts) {
  nlohmann::json doc = nlohmann::json::parse(tuning_json(sample()));
  for (const char* field : {"network", "overhead", "eager_bytes"}) {
    ASSERT_TRUE(doc["model"]["intra_node"].contains(field)) << field;
    doc["model"]["intra_node"].erase(field);
  }
  const std::string text = doc.dump();
  ASSERT_EQ(text.find("overhead"), std::string::npos) << text;
  const Tuning back = parse_tuning(text, "old.json");
  EXPECT_EQ(back.intra_node.network, Network::ports);
  EXPECT_EQ(back.intra_node.overhead, 0.0);
  EXPECT_EQ(back.intra_node.eager_bytes, 0u);
  EXPECT_DOUBLE_EQ(back.intra_node.gap.value(), 5e-8);
}

TEST(Tuning, RefusesWhatItCannotUse) {
  std::string good = tuning_json(sample());
  const auto replaced = [&](const std::string& from, const std::string& to) {
    std::string text = good;
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return text.replace(at, from.size(), to);
  };
  expect_refused("{", "not JSON");
  expect_refused("[]", "not an object");
  expect_refused("{}", "no \"tuning_version\"");
  expect_refused(replaced("\"tuning_version\": 1", "\"tuning_version\": 2"), "version 2");
  expect_refused(replaced("\"algorithm\": \"chain\"", "\"algorithm\": \"fast\""), "'fast'");
  expect_refused(replaced("\"leaders\": \"two_tree\"", "\"leaders\": \"ring\""), "cells[3].leaders 'ring'");
  expect_refused(replaced("\"leaders\": \"two_tree\"", "\"leaders\": 2"), "leaders is not a string");
  expect_refused(replaced("\"alpha\": 3e-07", "\"alpha\": 0"), "alpha must be positive");
  expect_refused(replaced("\"alpha\": 3e-07", "\"alpha\": \"3\""), "alpha is not a number");
  expect_refused(replaced("\"network\": \"ports\"", "\"network\": \"ring\""), "network 'ring' is neither");
  expect_refused(replaced("\"eager_bytes\": 0", "\"eager_bytes\": -1"), "eager_bytes is not a non-negative");
  expect_refused(replaced("\"overhead\": 0.0", "\"overhead\": -1"), "overhead must be non-negative");
  expect_refused(replaced("\"ranks_per_node\": 4", "\"ranks_per_node\": -4"), "ranks_per_node");
  expect_refused(replaced("\"mpi_library\": \"Open MPI v4.1.4\",", ""), "no \"mpi_library\"");
  expect_refused(replaced("\"bytes\": 1048576", "\"bytes\": 1024"), "two cells for 4 ranks and 1024 bytes");
}

TEST(Tuning, FindsTheNearestCellWithinAFactorOfTwo) {
  const Tuning t = parse_tuning(tuning_json(sample()), "t.json");
  ASSERT_NE(find_cell(t, 4, 1024), nullptr);
  EXPECT_EQ(find_cell(t, 4, 1024)->algorithm, "binomial");
  EXPECT_EQ(find_cell(t, 4, 2047)->algorithm, "binomial");
  EXPECT_EQ(find_cell(t, 4, 512)->algorithm, "binomial");
  EXPECT_EQ(find_cell(t, 4, 600 * 1024)->algorithm, "chain");
  EXPECT_EQ(find_cell(t, 4, 511), nullptr);
  EXPECT_EQ(find_cell(t, 4, 64 * 1024), nullptr);
  EXPECT_EQ(find_cell(t, 2, 1024)->algorithm, "native");
  // No cells for 3 ranks: those of 4 (nearer in ratio than 2) speak for them; none within a factor of two
  // of 9 or of 1.
  ASSERT_NE(find_cell(t, 3, 1024), nullptr);
  EXPECT_EQ(find_cell(t, 3, 1024)->ranks, 4);
  EXPECT_EQ(find_cell(t, 8, 1024)->ranks, 4);
  EXPECT_EQ(find_cell(t, 9, 1024), nullptr);
  // The nearest rank count decides before the size: 3 ranks at 64 KiB find no 4-rank cell near that size,
  // and take no 2-rank one either.
  EXPECT_EQ(find_cell(t, 3, 64 * 1024), nullptr);
}

// Exhaustive over small shapes: a cell found is always of an applicable rank count within a factor of two,
// and of a size within a factor of two; none found means none such exists at the nearest rank count.
TEST(Tuning, CellsFoundAreNearestForEveryShape) {
  Tuning t = sample();
  t.layout.ranks_per_node = 2;
  t.layout.ranks = 8;
  t.inter_node = CostModel{.alpha = 2e-6, .beta = 1e-9};
  t.cells.push_back({.ranks = 8, .bytes = 4096, .algorithm = "binomial"});
  for (bool spans : {false, true})
    for (bool node_cells : {false, true}) {
      TuningFit fit;
      fit.spans_nodes = spans;
      fit.node_cells = node_cells;
      for (int ranks = 1; ranks <= 20; ++ranks)
        for (std::size_t bytes : {0, 1, 500, 1024, 3000, 4096, 10000, 1 << 20, 1 << 23, 1 << 25}) {
          const TuningCell* c = find_cell(t, fit, ranks, bytes);
          if (!c) continue;
          const bool within_a_node = c->ranks <= t.layout.ranks_per_node;
          EXPECT_TRUE(spans ? node_cells : within_a_node) << ranks << " ranks: a cell that does not apply";
          EXPECT_LE(c->ranks, 2 * ranks);
          EXPECT_GE(2 * c->ranks, ranks);
          EXPECT_LE(c->bytes, 2 * std::max<std::size_t>(bytes, 1));
          EXPECT_GE(2 * std::max<std::size_t>(c->bytes, 1), bytes);
          if (c->ranks == ranks) continue;
          for (const TuningCell& other : t.cells)  // no applicable cell of exactly this many ranks
            EXPECT_FALSE(other.ranks == ranks && (spans ? node_cells : other.ranks <= 2)) << ranks;
        }
    }
}

TEST(Tuning, OnlyAnotherMpiLibraryRefusesTheFile) {
  const TuningLayout file{.mpi_library = "Open MPI v4.1.4", .ranks = 4, .ranks_per_node = 4};
  EXPECT_FALSE(layout_mismatch(file, file));
  for (int ranks : {1, 2, 3, 5, 10, 64})
    for (int own : {0, 1, 2, 3, 4, 8})
      EXPECT_FALSE(layout_mismatch(file, {.mpi_library = "Open MPI v4.1.4", .ranks = ranks, .ranks_per_node = own}));
  const auto other_mpi = layout_mismatch(file, {.mpi_library = "MPICH 4.0.2", .ranks = 4, .ranks_per_node = 4});
  ASSERT_TRUE(other_mpi);
  EXPECT_NE(other_mpi->find("MPICH 4.0.2"), std::string::npos);
  EXPECT_NE(other_mpi->find("Open MPI v4.1.4"), std::string::npos);
}

bool says(const TuningFit& fit, const std::string& words) {
  for (const std::string& note : fit.unused)
    if (note.find(words) != std::string::npos) return true;
  return false;
}

// A file measured by herald-tune at 2 ranks on one node serves the jobs of that machine.
TEST(Tuning, OneNodeFileFitsEveryJob) {
  Tuning t;
  t.layout = {.mpi_library = "Open MPI v4.1.4", .ranks = 2, .ranks_per_node = 2};
  t.intra_node = {.alpha = 3e-7, .beta = 1e-10};
  t.cells = {{.ranks = 2, .bytes = 1024, .algorithm = "node_shared"}};
  // 3 ranks on the node: the 2-rank cells, said once.
  TuningFit fit = fit_tuning(t, {.mpi_library = "Open MPI v4.1.4", .ranks = 3, .ranks_per_node = 3});
  EXPECT_FALSE(fit.spans_nodes);
  ASSERT_NE(find_cell(t, fit, 3, 1024), nullptr);
  EXPECT_TRUE(says(fit, "no cells for 3 ranks: auto takes those for 2 ranks")) << fit.unused.size();
  // The exact shape: nothing to say.
  fit = fit_tuning(t, {.mpi_library = "Open MPI v4.1.4", .ranks = 2, .ranks_per_node = 2});
  EXPECT_TRUE(fit.unused.empty());
  EXPECT_NE(find_cell(t, fit, 2, 1024), nullptr);
  // 8 ranks on the node: no cell near enough, the model prices.
  fit = fit_tuning(t, {.mpi_library = "Open MPI v4.1.4", .ranks = 8, .ranks_per_node = 8});
  EXPECT_EQ(find_cell(t, fit, 8, 1024), nullptr);
  EXPECT_TRUE(says(fit, "no cells within a factor of two of 8 ranks"));
  // Across nodes (4 per node, the last partly filled at 10 ranks): no network model, no node size from a
  // one-node file, no cells; every rank, whatever its own node holds, decides alike.
  for (int own : {4, 2}) {
    fit = fit_tuning(t, {.mpi_library = "Open MPI v4.1.4", .ranks = 10, .ranks_per_node = own});
    EXPECT_TRUE(fit.spans_nodes);
    EXPECT_EQ(find_cell(t, fit, 2, 1024), nullptr);
    EXPECT_TRUE(says(fit, "no model of the network"));
  }
  // The launcher says nothing: the file's ranks per node decide.
  EXPECT_FALSE(fit_tuning(t, {.mpi_library = "Open MPI v4.1.4", .ranks = 2, .ranks_per_node = 0}).spans_nodes);
  EXPECT_TRUE(fit_tuning(t, {.mpi_library = "Open MPI v4.1.4", .ranks = 3, .ranks_per_node = 0}).spans_nodes);
}

// A file measured across nodes: jobs laid out as it was take its node size and all its cells.
TEST(Tuning, FileAcrossNodesFitsJobsLaidOutAlike) {
  Tuning t;
  t.layout = {.mpi_library = "Open MPI v4.1.4", .ranks = 16, .ranks_per_node = 4};
  t.intra_node = {.alpha = 3e-7, .beta = 1e-10};
  t.inter_node = CostModel{.alpha = 2e-6, .beta = 1e-9};
  t.cells = {{.ranks = 2, .bytes = 1024, .algorithm = "binomial"}, {.ranks = 16, .bytes = 1024, .algorithm = "chain"}};
  for (int own : {4, 0}) {
    const TuningFit fit = fit_tuning(t, {.mpi_library = "Open MPI v4.1.4", .ranks = 16, .ranks_per_node = own});
    EXPECT_TRUE(fit.spans_nodes);
    EXPECT_TRUE(fit.unused.empty());
    EXPECT_EQ(find_cell(t, fit, 16, 1024)->algorithm, "chain");
  }
  // 10 ranks cannot be laid out as whole nodes of 4: the model prices, the nodes are found by herald.
  for (int own : {4, 2}) {
    const TuningFit fit = fit_tuning(t, {.mpi_library = "Open MPI v4.1.4", .ranks = 10, .ranks_per_node = own});
    EXPECT_TRUE(fit.spans_nodes);
    EXPECT_EQ(find_cell(t, fit, 10, 1024), nullptr);
    EXPECT_TRUE(says(fit, "measured with 4 ranks per node"));
  }
  // A one-node job of 2 ranks takes the cells measured within a node only.
  const TuningFit one = fit_tuning(t, {.mpi_library = "Open MPI v4.1.4", .ranks = 2, .ranks_per_node = 2});
  EXPECT_FALSE(one.spans_nodes);
  EXPECT_EQ(find_cell(t, one, 2, 1024)->algorithm, "binomial");
  const TuningFit three = fit_tuning(t, {.mpi_library = "Open MPI v4.1.4", .ranks = 3, .ranks_per_node = 3});
  EXPECT_EQ(find_cell(t, three, 3, 1024)->algorithm, "binomial");
}

}  // namespace
}  // namespace herald
