// The task runtime over real MPI processes: every rank runs every test; rank 0 is the head.
#include <herald/error.hpp>
#include <herald/runtime/runtime.hpp>

#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

namespace herald::runtime {
namespace {

int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

// Kernels every test registers: y = a*x + y over doubles, fill with a value, and a sum into one double.
void register_kernels(Runtime& rt) {
  rt.kernel("fill", [](TaskContext& t) {
    for (double& v : t.out<double>(0)) v = t.argument<double>();
  });
  rt.kernel("axpy", [](TaskContext& t) {
    const auto x = t.in<double>(0);
    const auto y = t.inout<double>(1);
    const double a = t.argument<double>();
    for (std::size_t i = 0; i < y.size(); ++i) y[i] += a * x[i];
  });
  rt.kernel("scale", [](TaskContext& t) {
    for (double& v : t.inout<double>(0)) v *= t.argument<double>();
  });
  rt.kernel("sum", [](TaskContext& t) {
    double s = 0;
    for (std::size_t a = 0; a + 1 < t.accesses(); ++a)
      for (double v : t.in<double>(a)) s += v;
    t.out<double>(t.accesses() - 1)[0] = s;
  });
  rt.kernel("throw", [](TaskContext&) { throw std::runtime_error("the kernel gave up"); });
}

TEST(Runtime, DataRoundTripsByteExact) {
  Runtime rt(MPI_COMM_WORLD);
  register_kernels(rt);
  // Every byte value, in a buffer of odd length, through a kernel that changes nothing but passes it on.
  rt.kernel("copy", [](TaskContext& t) {
    const auto in = t.in(0);
    std::copy(in.begin(), in.end(), t.out(1).begin());
  });
  std::vector<std::byte> source(100003), middle(source.size()), back(source.size());
  for (std::size_t i = 0; i < source.size(); ++i) source[i] = static_cast<std::byte>((i * 131 + 7) % 256);
  const auto original = source;
  rt.run([&](Head& head) {
    auto a = head.data(std::span(source), "source");
    auto b = head.data(std::span(middle), "middle");
    auto c = head.data(std::span(back), "back");
    head.enter(a);
    for (int hop = 0; hop < 6; ++hop) {
      head.submit("copy", {in(a), out(b)});
      head.submit("copy", {in(b), out(c)});
      head.submit("copy", {in(c), out(a)});
    }
    head.read(a);
    head.read(c);
    head.wait();
  });
  if (rt.is_head()) {
    EXPECT_EQ(source, original);
    EXPECT_EQ(back, original);
  }
}

TEST(Runtime, DependenciesAcrossWorkersGiveTheSequentialResult) {
  Runtime rt(MPI_COMM_WORLD);
  register_kernels(rt);
  constexpr std::size_t n = 1000;
  constexpr int blocks = 8;
  std::vector<std::vector<double>> x(blocks, std::vector<double>(n)), y(blocks, std::vector<double>(n));
  std::vector<double> total(1, 0.0);
  rt.run([&](Head& head) {
    std::vector<Data> xs, ys;
    for (int b = 0; b < blocks; ++b) {
      xs.push_back(head.data(std::span(x[b]), "x" + std::to_string(b)));
      ys.push_back(head.data(std::span(y[b]), "y" + std::to_string(b)));
      head.submit("fill", {out(xs[b])}, arguments(double(b + 1)));
      head.submit("fill", {out(ys[b])}, arguments(1.0));
    }
    // Three sweeps, each block's y reading its neighbour's x: read-after-write across workers, and
    // write-after-read on every x.
    for (int sweep = 0; sweep < 3; ++sweep) {
      for (int b = 0; b < blocks; ++b) head.submit("axpy", {in(xs[(b + 1) % blocks]), inout(ys[b])}, arguments(2.0));
      for (int b = 0; b < blocks; ++b) head.submit("scale", {inout(xs[b])}, arguments(0.5));
    }
    auto t = head.data(std::span(total), "total");
    std::vector<Use> uses;
    for (auto& d : ys) uses.push_back(in(d));
    uses.push_back(out(t));
    head.submit("sum", uses);
    for (auto& d : ys) head.read(d);
    head.read(t);
    head.wait();
  });
  if (!rt.is_head()) return;
  // The same program, sequentially.
  std::vector<double> xs(blocks), ys(blocks, 1.0);
  for (int b = 0; b < blocks; ++b) xs[b] = b + 1;
  for (int sweep = 0; sweep < 3; ++sweep) {
    std::vector<double> before = xs;
    for (int b = 0; b < blocks; ++b) ys[b] += 2.0 * before[(b + 1) % blocks];
    for (int b = 0; b < blocks; ++b) xs[b] *= 0.5;
  }
  double expected_total = 0;
  for (int b = 0; b < blocks; ++b) {
    for (double v : y[b]) ASSERT_DOUBLE_EQ(v, ys[b]) << "block " << b;
    expected_total += ys[b] * n;
  }
  EXPECT_DOUBLE_EQ(total[0], expected_total);
}

TEST(Runtime, SeveralWaitsAndExitLeaveTheValueWithTheHead) {
  Runtime rt(MPI_COMM_WORLD);
  register_kernels(rt);
  std::vector<double> v(257, 1.0);
  rt.run([&](Head& head) {
    auto d = head.data(std::span(v), "v");
    head.enter(d);
    for (int round = 0; round < 5; ++round) {
      head.submit("scale", {inout(d)}, arguments(3.0));
      head.read(d);
      head.wait();
      for (double x : v) ASSERT_DOUBLE_EQ(x, std::pow(3.0, round + 1));
    }
    head.submit("scale", {inout(d)}, arguments(2.0));
    head.exit(d);
    head.wait();
    EXPECT_DOUBLE_EQ(v[0], 2 * std::pow(3.0, 5));
    // After exit the program's buffer is the value: a change made now is what the next task reads.
    std::fill(v.begin(), v.end(), 7.0);
    head.enter(d);
    head.submit("scale", {inout(d)}, arguments(2.0));
    head.read(d);
    head.wait();
    EXPECT_DOUBLE_EQ(v[256], 14.0);
  });
}

TEST(Runtime, ManyTinyTasks) {
  Runtime rt(MPI_COMM_WORLD);
  rt.kernel("bump", [](TaskContext& t) { t.inout<std::uint64_t>(0)[0] += t.argument<std::uint64_t>(); });
  constexpr int chains = 16;
  constexpr int length = 100000 / chains;
  std::vector<std::vector<std::uint64_t>> counters(chains, std::vector<std::uint64_t>(1, 0));
  Statistics stats;
  rt.run([&](Head& head) {
    std::vector<Data> c;
    for (int i = 0; i < chains; ++i) {
      c.push_back(head.data(std::span(counters[i]), "c" + std::to_string(i)));
      head.enter(c.back());
    }
    for (int step = 0; step < length; ++step)
      for (int i = 0; i < chains; ++i) head.submit("bump", {inout(c[i])}, arguments(std::uint64_t(step + i)));
    for (auto& d : c) head.read(d);
    head.wait();
    stats = head.statistics();
  });
  if (!rt.is_head()) return;
  for (int i = 0; i < chains; ++i) {
    const std::uint64_t expected = std::uint64_t(length) * (length - 1) / 2 + std::uint64_t(length) * i;
    EXPECT_EQ(counters[i][0], expected) << "chain " << i;
  }
  EXPECT_EQ(stats.tasks, std::uint64_t(chains) * length);
  // Every version but the latest is freed as the chain goes: a worker holds a few counters at a time.
  for (std::size_t bytes : stats.peak_bytes) EXPECT_LE(bytes, 64u * chains * sizeof(std::uint64_t));
}

TEST(Runtime, ReplicasAreFreedOnLongGraphs) {
  Runtime rt(MPI_COMM_WORLD);
  register_kernels(rt);
  // Four blocks of 512 KiB in a ring, each round adding every block into the next: 200 versions (100 MiB)
  // made, each read by two tasks soon after it was made. A replica goes once its readers are done.
  constexpr std::size_t n = 1 << 16;
  constexpr int blocks = 4, rounds = 50;
  std::vector<std::vector<double>> b(blocks, std::vector<double>(n, 1.0));
  Statistics stats;
  rt.run([&](Head& head) {
    std::vector<Data> d;
    for (int k = 0; k < blocks; ++k) {
      d.push_back(head.data(std::span(b[k]), "b" + std::to_string(k)));
      head.enter(d[k]);
    }
    for (int r = 0; r < rounds; ++r)
      for (int k = 0; k < blocks; ++k) head.submit("axpy", {in(d[k]), inout(d[(k + 1) % blocks])}, arguments(0.5));
    for (auto& x : d) head.read(x);
    head.wait();
    stats = head.statistics();
  });
  if (!rt.is_head()) return;
  std::vector<double> expected(blocks, 1.0);
  for (int r = 0; r < rounds; ++r)
    for (int k = 0; k < blocks; ++k) expected[(k + 1) % blocks] += 0.5 * expected[k];
  for (int k = 0; k < blocks; ++k) EXPECT_DOUBLE_EQ(b[k][n - 1], expected[k]) << "block " << k;
  for (std::size_t bytes : stats.peak_bytes) EXPECT_LE(bytes, 16 * n * sizeof(double));
}

TEST(Runtime, BadInputIsRefusedAtSubmit) {
  Runtime rt(MPI_COMM_WORLD);
  register_kernels(rt);
  // A kernel only some ranks know: the last rank lacks it.
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (world_rank() != size - 1 || size == 1) rt.kernel("partial", [](TaskContext&) {});
  std::vector<double> v(4, 0.0), w(4, 0.0);
  std::vector<std::string> messages;
  std::string misspelt;
  rt.run([&](Head& head) {
    auto d = head.data(std::span(v), "v");
    auto e = head.data(std::span(w), "w");
    auto expect_refused = [&](auto&& call) {
      try {
        call();
        ADD_FAILURE() << "accepted";
      } catch (const Error& error) {
        messages.push_back(error.what());
      }
    };
    expect_refused([&] { head.submit("nope", {out(d)}); });
    expect_refused([&] { head.submit("scale", {inout(d)}, arguments(1.0)); });    // no value yet
    expect_refused([&] { head.submit("fill", {out(Data{})}, arguments(1.0)); });  // not registered
    expect_refused([&] { head.submit("axpy", {in(d), inout(d)}); });             // the same data twice
    expect_refused([&] { head.read(e); });
    if (size > 1) expect_refused([&] { head.submit("partial", {out(d)}); });
    expect_refused([&] { head.data(std::span(w), "astray", head.workers()); });  // owners count from 0
    expect_refused([&] { head.data(std::span(w), "astray", -1); });
    try {
      head.submit("scal", {inout(d)}, arguments(1.0));
      ADD_FAILURE() << "a misspelt kernel accepted";
    } catch (const Error& error) {
      misspelt = error.what();
    }
    // Nothing of that was recorded: the runtime still works.
    head.submit("fill", {out(d)}, arguments(5.0));
    head.read(d);
    head.wait();
  });
  if (!rt.is_head()) return;
  ASSERT_GE(messages.size(), 5u);
  EXPECT_NE(messages[0].find("no kernel 'nope' is registered"), std::string::npos) << messages[0];
  EXPECT_NE(misspelt.find("no kernel 'scal' is registered; did you mean 'scale'?"), std::string::npos) << misspelt;
  EXPECT_NE(messages[1].find("(kernel 'scale'): data 'v' has no value yet"), std::string::npos) << messages[1];
  EXPECT_NE(messages[2].find("never registered"), std::string::npos) << messages[2];
  EXPECT_NE(messages[3].find("names data 'v' twice"), std::string::npos) << messages[3];
  EXPECT_NE(messages[4].find("read: data 'w' has no value yet"), std::string::npos) << messages[4];
  if (size > 1) {
    EXPECT_NE(messages[5].find("not registered on rank " + std::to_string(size - 1)), std::string::npos)
        << messages[5];
  }
  for (std::size_t i = messages.size() - 2; i < messages.size(); ++i)
    EXPECT_NE(messages[i].find("data 'astray': owner"), std::string::npos) << messages[i];
  EXPECT_DOUBLE_EQ(v[3], 5.0);
}

TEST(Runtime, AKernelThatThrowsIsReportedWithTaskAndRank) {
  Runtime rt(MPI_COMM_WORLD);
  register_kernels(rt);
  std::vector<double> v(8, 1.0);
  std::string message;
  bool later_refused = false;
  rt.run([&](Head& head) {
    auto d = head.data(std::span(v), "v");
    head.enter(d);
    head.submit("scale", {inout(d)}, arguments(2.0));
    head.submit("throw", {inout(d)});
    head.submit("scale", {inout(d)}, arguments(2.0));  // never runs: its input never comes
    try {
      head.wait();
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::task_failed);
      message = e.what();
    }
    try {
      head.submit("scale", {inout(d)}, arguments(2.0));
    } catch (const Error& e) {
      later_refused = e.code() == Errc::task_failed;
    }
  });
  if (!rt.is_head()) return;
  EXPECT_NE(message.find("task 2 (kernel 'throw') failed on rank "), std::string::npos) << message;
  EXPECT_NE(message.find("the kernel gave up"), std::string::npos) << message;
  EXPECT_TRUE(later_refused);
}

// A modelled kernel (TaskContext::occupy) runs to completion in order; a duration that is not one fails the
// task, named.
TEST(Runtime, OccupyModelsAKernelsTime) {
  Runtime rt(MPI_COMM_WORLD);
  register_kernels(rt);
  rt.kernel("modelled", [](TaskContext& t) {
    t.occupy(t.argument<double>());
    for (double& v : t.inout<double>(0)) v += 1;
  });
  std::vector<double> v(4, 0.0);
  std::string message;
  rt.run([&](Head& head) {
    auto d = head.data(std::span(v), "v");
    head.enter(d);
    for (int i = 0; i < 4; ++i) head.submit("modelled", {inout(d)}, arguments(0.02));
    head.read(d);
    head.wait();
    head.submit("modelled", {inout(d)}, arguments(-1.0));
    try {
      head.wait();
    } catch (const Error& e) {
      message = e.what();
    }
  });
  if (!rt.is_head()) return;
  EXPECT_EQ(v, std::vector<double>(4, 4.0));
  EXPECT_NE(message.find("TaskContext::occupy: -1.000000 is not a duration"), std::string::npos) << message;
}

TEST(Runtime, AnExceptionInTheProgramReachesRankZeroAfterWorkersAreReleased) {
  Runtime rt(MPI_COMM_WORLD);
  register_kernels(rt);
  bool caught = false;
  try {
    rt.run([&](Head&) { throw std::runtime_error("program failed"); });
  } catch (const std::runtime_error& e) {
    caught = std::string(e.what()) == "program failed";
  }
  // Head control: only rank 0 runs the program; replicated: every rank does, and every rank throws.
  EXPECT_EQ(caught, rt.is_head() || rt.control() == Control::replicated);
  // The runtime runs again afterwards.
  std::vector<double> v(2, 0.0);
  rt.run([&](Head& head) {
    auto d = head.data(std::span(v), "v");
    head.submit("fill", {out(d)}, arguments(4.0));
    head.read(d);
  });
  if (rt.is_head()) {
    EXPECT_DOUBLE_EQ(v[1], 4.0);
  }
}

TEST(Runtime, RoundRobinAndMappedSchedulersGiveTheSameResults) {
  for (Scheduler scheduler : {Scheduler::round_robin, Scheduler::mapped}) {
    Runtime rt(MPI_COMM_WORLD, {.scheduler = scheduler});
    register_kernels(rt);
    std::vector<std::vector<double>> blocks(6, std::vector<double>(16, 0.0));
    rt.run([&](Head& head) {
      std::vector<Data> d;
      for (std::size_t i = 0; i < blocks.size(); ++i) {
        d.push_back(head.data(std::span(blocks[i]), "b" + std::to_string(i)));
        const int worker = static_cast<int>(i) % head.workers();
        head.submit("fill", {out(d[i])}, arguments(double(i)), {.worker = worker});
        if (i > 0) head.submit("axpy", {in(d[i - 1]), inout(d[i])}, arguments(1.0), {.worker = worker});
        head.read(d[i]);
      }
      head.wait();
    });
    if (!rt.is_head()) continue;
    double expected = 0;
    for (std::size_t i = 0; i < blocks.size(); ++i) {
      expected = double(i) + (i > 0 ? expected : 0.0);
      EXPECT_DOUBLE_EQ(blocks[i][15], expected) << to_string(scheduler) << " block " << i;
    }
  }
}

// Broadcasts under every strategy, synchronised or not: an entered vector read on every worker (root: the
// head), and a vector made on worker 0 and read on workers 1 and 2 only (a subset, rooted at a worker; from
// 4 ranks on). Values, and the broadcasts counted, are the same whatever carries them.
TEST(Runtime, BroadcastsGiveTheSameResultsUnderEveryStrategy) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (BroadcastStrategy strategy : {BroadcastStrategy::nobcast, BroadcastStrategy::p2p, BroadcastStrategy::mpibcast,
                                     BroadcastStrategy::mpibcast_herald, BroadcastStrategy::dynbcast,
                                     BroadcastStrategy::automatic}) {
    for (auto [sync, trees] : {std::pair{false, BroadcastTrees::dyn}, {true, BroadcastTrees::dyn},
                               {false, BroadcastTrees::spread}, {false, BroadcastTrees::planned}}) {
      // The trees setting changes dynbcast's trees only.
      if (trees != BroadcastTrees::dyn && strategy != BroadcastStrategy::dynbcast &&
          strategy != BroadcastStrategy::automatic)
        continue;
      Runtime probe(MPI_COMM_WORLD, {.broadcast_sync = false});
      const bool replicated = probe.control() == Control::replicated;
      if (sync && replicated) continue;  // synchronised broadcasts need the head
      // Head control: the workers are ranks 1.. and the head roots entered data; replicated: every rank is
      // a worker, rank 0 owns the entered data, and read() brings a value to every rank.
      const int workers = replicated || size == 1 ? size : size - 1;
      Runtime rt(MPI_COMM_WORLD, {.scheduler = Scheduler::mapped, .broadcast = strategy, .broadcast_sync = sync,
                                  .trees = trees});
      register_kernels(rt);
      std::vector<double> shared(70001), made(1001);
      std::iota(shared.begin(), shared.end(), 1.0);
      std::vector<std::vector<double>> sums(static_cast<std::size_t>(2 * workers), std::vector<double>(1));
      Statistics stats;
      rt.run([&](Head& head) {
        const Data all = head.data(std::span(shared), "shared");
        const Data part = head.data(std::span(made), "made");
        head.enter(all);
        head.submit("fill", {out(part)}, arguments(2.0), {.worker = 0});
        for (int w = 0; w < workers; ++w) {
          const Data s = head.data(std::span(sums[static_cast<std::size_t>(w)]), "sum " + std::to_string(w));
          head.submit("sum", {in(all), out(s)}, {}, {.worker = w});
          head.read(s);
        }
        for (int w = 1; w < std::min(workers, 3); ++w) {
          const Data s = head.data(std::span(sums[static_cast<std::size_t>(workers + w)]), "part " + std::to_string(w));
          head.submit("sum", {in(part), out(s)}, {}, {.priority = w, .worker = w});
          head.read(s);
        }
        head.wait();
        stats = head.statistics();
      });
      if (!rt.is_head() && !replicated) continue;
      const std::string what = to_string(strategy) + (sync ? " sync" : "") + " trees " + to_string(trees);
      const double n = static_cast<double>(shared.size());
      for (int w = 0; w < workers; ++w) EXPECT_DOUBLE_EQ(sums[static_cast<std::size_t>(w)][0], n * (n + 1) / 2) << what;
      for (int w = 1; w < std::min(workers, 3); ++w)
        EXPECT_DOUBLE_EQ(sums[static_cast<std::size_t>(workers + w)][0], 2.0 * 1001) << what;
      // Versions read on two or more processes that lack them: `shared` (by every worker but its holder),
      // `made` (workers 1 and 2), and in replicated control every sum (by every rank but its maker).
      const std::uint64_t shared_recipients = static_cast<std::uint64_t>(replicated ? workers - 1 : workers);
      const std::uint64_t made_recipients = static_cast<std::uint64_t>(std::max(0, std::min(workers, 3) - 1));
      const std::uint64_t sum_count = static_cast<std::uint64_t>(workers) + made_recipients;
      const std::uint64_t sum_recipients = replicated ? static_cast<std::uint64_t>(size - 1) : 0;
      std::uint64_t broadcasts = 0, recipients = 0, bytes = 0, one_copy_each = 0;
      auto count = [&](std::uint64_t versions, std::uint64_t readers, std::size_t size_bytes) {
        if (strategy == BroadcastStrategy::nobcast || readers < 2) return;
        broadcasts += versions;
        recipients += versions * readers;
        bytes += versions * readers * size_bytes;
        one_copy_each += versions * size_bytes;
      };
      count(1, shared_recipients, shared.size() * sizeof(double));
      count(1, made_recipients, made.size() * sizeof(double));
      count(sum_count, sum_recipients, sizeof(double));
      EXPECT_EQ(stats.broadcasts, broadcasts) << what;
      EXPECT_EQ(stats.broadcast_recipients, recipients) << what;
      EXPECT_EQ(stats.broadcast_bytes, bytes) << what;
      // Every broadcast delivery is among the replicas delivered; the rest moved point to point.
      EXPECT_GE(stats.fetches, stats.broadcast_recipients) << what;
      EXPECT_EQ(stats.p2p_bytes, stats.bytes_moved - stats.broadcast_bytes) << what;
      // Only a tree saves its holder sends: p2p's holder sends every copy, and mpibcast's trees are MPI's;
      // in any tree the holder sends at least one copy (auto takes dynbcast's trees or p2p).
      if (strategy == BroadcastStrategy::dynbcast || strategy == BroadcastStrategy::automatic)
        EXPECT_LE(stats.broadcast_bytes_saved, stats.broadcast_bytes - one_copy_each) << what;
      else
        EXPECT_EQ(stats.broadcast_bytes_saved, 0U) << what;
      // Under nobcast the same versions are found, and counted as not run, naming why.
      std::uint64_t found = 0;
      for (auto [versions, readers] : {std::pair{std::uint64_t{1}, shared_recipients}, {1, made_recipients}, {sum_count, sum_recipients}})
        if (readers >= 2) found += versions;
      if (strategy == BroadcastStrategy::nobcast) {
        EXPECT_EQ(stats.broadcasts_not_run, found) << what;
        if (found > 0) {
          EXPECT_NE(stats.broadcasts_not_run_why.find("nobcast"), std::string::npos) << stats.broadcasts_not_run_why;
        }
        EXPECT_EQ(stats.p2p_bytes, stats.bytes_moved) << what;
      } else {
        EXPECT_EQ(stats.broadcasts_not_run, 0U) << what << ": " << stats.broadcasts_not_run_why;
      }
      // With one worker under head control no broadcast can happen, and the statistics say so.
      const bool impossible = !replicated && workers < 2 && strategy != BroadcastStrategy::nobcast;
      EXPECT_EQ(stats.broadcasts_impossible.empty(), !impossible) << what << ": '" << stats.broadcasts_impossible << "'";
    }
  }
}

TEST(Runtime, AnUnknownBroadcastStrategyIsRefusedByName) {
  try {
    (void)broadcast_strategy_from_string("tree");
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'tree'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("dynbcast"), std::string::npos) << e.what();
  }
  for (const char* name : {"nobcast", "p2p", "mpibcast", "mpibcast:herald", "dynbcast", "auto"})
    EXPECT_EQ(to_string(broadcast_strategy_from_string(name)), name);
}

}  // namespace
}  // namespace herald::runtime
