// Reductions through the task runtime over real MPI processes (both controls: the test runs twice).
#include <herald/error.hpp>
#include <herald/runtime/runtime.hpp>

#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace herald::runtime {
namespace {

// The ranks whose program's buffers hold read() values: the head's, or every rank's when replicated.
bool reads_here(const Runtime& rt) { return rt.control() == Control::replicated || rt.is_head(); }

void register_kernels(Runtime& rt) {
  // Adds its argument to every element of the partial it contributes to.
  rt.kernel("add", [](TaskContext& t) {
    for (std::int64_t& v : t.out<std::int64_t>(0)) v += t.argument<std::int64_t>();
  });
  rt.kernel("add_f64", [](TaskContext& t) {
    for (double& v : t.out<double>(0)) v += t.argument<double>();
  });
  // A contribution folds itself into the partial by the reduction's own rule.
  rt.kernel("lower", [](TaskContext& t) {
    for (double& v : t.out<double>(0)) v = std::min(v, t.argument<double>());
  });
  rt.kernel("raise", [](TaskContext& t) {
    for (double& v : t.out<double>(0)) v = std::max(v, t.argument<double>());
  });
  rt.kernel("raise_abs", [](TaskContext& t) {
    for (double& v : t.out<double>(0)) v = std::max(std::abs(v), std::abs(t.argument<double>()));
  });
  rt.kernel("copy", [](TaskContext& t) {
    const auto from = t.in(0);
    std::memcpy(t.out(1).data(), from.data(), from.size());
  });
}

constexpr ReductionStrategy strategies[] = {ReductionStrategy::tree, ReductionStrategy::all_to_one,
                                           ReductionStrategy::scatter, ReductionStrategy::automatic};

class EveryStrategy : public ::testing::TestWithParam<ReductionStrategy> {};
INSTANTIATE_TEST_SUITE_P(Reduction, EveryStrategy, ::testing::ValuesIn(strategies),
                         [](const auto& info) { return std::string(to_string(info.param)) == "auto" ? std::string("automatic") : std::string(to_string(info.param)); });

TEST_P(EveryStrategy, IntegerSumsAreExactWithAndWithoutAValue) {
  Options options;
  options.reduction = GetParam();
  Runtime rt(MPI_COMM_WORLD, options);
  register_kernels(rt);
  std::vector<std::int64_t> fresh(1001, -1), entered(7, 100);
  const int tasks = 5 * rt.size() + 3;
  rt.run([&](Head& head) {
    auto a = head.data(std::span(fresh), "fresh");  // no value: the reduction's is its first
    auto b = head.data(std::span(entered), "entered");
    head.enter(b);
    for (int i = 1; i <= tasks; ++i) {
      head.submit("add", {reduce(a, "sum")}, arguments(std::int64_t{i}));
      head.submit("add", {reduce(b, "sum")}, arguments(std::int64_t{1000 * i}));
    }
    head.read(a);
    head.read(b);
    head.wait();
    // The tasks the strategy lowered each reduction to, besides its contributions (m partials, one per
    // worker): m identities, then the fold's tasks; "fresh" has one more identity, as it had no value.
    const std::uint64_t m = static_cast<std::uint64_t>(head.workers());
    std::uint64_t fold = 0;
    if (GetParam() == ReductionStrategy::tree) fold = m;           // m - 1 combines and the last one
    if (GetParam() == ReductionStrategy::all_to_one) fold = 1;     // one combine of everything
    if (GetParam() == ReductionStrategy::scatter) fold = m > 1 ? 2 * m + 1 : 1;  // splits, combines, gather
    if (fold) { EXPECT_EQ(head.statistics().tasks, 2 * static_cast<std::uint64_t>(tasks) + 2 * (m + fold) + 1); }
  });
  if (!reads_here(rt)) return;
  const std::int64_t sum = std::int64_t{tasks} * (tasks + 1) / 2;
  for (std::int64_t v : fresh) ASSERT_EQ(v, sum);
  for (std::int64_t v : entered) ASSERT_EQ(v, 100 + 1000 * sum);
}

TEST_P(EveryStrategy, ReadOnEveryWorkerIsAnAllreduce) {
  Options options;
  options.scheduler = Scheduler::mapped;
  options.reduction = GetParam();
  Runtime rt(MPI_COMM_WORLD, options);
  register_kernels(rt);
  std::vector<double> total(4096, 0);
  std::vector<std::vector<double>> copies;
  rt.run([&](Head& head) {
    const int workers = head.workers();
    copies.assign(static_cast<std::size_t>(workers), std::vector<double>(total.size()));
    auto t = head.data(std::span(total), "total");
    head.enter(t);
    for (int round = 0; round < 2; ++round) {
      // Every worker contributes twice, named explicitly.
      for (int w = 0; w < 2 * workers; ++w)
        head.submit("add_f64", {reduce(t, "sum")}, arguments(double(w + 1)), {.worker = w % workers});
      // Then each worker reads the total into its own copy.
      for (int w = 0; w < workers; ++w) {
        auto c = head.data(std::span(copies[static_cast<std::size_t>(w)]), "copy" + std::to_string(w));
        head.submit("copy", {in(t), out(c)}, {}, {.worker = w});
        head.read(c);
      }
    }
    head.wait();
  });
  if (!reads_here(rt)) return;
  const double n = 2.0 * static_cast<double>(copies.size());
  const double per_round = n * (n + 1) / 2;
  for (const auto& c : copies)
    for (double v : c) ASSERT_EQ(v, 2 * per_round);  // small integers: exact in doubles
}

// scatter leaves the value in pieces on the workers: every later use must see it whole, under the
// schedulers that know a task's worker at submit (mapped, owner) and the one that does not (heft).
class EveryScheduler : public ::testing::TestWithParam<Scheduler> {};
INSTANTIATE_TEST_SUITE_P(Reduction, EveryScheduler, ::testing::Values(Scheduler::mapped, Scheduler::owner, Scheduler::heft),
                         [](const auto& info) { return std::string(to_string(info.param)); });

TEST_P(EveryScheduler, AScatteredValueReachesEveryLaterUse) {
  Options options;
  options.scheduler = GetParam();
  options.reduction = ReductionStrategy::scatter;
  options.mapping = [](const TaskInfo& t) { return static_cast<int>(t.task % static_cast<std::uint64_t>(t.workers)); };
  Runtime rt(MPI_COMM_WORLD, options);
  register_kernels(rt);
  rt.kernel("copy_i64", [](TaskContext& t) {
    const auto from = t.in(0);
    std::memcpy(t.out(1).data(), from.data(), from.size());
  });
  rt.kernel("double_i64", [](TaskContext& t) {
    for (std::int64_t& v : t.inout<std::int64_t>(0)) v *= 2;
  });
  rt.kernel("seven", [](TaskContext& t) {
    for (std::int64_t& v : t.out<std::int64_t>(0)) v = 7;
  });
  std::vector<std::int64_t> x(13, 1), last(13, 0);
  std::vector<std::vector<std::int64_t>> seen;
  std::int64_t after_double = 0;
  rt.run([&](Head& head) {
    const int workers = head.workers();
    seen.assign(static_cast<std::size_t>(workers), std::vector<std::int64_t>(x.size()));
    std::vector<Data> owned;  // one datum owned by each worker: under owner, a task's worker follows its data
    for (int w = 0; w < workers; ++w)
      owned.push_back(head.data(std::span(seen[static_cast<std::size_t>(w)]), "seen" + std::to_string(w), w));
    auto d = head.data(std::span(x), "x");
    head.enter(d);
    std::int64_t sum = 0;
    for (int w = 0; w < 2 * workers; ++w) {
      head.submit("add", {reduce(d, "sum"), out(owned[static_cast<std::size_t>(w % workers)])}, arguments(std::int64_t{w + 1}),
                  {.worker = w % workers});
      sum += w + 1;
    }
    // Readers on every worker: each takes the value whole.
    for (int w = 0; w < workers; ++w)
      head.submit("copy_i64", {in(d), out(owned[static_cast<std::size_t>(w)])}, {}, {.worker = w});
    for (const Data& o : owned) head.read(o);
    // A second reduction adds to the first's value; then a task updates it in place.
    for (int w = 0; w < workers; ++w) head.submit("add", {reduce(d, "sum")}, arguments(std::int64_t{100}), {.worker = w});
    head.submit("double_i64", {inout(d)}, {}, {.worker = 0});
    after_double = (1 + sum + 100 * workers) * 2;
    head.read(d);
    head.wait();
    if (rt.control() == Control::replicated || rt.is_head()) {
      for (const auto& s : seen)
        for (std::int64_t v : s) EXPECT_EQ(v, 1 + sum);
    }
    // A third one, overwritten before anything reads it.
    for (int w = 0; w < workers; ++w) head.submit("add", {reduce(d, "sum")}, arguments(std::int64_t{5}), {.worker = w});
    auto l = head.data(std::span(last), "last");
    head.submit("seven", {out(d)}, {}, {.worker = 0});
    head.submit("copy_i64", {in(d), out(l)}, {}, {.worker = workers - 1});
    head.read(l);
    head.wait();
  });
  if (!reads_here(rt)) return;
  for (std::int64_t v : x) EXPECT_EQ(v, after_double);
  for (std::int64_t v : last) EXPECT_EQ(v, 7);
}

TEST(Scratch, IsTheTasksAloneAndNeverMoved) {
  Options options;
  options.scheduler = Scheduler::mapped;
  Runtime rt(MPI_COMM_WORLD, options);
  // Fills two scratch areas with its argument, then writes their sums to its output: a scratch area another
  // task wrote at the same time, or one shared by the two uses, gives a wrong sum.
  rt.kernel("work", [](TaskContext& t) {
    const auto v = t.argument<std::int64_t>();
    auto a = t.out<std::int64_t>(0);
    auto b = t.out<std::int64_t>(2);
    EXPECT_EQ(a.size(), 64U);
    EXPECT_EQ(b.size(), 8U);
    for (auto& x : a) x = v;
    for (auto& x : b) x = 2 * v;
    std::int64_t sum = 0;
    for (auto x : a) sum += x;
    for (auto x : b) sum += x;
    t.out<std::int64_t>(1)[0] = sum;
  });
  const int tasks = 24;
  std::vector<std::int64_t> results(tasks, 0);
  std::uint64_t fetches = 0;
  rt.run([&](Head& head) {
    std::vector<Data> r;
    for (int i = 0; i < tasks; ++i) {
      r.push_back(head.data(std::span(&results[static_cast<std::size_t>(i)], 1), "r" + std::to_string(i)));
      head.submit("work", {scratch(64 * sizeof(std::int64_t)), out(r.back()), scratch(8 * sizeof(std::int64_t))},
                  arguments(std::int64_t{i}), {.worker = i % head.workers()});
    }
    head.wait();
    fetches = head.statistics().fetches;  // nothing read anything: nothing moved
    for (const Data& d : r) head.read(d);
    head.wait();
  });
  EXPECT_EQ(fetches, 0U);
  if (!reads_here(rt)) return;
  for (int i = 0; i < tasks; ++i) EXPECT_EQ(results[static_cast<std::size_t>(i)], 64 * i + 16 * i) << i;
}

TEST(Partition, OneDimensionalPiecesAreViewsAndComeBack) {
  Options options;
  options.scheduler = Scheduler::mapped;
  Runtime rt(MPI_COMM_WORLD, options);
  register_kernels(rt);
  // Writes where its input's bytes are into its output: the same address is the same replica.
  rt.kernel("where", [](TaskContext& t) {
    t.out<std::uintptr_t>(1)[0] = reinterpret_cast<std::uintptr_t>(t.in(0).data());
  });
  rt.kernel("add_index", [](TaskContext& t) {
    for (std::int64_t& v : t.inout<std::int64_t>(0)) v += t.argument<std::int64_t>();
  });
  std::vector<std::int64_t> x(1003);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<std::int64_t>(i);
  std::uintptr_t whole = 0, first = 0;
  std::vector<std::int64_t> piece_back(x.size(), -1);
  rt.run([&](Head& head) {
    const int last = head.workers() - 1;
    auto d = head.data(std::span(x), "x", last);
    auto w1 = head.data(std::span(&whole, 1), "where whole");
    auto w2 = head.data(std::span(&first, 1), "where piece 0");
    head.enter(d);
    head.submit("where", {in(d), out(w1)}, {}, {.worker = last});
    auto pieces = head.partition(d, 4);
    EXPECT_EQ(pieces.size(), 4U);
    EXPECT_EQ(pieces[0].bytes() + pieces[1].bytes() + pieces[2].bytes() + pieces[3].bytes(), d.bytes());
    EXPECT_EQ(pieces[0].element(), Element::i64);
    head.submit("where", {in(pieces[0]), out(w2)}, {}, {.worker = last});
    head.read(w1);
    head.read(w2);
    // The parent is refused while partitioned.
    try {
      head.submit("add_index", {inout(d)}, arguments(std::int64_t{1}));
      ADD_FAILURE() << "a partitioned datum was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("data 'x' is partitioned; use its pieces"), std::string::npos) << e.what();
    }
    for (int i = 0; i < 4; ++i)
      head.submit("add_index", {inout(pieces[static_cast<std::size_t>(i)])}, arguments(std::int64_t{1000 * (i + 1)}),
                  {.worker = i % head.workers()});
    head.read(pieces[3]);  // a piece's read lands in its part of the program's buffer
    head.wait();
    if (rt.control() == Control::replicated || rt.is_head()) {
      const std::size_t from = x.size() - pieces[3].bytes() / sizeof(std::int64_t);
      EXPECT_EQ(x[from], static_cast<std::int64_t>(from) + 4000);
    }
    head.unpartition(d);
    try {
      head.submit("add_index", {inout(pieces[1])}, arguments(std::int64_t{1}));
      ADD_FAILURE() << "a retired piece was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("is a piece of 'x', which was unpartitioned"), std::string::npos) << e.what();
    }
    head.submit("add_index", {inout(d)}, arguments(std::int64_t{1}), {.worker = 0});
    head.read(d);
    head.wait();
  });
  if (!reads_here(rt)) return;
  // piece_sizes: 1003 elements in 4 pieces of 251, 251, 251, 250.
  for (std::size_t i = 0; i < x.size(); ++i)
    ASSERT_EQ(x[i], static_cast<std::int64_t>(i) + 1000 * static_cast<std::int64_t>(i / 251 + 1) + 1) << i;
  // The piece read where the whole was: a view of the same replica, not a copy.
  EXPECT_NE(whole, 0U);
  EXPECT_EQ(first, whole);
}

TEST(Partition, TwoDimensionalBlocksRoundTrip) {
  Runtime rt(MPI_COMM_WORLD);
  register_kernels(rt);
  rt.kernel("scale_block", [](TaskContext& t) {
    for (double& v : t.inout<double>(0)) v *= t.argument<double>();
  });
  const std::size_t rows = 7, columns = 5;
  std::vector<double> m(rows * columns);
  for (std::size_t i = 0; i < m.size(); ++i) m[i] = static_cast<double>(i);
  rt.run([&](Head& head) {
    auto d = head.data(std::span(m), "m");
    head.enter(d);
    auto blocks = head.partition(d, Blocks2D{.rows = rows, .columns = columns, .block_rows = 3, .block_columns = 2});
    ASSERT_EQ(blocks.size(), 9U);  // 3 x 3 blocks: rows 3+3+1, columns 2+2+1
    EXPECT_EQ(blocks[0].bytes(), 6 * sizeof(double));
    EXPECT_EQ(blocks[8].bytes(), 1 * sizeof(double));
    for (std::size_t b = 0; b < blocks.size(); ++b) head.submit("scale_block", {inout(blocks[b])}, arguments(double(b + 1)));
    try {
      head.read(blocks[4]);
      ADD_FAILURE() << "a block's read was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("is a 2-D block"), std::string::npos) << e.what();
    }
    head.unpartition(d);
    head.read(d);
    head.wait();
  });
  if (!reads_here(rt)) return;
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < columns; ++c) {
      const double block = static_cast<double>((r / 3) * 3 + c / 2 + 1);
      ASSERT_EQ(m[r * columns + c], static_cast<double>(r * columns + c) * block) << r << "," << c;
    }
}

// Sums of doubles whose order matters: the same bits run after run.
std::vector<double> sum_of_doubles(ReductionStrategy strategy) {
  Options options;
  options.reduction = strategy;
  Runtime rt(MPI_COMM_WORLD, options);
  register_kernels(rt);
  std::vector<double> x(64, 0.0);
  rt.run([&](Head& head) {
    auto d = head.data(std::span(x), "x");
    for (int i = 0; i < 40; ++i) {
      const double v = (i % 3 == 0 ? 1e16 : 1.0) * (i % 2 ? -1.0 : 1.0) + 0.1 * i;
      head.submit("add_f64", {reduce(d, "sum")}, arguments(v));
    }
    head.read(d);
    head.wait();
  });
  return x;
}

TEST(Reduction, DoublesAreTheSameBitsRunToRun) {
  for (auto strategy : strategies) {
    const auto first = sum_of_doubles(strategy);
    const auto second = sum_of_doubles(strategy);
    EXPECT_EQ(std::memcmp(first.data(), second.data(), first.size() * sizeof(double)), 0) << to_string(strategy);
  }
}

// A mean kept as (sum, count): its combine needs the whole pair, so it is never cut into pieces.
struct Mean {
  double sum;
  double count;
};

TEST_P(EveryStrategy, MinMaxUserOperatorsAndOneOperatorAfterAnother) {
  Options options;
  options.reduction = GetParam();
  Runtime rt(MPI_COMM_WORLD, options);
  register_kernels(rt);
  rt.reduction<double>("absmax", 0.0, [](double& into, const double& from) {
    into = std::max(std::abs(into), std::abs(from));
  });
  rt.reduction(
      "mean", [](std::span<std::byte> p) { std::memset(p.data(), 0, p.size()); },
      [](std::span<std::byte> into, std::span<const std::byte> from) {
        ASSERT_EQ(into.size(), sizeof(Mean));
        Mean a, b;
        std::memcpy(&a, into.data(), sizeof a);
        std::memcpy(&b, from.data(), sizeof b);
        a.sum += b.sum;
        a.count += b.count;
        std::memcpy(into.data(), &a, sizeof a);
      });
  rt.kernel("sample", [](TaskContext& t) {
    Mean m;
    std::memcpy(&m, t.out(0).data(), sizeof m);
    m.sum += t.argument<double>();
    m.count += 1;
    std::memcpy(t.out(0).data(), &m, sizeof m);
  });
  std::vector<double> lo(5), hi(5), am(3), seq(2);
  Mean mean{};
  rt.run([&](Head& head) {
    auto l = head.data(std::span(lo), "lo");
    auto h = head.data(std::span(hi), "hi");
    auto a = head.data(std::span(am), "am");
    auto s = head.data(std::span(seq), "seq");
    auto me = head.data(std::span(&mean, 1), "mean");
    for (int i = 0; i < 9; ++i) {
      head.submit("sample", {reduce(me, "mean")}, arguments(double(i)));
      const double v = (i - 4) * 1.5;
      head.submit("lower", {reduce(l, "min")}, arguments(v));
      head.submit("raise", {reduce(h, "max")}, arguments(v));
      head.submit("raise_abs", {reduce(a, "absmax")}, arguments(v));
    }
    // sum then max on one datum, with no other use between: the sum is folded before the max starts.
    for (int i = 1; i <= 4; ++i) head.submit("add_f64", {reduce(s, "sum")}, arguments(double(i)));
    head.submit("raise", {reduce(s, "max")}, arguments(3.0));
    head.read(l);
    head.read(h);
    head.read(a);
    head.read(s);
    head.read(me);
    head.wait();
  });
  if (!reads_here(rt)) return;
  EXPECT_EQ(mean.sum, 36.0);
  EXPECT_EQ(mean.count, 9.0);
  for (double v : lo) EXPECT_EQ(v, -6.0);
  for (double v : hi) EXPECT_EQ(v, 6.0);
  for (double v : am) EXPECT_EQ(v, 6.0);
  for (double v : seq) EXPECT_EQ(v, 10.0);  // max(10, 3)
}

TEST(Reduction, BadUsesAreRefusedByName) {
  Runtime rt(MPI_COMM_WORLD);
  register_kernels(rt);
  std::vector<double> x(4, 0);
  std::vector<std::byte> raw(8);
  const auto message = [](const auto& call) {
    try {
      call();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  rt.run([&](Head& head) {
    auto d = head.data(std::span(x), "x");
    auto r = head.data(std::span(raw), "raw");
    const std::string unknown = message([&] { head.submit("add_f64", {reduce(d, "summ")}); });
    EXPECT_NE(unknown.find("no reduction operator 'summ'"), std::string::npos) << unknown;
    EXPECT_NE(unknown.find("did you mean 'sum'?"), std::string::npos) << unknown;
    const std::string untyped = message([&] { head.submit("add", {reduce(r, "sum")}); });
    EXPECT_NE(untyped.find("reduce(data 'raw', sum) needs an element type"), std::string::npos) << untyped;
    const std::string twice = message([&] { head.submit("add_f64", {in(d), reduce(d, "sum")}); });
    EXPECT_NE(twice.find("names data 'x' twice"), std::string::npos) << twice;
    head.enter(d);
    head.read(d);
    head.wait();
  });
  EXPECT_NE(message([&] { rt.reduction<double>("sum", 0.0, [](double&, const double&) {}); }).find("built-in"),
            std::string::npos);
}

}  // namespace
}  // namespace herald::runtime
