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

TEST(Reduction, IntegerSumsAreExactWithAndWithoutAValue) {
  Runtime rt(MPI_COMM_WORLD);
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
  });
  if (!reads_here(rt)) return;
  const std::int64_t sum = std::int64_t{tasks} * (tasks + 1) / 2;
  for (std::int64_t v : fresh) ASSERT_EQ(v, sum);
  for (std::int64_t v : entered) ASSERT_EQ(v, 100 + 1000 * sum);
}

TEST(Reduction, ReadOnEveryWorkerIsAnAllreduce) {
  Options options;
  options.scheduler = Scheduler::mapped;
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
  for (auto strategy : {ReductionStrategy::tree, ReductionStrategy::all_to_one}) {
    const auto first = sum_of_doubles(strategy);
    const auto second = sum_of_doubles(strategy);
    EXPECT_EQ(std::memcmp(first.data(), second.data(), first.size() * sizeof(double)), 0) << to_string(strategy);
  }
}

TEST(Reduction, MinMaxUserOperatorsAndOneOperatorAfterAnother) {
  Runtime rt(MPI_COMM_WORLD);
  register_kernels(rt);
  rt.reduction<double>("absmax", 0.0, [](double& into, const double& from) {
    into = std::max(std::abs(into), std::abs(from));
  });
  std::vector<double> lo(5), hi(5), am(3), seq(2);
  rt.run([&](Head& head) {
    auto l = head.data(std::span(lo), "lo");
    auto h = head.data(std::span(hi), "hi");
    auto a = head.data(std::span(am), "am");
    auto s = head.data(std::span(seq), "seq");
    for (int i = 0; i < 9; ++i) {
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
    head.wait();
  });
  if (!reads_here(rt)) return;
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
