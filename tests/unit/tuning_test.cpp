// Tuning files: the round trip, every refusal names the file and the problem, and the cell look-up.
#include <herald/error.hpp>
#include <herald/tuning.hpp>

#include <gtest/gtest.h>

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
  EXPECT_DOUBLE_EQ(back.intra_node.gap, 5e-8);
  EXPECT_FALSE(back.inter_node);
  ASSERT_EQ(back.cells.size(), 4u);
  EXPECT_EQ(back.cells[0].ranks, 2);  // sorted by (ranks, bytes)
  EXPECT_EQ(back.cells[2], t.cells[1]);
  EXPECT_EQ(back.cells[3], t.cells[3]);  // its leader stage too
  EXPECT_EQ(tuning_json(t).find("\"leaders\": \"chain\""), std::string::npos) << "only set stages are written";

  Tuning two = t;
  two.inter_node = CostModel{.alpha = 2e-6, .beta = 1e-9, .gap = 1e-7};
  EXPECT_DOUBLE_EQ(parse_tuning(tuning_json(two), "t.json").inter_node->alpha, 2e-6);
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
  EXPECT_EQ(find_cell(t, 3, 1024), nullptr);
  EXPECT_EQ(find_cell(t, 2, 1024)->algorithm, "native");
}

TEST(Tuning, LayoutMustMatch) {
  const TuningLayout file{.mpi_library = "Open MPI v4.1.4", .ranks = 4, .ranks_per_node = 4};
  EXPECT_FALSE(layout_mismatch(file, file));
  EXPECT_FALSE(layout_mismatch(file, {.mpi_library = "Open MPI v4.1.4", .ranks = 64, .ranks_per_node = 4}));
  EXPECT_FALSE(layout_mismatch(file, {.mpi_library = "Open MPI v4.1.4", .ranks = 2, .ranks_per_node = 0}));
  const auto other_mpi = layout_mismatch(file, {.mpi_library = "MPICH 4.0.2", .ranks = 4, .ranks_per_node = 4});
  ASSERT_TRUE(other_mpi);
  EXPECT_NE(other_mpi->find("MPICH 4.0.2"), std::string::npos);
  const auto unfillable = layout_mismatch(file, {.mpi_library = "Open MPI v4.1.4", .ranks = 10, .ranks_per_node = 4});
  ASSERT_TRUE(unfillable);
  EXPECT_NE(unfillable->find("10 ranks"), std::string::npos);
  // Every rank decides alike: the rank on a partly filled last node (2 of 4) sees what the others see.
  for (int own : {0, 2, 4})
    EXPECT_EQ(layout_mismatch(file, {.mpi_library = "Open MPI v4.1.4", .ranks = 10, .ranks_per_node = own}),
              unfillable);
}

}  // namespace
}  // namespace herald
