// Commutative updates through the task runtime over real MPI processes (both controls: the test runs
// twice): one update at a time, each exactly once, in the order they become ready.
#include <herald/error.hpp>
#include <herald/runtime/runtime.hpp>

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

namespace herald::runtime {
namespace {

bool reads_here(const Runtime& rt) { return rt.control() == Control::replicated || rt.is_head(); }

// A log: element 0 counts the updates, the next ones hold their ids in the order they ran. An update that
// ran beside another on a copy of the value would lose the other's entry; the updates take a few
// milliseconds, so that updates not kept apart would overlap.
void register_kernels(Runtime& rt) {
  rt.kernel("append", [](TaskContext& t) {
    auto log = t.inout<std::int64_t>(0);
    const auto n = static_cast<std::size_t>(++log[0]);
    if (n >= log.size()) throw Error(Errc::invalid_argument, "the log is full");
    log[n] = t.argument<std::int64_t>();
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
  });
  rt.kernel("append_both", [](TaskContext& t) {
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
    for (std::size_t a = 0; a < 2; ++a) {
      auto log = t.inout<std::int64_t>(a);
      const auto n = static_cast<std::size_t>(++log[0]);
      if (n >= log.size()) throw Error(Errc::invalid_argument, "the log is full");
      log[n] = t.argument<std::int64_t>();
    }
  });
  rt.kernel("mark", [](TaskContext& t) {
    for (std::int64_t& v : t.inout<std::int64_t>(0).subspan(1)) v = v == 0 ? 0 : v + 1000;
  });
}

// The ids 1..n each logged once, in any order.
void expect_each_once(std::span<const std::int64_t> log, std::int64_t first, std::int64_t n) {
  ASSERT_EQ(log[0], n);
  std::vector<std::int64_t> ids(log.begin() + 1, log.begin() + 1 + n);
  std::sort(ids.begin(), ids.end());
  for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(ids[static_cast<std::size_t>(i)], first + i);
}

class EveryScheduler : public ::testing::TestWithParam<Scheduler> {};
INSTANTIATE_TEST_SUITE_P(Commute, EveryScheduler,
                         ::testing::Values(Scheduler::mapped, Scheduler::owner, Scheduler::heft, Scheduler::round_robin),
                         [](const auto& info) { return std::string(to_string(info.param)); });

TEST_P(EveryScheduler, EveryUpdateRunsOnceAndAloneAcrossRuns) {
  Options options;
  options.scheduler = GetParam();
  options.threads = 2;
  Runtime rt(MPI_COMM_WORLD, options);
  register_kernels(rt);
  std::vector<std::int64_t> log(64, 0);
  const std::int64_t n = 4 * rt.size() + 3;
  std::vector<std::int64_t> middle;
  rt.run([&](Head& head) {
    auto x = head.data(std::span(log), "log");
    head.enter(x);
    for (std::int64_t i = 1; i <= n; ++i)
      head.submit("append", {commute(x)}, arguments(i), {.worker = static_cast<int>(i % head.workers())});
    head.read(x);  // closes the run
    head.wait();
    if (reads_here(rt)) middle = log;
    head.submit("mark", {inout(x)}, {}, {.worker = 0});  // an ordinary update between two runs: after the first, before the second
    for (std::int64_t i = n + 1; i <= 2 * n; ++i)
      head.submit("append", {commute(x)}, arguments(i), {.worker = static_cast<int>(i % head.workers())});
    head.exit(x);
    head.wait();
  });
  if (!reads_here(rt)) return;
  expect_each_once(middle, 1, n);
  // The first run's ids, marked, then the second run's.
  ASSERT_EQ(log[0], 2 * n);
  for (std::int64_t k = 1; k <= n; ++k) ASSERT_EQ(log[static_cast<std::size_t>(k)], middle[static_cast<std::size_t>(k)] + 1000);
  std::vector<std::int64_t> second(log.begin() + 1 + n, log.begin() + 1 + 2 * n);
  std::sort(second.begin(), second.end());
  for (std::int64_t k = 0; k < n; ++k) ASSERT_EQ(second[static_cast<std::size_t>(k)], n + 1 + k);
}

TEST(Commute, TasksUpdatingTwoDataInEitherOrderDoNotDeadlock) {
  Options options;
  options.scheduler = Scheduler::mapped;
  options.threads = 2;
  Runtime rt(MPI_COMM_WORLD, options);
  register_kernels(rt);
  std::vector<std::int64_t> a(128, 0), b(128, 0);
  const std::int64_t n = 6 * rt.size();
  rt.run([&](Head& head) {
    auto x = head.data(std::span(a), "a");
    auto y = head.data(std::span(b), "b", head.workers() - 1);
    head.enter(x);
    head.enter(y);
    for (std::int64_t i = 1; i <= n; ++i) {
      const std::vector<Use> uses = i % 2 ? std::vector<Use>{commute(x), commute(y)} : std::vector<Use>{commute(y), commute(x)};
      head.submit("append_both", uses, arguments(i), {.worker = static_cast<int>(i % head.workers())});
    }
    head.exit(x);
    head.exit(y);
    head.wait();
  });
  if (!reads_here(rt)) return;
  expect_each_once(a, 1, n);
  expect_each_once(b, 1, n);
}

// Update 1 is submitted first but can become ready only after update 2 has run: its other input waits for a
// file that update 2's kernel makes. The updates must take their turns as they become ready (under inout,
// update 1 would go first and wait forever).
TEST(Commute, UpdatesRunInTheOrderTheyBecomeReady) {
  std::string dir(256, '\0');
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    std::string made = (std::filesystem::temp_directory_path() / "herald-commute-XXXXXX").string();
    ASSERT_NE(mkdtemp(made.data()), nullptr);
    dir.replace(0, made.size(), made);
  }
  MPI_Bcast(dir.data(), static_cast<int>(dir.size()), MPI_CHAR, 0, MPI_COMM_WORLD);
  dir.resize(dir.find('\0'));
  const std::string flag = dir + "/update-2-ran";
  const Arguments path(reinterpret_cast<const std::byte*>(flag.data()), reinterpret_cast<const std::byte*>(flag.data()) + flag.size());
  const auto path_of = [](const TaskContext& t, std::size_t from) {
    const auto bytes = t.arguments().subspan(from);
    return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  };
  Options options;
  options.scheduler = Scheduler::mapped;
  options.threads = 2;
  Runtime rt(MPI_COMM_WORLD, options);
  register_kernels(rt);
  rt.kernel("gate_after_flag", [&](TaskContext& t) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!std::filesystem::exists(path_of(t, 0))) {
      if (std::chrono::steady_clock::now() > deadline)
        throw Error(Errc::invalid_argument, "update 2 never ran: the updates kept submission order");
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    t.out<std::int64_t>(0)[0] = 1;
  });
  rt.kernel("gate_now", [](TaskContext& t) { t.out<std::int64_t>(0)[0] = 1; });
  rt.kernel("append_and_flag", [&](TaskContext& t) {
    auto log = t.inout<std::int64_t>(0);
    log[static_cast<std::size_t>(++log[0])] = t.argument<std::int64_t>();
    std::ofstream(path_of(t, sizeof(std::int64_t))) << "ran\n";
  });
  std::vector<std::int64_t> log(8, 0), gates(2, 0);
  rt.run([&](Head& head) {
    const int last = head.workers() - 1;
    auto x = head.data(std::span(log), "log");
    auto g1 = head.data(std::span(gates).first(1), "gate1");
    auto g2 = head.data(std::span(gates).last(1), "gate2");
    head.enter(x);
    head.submit("gate_after_flag", {out(g1)}, path, {.worker = 0});
    head.submit("gate_now", {out(g2)}, {}, {.worker = last});
    Arguments two = arguments(std::int64_t{2});
    two.insert(two.end(), path.begin(), path.end());
    head.submit("append", {commute(x), in(g1)}, arguments(std::int64_t{1}), {.worker = last});
    head.submit("append_and_flag", {commute(x), in(g2)}, two, {.worker = 0});
    head.exit(x);
    head.wait();
  });
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) std::filesystem::remove_all(dir);
  if (!reads_here(rt)) return;
  ASSERT_EQ(log[0], 2);
  EXPECT_EQ(log[1], 2);
  EXPECT_EQ(log[2], 1);
}

TEST(Commute, MisuseIsRefusedByName) {
  Runtime rt(MPI_COMM_WORLD);
  register_kernels(rt);
  std::vector<std::int64_t> log(8, 0);
  rt.run([&](Head& head) {
    auto x = head.data(std::span(log), "tally");
    try {
      head.submit("append", {commute(x)}, arguments(std::int64_t{1}));
      ADD_FAILURE() << "an update of data with no value was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("data 'tally' has no value yet"), std::string::npos) << e.what();
    }
    head.enter(x);
    try {
      head.submit("append", {commute(x), in(x)}, arguments(std::int64_t{1}));
      ADD_FAILURE() << "a task naming its datum twice was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("names data 'tally' twice"), std::string::npos) << e.what();
    }
    // The refused tasks left nothing behind: one update now runs and is read back.
    head.submit("append", {commute(x)}, arguments(std::int64_t{7}));
    head.exit(x);
    head.wait();
  });
  if (!reads_here(rt)) return;
  EXPECT_EQ(log[0], 1);
  EXPECT_EQ(log[1], 7);
}

}  // namespace
}  // namespace herald::runtime
