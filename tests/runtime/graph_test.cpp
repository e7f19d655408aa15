// The graph as both controls record it at submission: the version each access resolves to and the task
// that made the version it reads, and the checks that refuse a task before anything is recorded.
#include "graph.hpp"

#include <herald/error.hpp>

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace herald::runtime::detail {
namespace {

auto named(const char* task) {
  return [task] { return std::string(task); };
}

TEST(GraphRecord, EachWriteMakesAVersionAndEachReadNamesItsMaker) {
  GraphRecord g;
  const auto a = g.add_handle(8, "A");
  const auto b = g.add_handle(16, "B");
  EXPECT_EQ(g.bytes(b), 16u);
  EXPECT_EQ(g.name(a), "A");
  EXPECT_FALSE(g.has_value(a));
  const Access write_a[] = {{a, Mode::out}};
  g.add_task(10, write_a, named("t10"));                          // A v1
  const Access read_a[] = {{a, Mode::in}};
  const auto r11 = g.add_task(11, read_a, named("t11"));          // reads A v1
  const Access update_a_write_b[] = {{a, Mode::inout}, {b, Mode::out}};
  const auto r12 = g.add_task(12, update_a_write_b, named("t12"));  // A v2, B v1
  const Access write_b[] = {{b, Mode::out}};
  g.add_task(13, write_b, named("t13"));                          // B v2
  ASSERT_EQ(r11.size(), 1u);
  EXPECT_EQ(r11[0].read, 1u);
  EXPECT_EQ(r11[0].maker, 10u);
  ASSERT_EQ(r12.size(), 2u);
  EXPECT_EQ(r12[0].read, 1u);
  EXPECT_EQ(r12[0].maker, 10u);
  EXPECT_EQ(r12[0].written, 2u);
  EXPECT_EQ(r12[1].written, 1u);
  EXPECT_EQ(g.version(a), 2u);
  EXPECT_EQ(g.version(b), 2u);
  EXPECT_EQ(g.maker(b), 13u);
  EXPECT_TRUE(g.has_value(b));
  // A commute use makes no version: its count of closed updates rides in `written`.
  const Access update[] = {{b, Mode::commute, 3}};
  const auto r14 = g.add_task(14, update, named("t14"));
  EXPECT_EQ(r14[0].written, 3u);
  EXPECT_EQ(g.version(b), 2u);
}

TEST(GraphRecord, RefusedTasksLeaveNoTrace) {
  GraphRecord g;
  const auto a = g.add_handle(4, "A");
  const Access read_a[] = {{a, Mode::in}};
  try {
    g.add_task(0, read_a, [] { return std::string("task 0 (kernel 'k')"); });
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("task 0 (kernel 'k'): data 'A' has no value yet"), std::string::npos) << e.what();
  }
  const Access twice[] = {{a, Mode::out}, {a, Mode::in}};
  EXPECT_THROW(g.add_task(0, twice, named("t")), Error);
  const Access unknown[] = {{a, Mode::out}, {7, Mode::out}};
  EXPECT_THROW(g.add_task(0, unknown, named("t")), Error);
  EXPECT_EQ(g.version(a), 0u);
}

// Against a plain model: a read resolves to the version the last earlier write of its handle made (its
// count of writes so far), made by that write's task; a write makes the next.
TEST(GraphRecord, RandomProgramsMatchTheDefinition) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 200; ++trial) {
    GraphRecord g;
    const std::uint32_t handles = 3;
    for (std::uint32_t h = 0; h < handles; ++h) g.add_handle(16, "h" + std::to_string(h));
    std::vector<std::vector<Access>> program;
    std::vector<bool> has_value(handles, false);
    for (std::uint64_t t = 0; t < 12; ++t) {
      std::vector<Access> accesses;
      for (std::uint32_t h = 0; h < handles; ++h) {
        const int m = static_cast<int>(rng() % 4);
        if (m == 3) continue;
        Mode mode = m == 0 ? Mode::in : m == 1 ? Mode::out : Mode::inout;
        if (reads(mode) && !has_value[h]) mode = Mode::out;
        accesses.push_back({h, mode});
      }
      for (const auto& a : accesses) has_value[a.handle] = has_value[a.handle] || writes(a.mode);
      const auto resolved = g.add_task(100 + t, accesses, named("t"));
      ASSERT_EQ(resolved.size(), accesses.size());
      for (std::size_t i = 0; i < accesses.size(); ++i) {
        const Access& a = accesses[i];
        std::uint32_t writes_before = 0;
        std::uint64_t last_writer = 0;
        for (std::uint64_t from = 0; from < t; ++from)
          for (const Access& b : program[from])
            if (b.handle == a.handle && writes(b.mode)) ++writes_before, last_writer = 100 + from;
        if (reads(a.mode)) {
          EXPECT_EQ(resolved[i].read, writes_before) << "trial " << trial;
          EXPECT_EQ(resolved[i].maker, last_writer) << "trial " << trial;
        }
        if (writes(a.mode)) {
          EXPECT_EQ(resolved[i].written, writes_before + 1) << "trial " << trial;
        }
      }
      program.push_back(accesses);
    }
  }
}

}  // namespace
}  // namespace herald::runtime::detail
