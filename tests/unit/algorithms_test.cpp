// Every algorithm in the table, over many rank counts, roots and sizes: the simulator must see every byte
// delivered, with no send ahead of its data and no deadlock.
#include <herald/algorithms.hpp>
#include <herald/error.hpp>
#include <herald/simulator.hpp>

#include <gtest/gtest.h>

#include <charconv>
#include <cstdlib>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace herald {
namespace {

// Sizes that catch off-by-one chunking: 0, 1, P-1, P, P+1, a prime, and a few segment-sized ones.
std::vector<std::size_t> sizes_for(int P) {
  std::set<std::size_t> s{0, 1, static_cast<std::size_t>(P - 1), static_cast<std::size_t>(P),
                          static_cast<std::size_t>(P + 1), 4093, 65539};
  return {s.begin(), s.end()};
}

// All roots where that is cheap; the roots that catch mapping bugs elsewhere.
std::vector<int> roots_for(int P) {
  if (P <= 24) {
    std::vector<int> all(P);
    for (int r = 0; r < P; ++r) all[r] = r;
    return all;
  }
  return {0, 1, P / 2, P - 1};
}

// The sweep's largest rank count: 130, or HERALD_TEST_SWEEP_RANKS where a build runs the same sweep again for
// another check (CI's sanitizer stage, where each step costs ten times as much and the code is the same).
int sweep_ranks() {
  const char* text = std::getenv("HERALD_TEST_SWEEP_RANKS");
  if (text == nullptr) return 130;
  const std::string_view value(text);
  int ranks = 0;
  const auto [end, problem] = std::from_chars(value.data(), value.data() + value.size(), ranks);
  if (problem != std::errc{} || end != value.data() + value.size() || ranks < 1)
    throw std::invalid_argument("HERALD_TEST_SWEEP_RANKS must be a positive count, not '" + std::string(value) + "'");
  return ranks;
}

class EveryAlgorithm : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryAlgorithm, DeliversForEveryShape) {
  const AlgorithmInfo& a = find_algorithm(GetParam());
  const int largest = sweep_ranks();
  for (int P = 1; P <= largest; ++P)
    for (int root : roots_for(P))
      for (std::size_t bytes : sizes_for(P)) {
        Problem problem{.ranks = P, .root = root, .bytes = bytes};
        if (a.reads_segment) problem.parameters.segment = 1000;  // many segments, odd size
        const Simulation sim = simulate(make_schedule(a, problem));
        ASSERT_TRUE(sim.delivered) << a.name << " P=" << P << " root=" << root << " bytes=" << bytes << ": "
                                   << sim.problem;
        if (bytes == 0 || P == 1) {
          EXPECT_EQ(sim.messages, 0u) << a.name << " P=" << P;
        }
        EXPECT_GE(sim.bytes, bytes * (P - 1)) << a.name;
      }
}

// The messages a rank exchanges (with whom, in which order) depend on the count only through the number of
// segments: ranks that passed different counts (an erroneous program) then exchange the same messages, and
// each receive that comes short or long is reported rather than waited for. One segment here, any count.
TEST_P(EveryAlgorithm, MessagesWithinOneSegmentDoNotDependOnTheCount) {
  const AlgorithmInfo& a = find_algorithm(GetParam());
  auto shape = [](const Program& program) {
    std::vector<std::pair<Step::Op, int>> out;
    for (const Step& step : program) out.emplace_back(step.op, step.peer);
    return out;
  };
  constexpr std::size_t segment = 4096;
  for (int P = 1; P <= 40; ++P)
    for (int root : {0, 1 % P, P - 1}) {
      Problem problem{.ranks = P, .root = root, .bytes = segment};
      problem.parameters.segment = segment;
      const Schedule full = make_schedule(a, problem);
      for (std::size_t bytes : {std::size_t{1}, std::size_t{2}, static_cast<std::size_t>(P - 1),
                                static_cast<std::size_t>(P + 1), segment - 1}) {
        if (bytes == 0) continue;
        problem.bytes = bytes;
        const Schedule small = make_schedule(a, problem);
        for (int r = 0; r < P; ++r)
          ASSERT_EQ(shape(small.programs[r]), shape(full.programs[r]))
              << a.name << " P=" << P << " root=" << root << " rank " << r << ": " << bytes << " against "
              << segment << " bytes";
      }
    }
}

TEST_P(EveryAlgorithm, DeliversWithDefaultParameters) {
  const AlgorithmInfo& a = find_algorithm(GetParam());
  for (int P : {1, 2, 3, 4, 5, 7, 8, 16, 33, 64})
    for (int root : {0, P - 1})
      for (std::size_t bytes : {std::size_t{0}, std::size_t{1}, std::size_t{12288}, std::size_t{524289},
                                std::size_t{4 << 20}}) {
        const Simulation sim = simulate(make_schedule(a, {.ranks = P, .root = root, .bytes = bytes}));
        ASSERT_TRUE(sim.delivered) << a.name << " P=" << P << " bytes=" << bytes << ": " << sim.problem;
        EXPECT_GE(sim.predicted_seconds, sim.lower_bound_seconds * (1 - 1e-9)) << a.name << " P=" << P;
      }
}

// Above 2^31 bytes no MPI message may exceed INT_MAX bytes: the schedule splits long steps.
TEST_P(EveryAlgorithm, SplitsMessagesAboveIntMax) {
  const AlgorithmInfo& a = find_algorithm(GetParam());
  const std::size_t bytes = (std::size_t{1} << 31) + 12345;
  for (int P : {2, 3, 5}) {
    const Schedule s = make_schedule(a, {.ranks = P, .root = P - 1, .bytes = bytes});
    for (const Program& program : s.programs)
      for (const Step& step : program) ASSERT_LE(step.range.length, max_message_bytes) << a.name;
    const Simulation sim = simulate(s);
    ASSERT_TRUE(sim.delivered) << a.name << " P=" << P << ": " << sim.problem;
  }
}

TEST_P(EveryAlgorithm, RejectsBadProblems) {
  const AlgorithmInfo& a = find_algorithm(GetParam());
  try {
    make_schedule(a, {.ranks = 4, .root = 4, .bytes = 8});
    FAIL() << "root 4 of 4 accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_root);
    EXPECT_NE(std::string(e.what()).find("root 4"), std::string::npos) << e.what();
  }
  EXPECT_THROW(make_schedule(a, {.ranks = 0, .root = 0, .bytes = 8}), Error);
  EXPECT_THROW(make_schedule(a, {.ranks = 4, .root = -1, .bytes = 8}), Error);
}

// A parameter given is a parameter meant: one out of range is refused by name, by every algorithm (read or
// not), where unset (std::nullopt) takes the default; nothing means "default" by being zero.
TEST_P(EveryAlgorithm, RefusesParametersOutOfRangeByName) {
  const AlgorithmInfo& a = find_algorithm(GetParam());
  const std::pair<Parameters, const char*> bad[] = {{{.segment = 0}, "segment size 0"},
                                                    {{.fanout = 0}, "fan-out 0"},
                                                    {{.fanout = -2}, "fan-out -2"},
                                                    {{.radix = 1}, "radix 1"},
                                                    {{.radix = 0}, "radix 0"},
                                                    {{.node_size = 0}, "node size 0"},
                                                    {{.leaders = static_cast<LeaderStage>(0)}, "leader stage 0"}};
  for (const auto& [parameters, named] : bad) {
    try {
      make_schedule(a, {.ranks = 4, .root = 0, .bytes = 64, .parameters = parameters});
      ADD_FAILURE() << a.name << " accepted " << named;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::invalid_argument) << e.what();
      EXPECT_NE(std::string(e.what()).find(named), std::string::npos) << e.what();
    }
  }
  for (const Parameters& fine : {Parameters{.segment = 1}, Parameters{.fanout = 1}, Parameters{.radix = 2},
                                 Parameters{.node_size = 1}, Parameters{.leaders = LeaderStage::binomial}})
    EXPECT_TRUE(simulate(make_schedule(a, {.ranks = 4, .root = 0, .bytes = 64, .parameters = fine})).delivered)
        << a.name;
}

// Every root, every P up to 130: the schedule for root r is the one for root 0 with every rank renamed
// r + rank (mod P). Delivery does not depend on names, so this extends the simulations above (all roots only
// up to P = 24) to every root, at the cost of generating the schedules.
TEST_P(EveryAlgorithm, EveryRootIsRootZeroRenamed) {
  const AlgorithmInfo& a = find_algorithm(GetParam());
  for (int P = 2; P <= 130; ++P)
    for (std::size_t bytes : {std::size_t{1}, std::size_t{4093}}) {
      Problem problem{.ranks = P, .root = 0, .bytes = bytes};
      if (a.reads_segment) problem.parameters.segment = 1000;
      std::vector<Program> base;
      for (int v = 0; v < P; ++v) base.push_back(make_program(a, problem, v));
      for (int root = 1; root < P; ++root) {
        problem.root = root;
        for (int rank = 0; rank < P; ++rank) {
          Program expected = base[(rank - root + P) % P];
          for (Step& step : expected) step.peer = (step.peer + root) % P;
          ASSERT_EQ(make_program(a, problem, rank), expected)
              << a.name << " P=" << P << " root=" << root << " rank=" << rank << " bytes=" << bytes;
        }
      }
    }
}

std::vector<std::string> all_names() {
  std::vector<std::string> names;
  for (const AlgorithmInfo& a : algorithms()) names.emplace_back(a.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Table, EveryAlgorithm, ::testing::ValuesIn(all_names()),
                         [](const auto& info) { return info.param; });

TEST(AlgorithmTable, UnknownNameListsTheKnownOnes) {
  try {
    find_algorithm("bogus");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::unknown_algorithm);
    EXPECT_NE(std::string(e.what()).find("binomial"), std::string::npos);
  }
}

TEST(Binomial, ReachesEveryRankInCeilLog2Rounds) {
  const AlgorithmInfo& a = find_algorithm("binomial");
  for (int P = 1; P <= 300; ++P) {
    const Simulation sim = simulate(make_schedule(a, {.ranks = P, .root = P / 3, .bytes = 64}));
    std::size_t log2 = 0;
    while ((1 << log2) < P) ++log2;
    ASSERT_EQ(sim.rounds, log2) << "P=" << P;
    ASSERT_EQ(sim.messages, static_cast<std::size_t>(P - 1));
  }
}

TEST(Linear, TakesPMinusOneRoundsAndMessages) {
  for (int P = 1; P <= 40; ++P) {
    const Simulation sim = simulate(make_schedule(find_algorithm("linear"), {.ranks = P, .root = 0, .bytes = 5}));
    EXPECT_EQ(sim.rounds, static_cast<std::size_t>(P - 1));
    EXPECT_EQ(sim.messages, static_cast<std::size_t>(P - 1));
  }
}

}  // namespace
}  // namespace herald
