// Replicated control over real MPI processes: every rank runs the program, plans alike and does only its
// part. Each test runs on every rank of the job (2 to 5).
#include <herald/error.hpp>
#include <herald/runtime/runtime.hpp>

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <vector>

namespace herald::runtime {
namespace {

int world(int (*what)(MPI_Comm, int*)) {
  int v = 0;
  what(MPI_COMM_WORLD, &v);
  return v;
}

Options replicated(Scheduler scheduler) {
  Options o;
  o.control = Control::replicated;
  o.scheduler = scheduler;
  return o;
}

// A random graph of `tasks` tasks over `width` data, each reading up to two data and updating a third;
// the value each datum ends with, computed sequentially, is what every schedule must give.
struct RandomGraph {
  struct Task {
    std::vector<std::size_t> reads;
    std::size_t writes;
  };
  std::vector<Task> tasks;
  std::vector<double> expected;
  RandomGraph(std::size_t count, std::size_t width, unsigned seed) : expected(width, 1.0) {
    std::mt19937 random(seed);
    for (std::size_t t = 0; t < count; ++t) {
      Task task{{}, random() % width};
      for (int r = 0; r < 2; ++r) {
        const std::size_t d = random() % width;
        if (d != task.writes && std::find(task.reads.begin(), task.reads.end(), d) == task.reads.end())
          task.reads.push_back(d);
      }
      double v = expected[task.writes] * 0.5 + 1;
      for (std::size_t d : task.reads) v += expected[d];
      expected[task.writes] = v;
      tasks.push_back(task);
    }
  }
};

// Every rank plans the same HEFT schedule from the cost models (which differ by kernel and size, so that
// the plan is not trivial): every task runs exactly once over all ranks, and the values are the sequential
// ones. A rank planning differently would run a task twice, or never (and the job would hang).
TEST(Replicated, EveryRankPlansTheSameHeftScheduleFromCostModels) {
  const int size = world(MPI_Comm_size);
  const RandomGraph graph(300, 12, 7);
  for (Scheduler scheduler : {Scheduler::heft, Scheduler::round_robin, Scheduler::owner}) {
    Runtime rt(MPI_COMM_WORLD, replicated(scheduler));
    std::map<std::uint64_t, int> ran;  // task -> times run on this rank
    std::mutex lock;
    const auto update = [&](TaskContext& t) {
      {
        std::lock_guard guard(lock);
        ++ran[t.task()];
      }
      const auto out = t.inout<double>(t.accesses() - 1);
      double v = out[0] * 0.5 + 1;
      for (std::size_t a = 0; a + 1 < t.accesses(); ++a) v += t.in<double>(a)[0];
      out[0] = v;
    };
    rt.kernel("light", update, [](std::span<const std::size_t> bytes) { return 1e-6 * static_cast<double>(bytes.size()); });
    rt.kernel("heavy", update, [](std::span<const std::size_t> bytes) { return 5e-5 * static_cast<double>(bytes.size()); });
    std::vector<std::vector<double>> values(graph.expected.size(), std::vector<double>(1, 1.0));
    std::vector<std::uint64_t> ids;
    rt.run([&](Head& head) {
      std::vector<Data> d;
      for (std::size_t i = 0; i < values.size(); ++i) {
        d.push_back(head.data(std::span(values[i]), "d" + std::to_string(i), static_cast<int>(i) % size));
        head.enter(d.back());
      }
      for (std::size_t t = 0; t < graph.tasks.size(); ++t) {
        std::vector<Use> uses;
        for (std::size_t r : graph.tasks[t].reads) uses.push_back(in(d[r]));
        uses.push_back(inout(d[graph.tasks[t].writes]));
        ids.push_back(head.submit(t % 3 == 0 ? "heavy" : "light", uses));
      }
      for (const Data& x : d) head.read(x);
      head.wait();
    });
    std::vector<int> mine(graph.tasks.size(), 0), all(graph.tasks.size(), 0);
    for (std::size_t t = 0; t < ids.size(); ++t) mine[t] = ran.count(ids[t]) ? ran[ids[t]] : 0;
    MPI_Allreduce(mine.data(), all.data(), static_cast<int>(all.size()), MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (std::size_t t = 0; t < all.size(); ++t) ASSERT_EQ(all[t], 1) << to_string(scheduler) << ": task " << t;
    // read() brings every value to every rank.
    for (std::size_t i = 0; i < values.size(); ++i)
      EXPECT_DOUBLE_EQ(values[i][0], graph.expected[i]) << to_string(scheduler) << ": datum " << i;
  }
}

// Scheduler::owner runs a task where the datum it writes is owned; Scheduler::mapped asks the mapping
// function for tasks that name no worker.
TEST(Replicated, OwnerAndMappingFunctionPlaceTasks) {
  const int size = world(MPI_Comm_size);
  for (Scheduler scheduler : {Scheduler::owner, Scheduler::mapped}) {
    Options o = replicated(scheduler);
    o.mapping = [](const TaskInfo& t) { return static_cast<int>(t.task % static_cast<std::uint64_t>(t.workers)); };
    Runtime rt(MPI_COMM_WORLD, o);
    rt.kernel("where", [](TaskContext& t) { t.out<int>(0)[0] = t.rank(); });
    std::vector<std::vector<int>> where(static_cast<std::size_t>(2 * size), std::vector<int>(1, -1));
    std::vector<std::uint64_t> ids;
    rt.run([&](Head& head) {
      for (std::size_t i = 0; i < where.size(); ++i) {
        const int owner = static_cast<int>((i * 3 + 1) % static_cast<std::size_t>(size));
        const Data d = head.data(std::span(where[i]), "w" + std::to_string(i), owner);
        ids.push_back(head.submit("where", {out(d)}));
        head.read(d);
      }
      head.wait();
    });
    for (std::size_t i = 0; i < where.size(); ++i) {
      const int expected = scheduler == Scheduler::owner ? static_cast<int>((i * 3 + 1) % static_cast<std::size_t>(size))
                                                         : static_cast<int>(ids[i] % static_cast<std::uint64_t>(size));
      EXPECT_EQ(where[i][0], expected) << to_string(scheduler) << ": task " << i;
    }
  }
}

// Ranks that submit different work get a clear error from wait(), on every rank, before anything runs; the
// runtime then refuses more work, and the job ends cleanly.
TEST(Replicated, RanksThatSubmitDifferentWorkAreToldNotHung) {
  const int rank = world(MPI_Comm_rank);
  Runtime rt(MPI_COMM_WORLD, replicated(Scheduler::round_robin));
  std::atomic<int> ran{0};
  rt.kernel("touch", [&](TaskContext& t) {
    ++ran;
    t.out<int>(0)[0] = 1;
  });
  std::vector<int> a(1), b(1);
  std::string message;
  Errc code{};
  rt.run([&](Head& head) {
    const Data x = head.data(std::span(a), "a");
    const Data y = head.data(std::span(b), "b");
    head.submit("touch", {out(x)});
    if (rank == 1) head.submit("touch", {out(y)});  // the program diverges on one rank
    try {
      head.wait();
    } catch (const Error& e) {
      message = e.what();
      code = e.code();
    }
  });
  EXPECT_EQ(code, Errc::invalid_argument);
  EXPECT_NE(message.find("did not all submit the same work"), std::string::npos) << message;
  EXPECT_EQ(ran.load(), 0) << "nothing of a batch the ranks disagree on runs";
}

// One rank's program throws and leaves run() while the others wait: they are told, and every rank leaves.
TEST(Replicated, ARankThatLeavesEarlyIsReportedToTheOthers) {
  const int rank = world(MPI_Comm_rank);
  Runtime rt(MPI_COMM_WORLD, replicated(Scheduler::round_robin));
  rt.kernel("touch", [](TaskContext& t) { t.out<int>(0)[0] = 1; });
  std::vector<int> a(1);
  std::string message;
  try {
    rt.run([&](Head& head) {
      const Data x = head.data(std::span(a), "a");
      head.submit("touch", {out(x)});
      if (rank == 1) throw std::runtime_error("rank 1 gave up");
      head.wait();
    });
  } catch (const std::exception& e) {
    message = e.what();
  }
  if (rank == 1) {
    EXPECT_EQ(message, "rank 1 gave up");
  } else {
    EXPECT_NE(message.find("replicated control"), std::string::npos) << message;
  }
}

// exit(): the value lands in every rank's buffer, and the owner's buffer is the value again: entering it
// after a change there gives the changed value to every task, wherever it runs.
TEST(Replicated, ExitMakesTheOwnersBufferTheValueAgain) {
  const int size = world(MPI_Comm_size), rank = world(MPI_Comm_rank);
  Runtime rt(MPI_COMM_WORLD, replicated(Scheduler::mapped));
  rt.kernel("add", [](TaskContext& t) {
    for (double& v : t.inout<double>(0)) v += t.argument<double>();
  });
  rt.kernel("copy", [](TaskContext& t) {
    const auto from = t.in<double>(0);
    std::copy(from.begin(), from.end(), t.out<double>(1).begin());
  });
  std::vector<double> v(100, 1.0), copy(100, 0.0);
  const int owner = size - 1;
  rt.run([&](Head& head) {
    const Data d = head.data(std::span(v), "v", owner);
    const Data c = head.data(std::span(copy), "copy");
    head.enter(d);
    head.submit("add", {inout(d)}, arguments(2.0), {.worker = 0});
    head.exit(d);
    head.wait();
    EXPECT_EQ(v, std::vector<double>(100, 3.0)) << "rank " << rank;
    if (rank == owner) std::fill(v.begin(), v.end(), 10.0);  // only the owner's buffer counts
    head.enter(d);
    head.submit("copy", {in(d), out(c)}, {}, {.worker = 0});
    head.read(c);
    head.wait();
  });
  EXPECT_EQ(copy, std::vector<double>(100, 10.0)) << "rank " << rank;
}

}  // namespace
}  // namespace herald::runtime
