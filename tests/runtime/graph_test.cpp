// Dependencies inferred from access modes, and the versions each access resolves to.
#include "graph.hpp"

#include <herald/error.hpp>

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <tuple>

namespace herald::runtime::detail {
namespace {

using Kind = DependenceKind;

std::set<std::tuple<std::size_t, std::size_t, std::uint32_t, Kind>> as_set(const std::vector<Dependence>& d) {
  std::set<std::tuple<std::size_t, std::size_t, std::uint32_t, Kind>> s;
  for (const auto& x : d) s.insert({x.from, x.to, x.handle, x.kind});
  return s;
}

TEST(Dependencies, ReadAfterWriteWriteAfterReadWriteAfterWrite) {
  DependencyTracker g;
  const auto a = g.add_handle(8, "A");
  const auto b = g.add_handle(8, "B");
  std::vector<Dependence> deps;
  const Access write_a[] = {{a, Mode::out}};
  g.add_task(0, write_a, deps, "t0");                      // A v1
  const Access read_a[] = {{a, Mode::in}};
  g.add_task(1, read_a, deps, "t1");                       // reads A v1
  g.add_task(2, read_a, deps, "t2");                       // reads A v1
  const Access update_a_write_b[] = {{a, Mode::inout}, {b, Mode::out}};
  auto r3 = g.add_task(3, update_a_write_b, deps, "t3");   // A v2, B v1
  const Access write_b[] = {{b, Mode::out}};
  g.add_task(4, write_b, deps, "t4");                      // B v2 over B v1 nobody read
  const auto expected = std::set<std::tuple<std::size_t, std::size_t, std::uint32_t, Kind>>{
      {0, 1, a, Kind::read_after_write}, {0, 2, a, Kind::read_after_write}, {0, 3, a, Kind::read_after_write},
      {1, 3, a, Kind::write_after_read}, {2, 3, a, Kind::write_after_read}, {3, 4, b, Kind::write_after_write}};
  EXPECT_EQ(as_set(deps), expected);
  EXPECT_EQ(deps.size(), expected.size());
  ASSERT_EQ(r3.size(), 2u);
  EXPECT_EQ(r3[0].read, 1u);
  EXPECT_EQ(r3[0].written, 2u);
  EXPECT_EQ(r3[1].written, 1u);
  EXPECT_EQ(g.version(a), 2u);
  EXPECT_EQ(g.version(b), 2u);
  EXPECT_EQ(g.writer(b), 4u);
}

TEST(Dependencies, RefusedTasksLeaveNoTrace) {
  DependencyTracker g;
  const auto a = g.add_handle(4, "A");
  std::vector<Dependence> deps;
  const Access read_a[] = {{a, Mode::in}};
  try {
    g.add_task(0, read_a, deps, "task 0 (kernel 'k')");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("task 0 (kernel 'k'): data 'A' has no value yet"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("task 0 (kernel 'k')"), std::string::npos);
  }
  const Access twice[] = {{a, Mode::out}, {a, Mode::in}};
  EXPECT_THROW(g.add_task(0, twice, deps, "t"), Error);
  const Access unknown[] = {{a, Mode::out}, {7, Mode::out}};
  EXPECT_THROW(g.add_task(0, unknown, deps, "t"), Error);
  EXPECT_EQ(g.version(a), 0u);
  EXPECT_TRUE(deps.empty());
}

// Against a plain model: a task depends on an earlier one through handle h exactly when one of them
// writes h and no write to h lies between them, except that a write after a write that was read is
// ordered through its readers only.
TEST(Dependencies, RandomProgramsMatchTheDefinition) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 200; ++trial) {
    DependencyTracker g;
    const std::uint32_t handles = 3;
    for (std::uint32_t h = 0; h < handles; ++h) g.add_handle(16, "h" + std::to_string(h));
    std::vector<std::vector<Access>> program;
    std::vector<Dependence> deps;
    std::vector<bool> has_value(handles, false);
    for (std::size_t t = 0; t < 12; ++t) {
      std::vector<Access> accesses;
      for (std::uint32_t h = 0; h < handles; ++h) {
        const int m = static_cast<int>(rng() % 4);
        if (m == 3) continue;
        Mode mode = m == 0 ? Mode::in : m == 1 ? Mode::out : Mode::inout;
        if (reads(mode) && !has_value[h]) mode = Mode::out;
        accesses.push_back({h, mode});
      }
      for (const auto& a : accesses) has_value[a.handle] = has_value[a.handle] || writes(a.mode);
      g.add_task(t, accesses, deps, "t");
      program.push_back(accesses);
    }
    std::set<std::tuple<std::size_t, std::size_t, std::uint32_t, Kind>> expected;
    for (std::size_t to = 0; to < program.size(); ++to) {
      for (const auto& a : program[to]) {
        // Walk back to the previous write of this handle.
        std::vector<std::size_t> readers;
        for (std::size_t from = to; from-- > 0;) {
          Mode mode{};
          bool uses = false;
          for (const auto& b : program[from])
            if (b.handle == a.handle) mode = b.mode, uses = true;
          if (!uses) continue;
          if (writes(mode)) {
            if (reads(a.mode)) expected.insert({from, to, a.handle, Kind::read_after_write});
            else if (readers.empty()) expected.insert({from, to, a.handle, Kind::write_after_write});
            break;
          }
          readers.push_back(from);
          if (writes(a.mode)) expected.insert({from, to, a.handle, Kind::write_after_read});
        }
      }
    }
    EXPECT_EQ(as_set(deps), expected) << "trial " << trial;
    EXPECT_EQ(deps.size(), expected.size());
  }
}

}  // namespace
}  // namespace herald::runtime::detail
