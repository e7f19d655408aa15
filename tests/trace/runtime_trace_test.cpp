// A traced run of the task runtime, checked against the graph it ran: every task once, on the worker it
// was mapped to, named by its kernel; every transfer between processes that hold and need the version;
// every broadcast's recipients as its root recorded them, each recording its part. Under every strategy.
#include <herald/error.hpp>
#include <herald/runtime/runtime.hpp>

#include <gtest/gtest.h>
#include <mpi.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace herald::runtime {
namespace {

struct Expected {
  std::map<std::int64_t, std::pair<int, std::string>> tasks;  // task -> (rank, kernel)
  std::map<std::int64_t, std::int64_t> producer_of;            // a task -> the task whose output it reads
};

void check_trace(const std::string& file, const Expected& expected, BroadcastStrategy strategy, int size,
                 bool replicated) {
  std::ifstream in(file);
  ASSERT_TRUE(in) << "no trace at " << file;
  const nlohmann::json trace = nlohmann::json::parse(in);
  const std::string what = to_string(strategy);
  std::map<std::int64_t, int> runs;
  std::map<std::int64_t, nlohmann::json> task_of;
  std::set<std::pair<int, std::string>> held;  // (rank, "data.version") each rank made or received
  std::vector<nlohmann::json> transfers, broadcasts;
  int submitted = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "i" && e["cat"] == "submit") ++submitted;
    if (e["ph"] != "X") continue;
    if (e["cat"] == "task") {
      ++runs[e["args"]["task"]];
      task_of[e["args"]["task"]] = e;
    }
    if (e["cat"] == "transfer") transfers.push_back(e);
    if (e["cat"] == "broadcast") broadcasts.push_back(e);
  }
  EXPECT_EQ(submitted, static_cast<int>(expected.tasks.size())) << what;
  for (const auto& [task, where] : expected.tasks) {
    ASSERT_EQ(runs[task], 1) << what << ": task " << task << " ran " << runs[task] << " times";
    EXPECT_EQ(task_of[task]["pid"], where.first) << what << ": task " << task;
    EXPECT_EQ(task_of[task]["name"], where.second) << what << ": task " << task;
    // Ready after submitted, on one clock (microseconds; the clocks of one host are put on one exactly).
    EXPECT_GE(task_of[task]["args"]["ready"].get<double>(), task_of[task]["args"]["submit"].get<double>() - 5)
        << what << ": task " << task;
  }
  for (const auto& [task, producer] : expected.producer_of) {
    const auto& producers = task_of[task]["args"]["producers"];
    EXPECT_NE(std::find(producers.begin(), producers.end(), producer), producers.end())
        << what << ": task " << task << " reads task " << producer << "'s output";
  }
  // Every version a transfer moved came from a rank that made it (rank 0 for entered data) or got it.
  std::set<std::pair<int, std::string>> has;
  auto version = [](const nlohmann::json& args) {
    return std::to_string(args["data"].get<long>()) + "." + std::to_string(args["version"].get<long>());
  };
  for (const auto& b : broadcasts) has.insert({b["pid"].get<int>(), version(b["args"])});
  for (const auto& t : transfers) has.insert({t["args"]["to"].get<int>(), version(t["args"])});
  // Data are named as the program named them: "shared" and "made" first, then the sums.
  const auto check_name = [&](const nlohmann::json& a) {
    const std::string name = a["name"];
    if (a["data"] == 0) EXPECT_EQ(name, "shared") << what;
    else if (a["data"] == 1) EXPECT_EQ(name, "made") << what;
    else EXPECT_TRUE(name.starts_with("sum ") || name.starts_with("part ") || name == "last") << what << ": " << name;
  };
  for (const auto& b : broadcasts) check_name(b["args"]);
  for (const auto& t : transfers) {
    const auto& a = t["args"];
    check_name(a);
    EXPECT_EQ(a["to"], t["pid"]) << what;
    EXPECT_NE(a["from"], a["to"]) << what;
    const int from = a["from"];
    const std::int64_t producer = a["producer"];
    const bool made_there = producer >= 0 && task_of.count(producer) && task_of[producer]["pid"] == from;
    EXPECT_TRUE(made_there || from == 0 || has.count({from, version(a)}))
        << what << ": rank " << from << " sent " << version(a) << " without holding it";
    const std::int64_t needing = a["task"];
    ASSERT_TRUE(task_of.count(needing)) << what;
    EXPECT_EQ(task_of[needing]["pid"], t["pid"]) << what << ": the transfer's task runs where it lands";
  }
  // Each broadcast: the root's record lists its recipients, and each of them recorded its part.
  std::map<std::int64_t, std::set<int>> recipients_listed, recipients_recorded;
  std::map<std::int64_t, int> roots;
  for (const auto& b : broadcasts) {
    const auto& a = b["args"];
    EXPECT_EQ(b["name"], what);
    if (a["role"] == "root") {
      EXPECT_EQ(a["root"], b["pid"]) << what;
      ++roots[a["id"]];
      for (int r : a["recipients"]) recipients_listed[a["id"]].insert(r);
    } else {
      recipients_recorded[a["id"]].insert(b["pid"].get<int>());
    }
  }
  // Head control: `shared` to every worker (rank 0 roots it), `made` to workers 1 and 2. Replicated: every
  // rank is a worker; `shared` goes from rank 0 to the others, `made` from rank 0 to ranks 1 and 2, and
  // `last`, read back, from its maker to every other rank.
  std::size_t expected_broadcasts = 0;
  if (strategy != BroadcastStrategy::nobcast) {
    const int workers = replicated ? size : size - 1;
    const int shared_recipients = replicated ? size - 1 : workers;
    expected_broadcasts = (shared_recipients >= 2 ? 1 : 0) + (std::min(workers, 3) - 1 >= 2 ? 1 : 0) +
                          (replicated && size - 1 >= 2 ? 1 : 0);
  }
  EXPECT_EQ(roots.size(), expected_broadcasts) << what;
  for (const auto& [id, n] : roots) {
    EXPECT_EQ(n, 1) << what;
    EXPECT_EQ(recipients_listed[id], recipients_recorded[id]) << what << ": broadcast " << id;
    EXPECT_GE(recipients_listed[id].size(), 2u) << what;
  }
}

TEST(TraceRuntime, TheTraceIsTheGraphThatRan) {
  int size = 1, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  ASSERT_GE(size, 2) << "the head and at least one worker";
  const bool replicated = Runtime(MPI_COMM_WORLD).control() == Control::replicated;
  // The rank of worker w: head control numbers the workers from rank 1.
  const int workers = replicated ? size : size - 1;
  const auto rank_of = [&](int w) { return replicated ? w : w + 1; };
  // Under replicated control a directory of its own: both modes' tests may run at once.
  const std::string base = std::string(std::getenv("HERALD_TEST_TRACE_DIR") ? std::getenv("HERALD_TEST_TRACE_DIR") : "trace-rt") +
                           (replicated ? "-replicated" : "");
  for (BroadcastStrategy strategy : {BroadcastStrategy::nobcast, BroadcastStrategy::p2p, BroadcastStrategy::dynbcast,
                                     BroadcastStrategy::mpibcast, BroadcastStrategy::mpibcast_herald}) {
    const std::string dir = base + "/" + to_string(strategy);
    Expected expected;
    {
      Runtime rt(MPI_COMM_WORLD, {.scheduler = Scheduler::mapped, .broadcast = strategy, .trace = dir});
      rt.kernel("fill", [](TaskContext& t) {
        for (double& v : t.out<double>(0)) v = t.argument<double>();
      });
      rt.kernel("sum", [](TaskContext& t) {
        double s = 0;
        for (std::size_t a = 0; a + 1 < t.accesses(); ++a)
          for (double v : t.in<double>(a)) s += v;
        t.out<double>(t.accesses() - 1)[0] = s;
      });
      std::vector<double> shared(20000, 1.0), made(1000);
      std::vector<std::vector<double>> sums(static_cast<std::size_t>(2 * workers + 1), std::vector<double>(1));
      rt.run([&](Head& head) {
        const Data all = head.data(std::span(shared), "shared");
        const Data part = head.data(std::span(made), "made");
        head.enter(all);
        const auto fill = head.submit("fill", {out(part)}, arguments(2.0), {.worker = 0});
        expected.tasks[static_cast<std::int64_t>(fill)] = {rank_of(0), "fill"};
        std::vector<Data> firsts;
        std::uint64_t first_sum = 0;
        for (int w = 0; w < workers; ++w) {
          const Data s = head.data(std::span(sums[static_cast<std::size_t>(w)]), "sum " + std::to_string(w));
          const auto t = head.submit("sum", {in(all), out(s)}, {}, {.worker = w});
          expected.tasks[static_cast<std::int64_t>(t)] = {rank_of(w), "sum"};
          if (w == 0) first_sum = t;
          firsts.push_back(s);
        }
        for (int w = 1; w < std::min(workers, 3); ++w) {
          const Data s = head.data(std::span(sums[static_cast<std::size_t>(workers + w)]), "part " + std::to_string(w));
          const auto t = head.submit("sum", {in(part), out(s)}, {}, {.priority = w, .worker = w});
          expected.tasks[static_cast<std::int64_t>(t)] = {rank_of(w), "sum"};
          expected.producer_of[static_cast<std::int64_t>(t)] = static_cast<std::int64_t>(fill);
        }
        // The last worker reads what the first made: a transfer between them.
        const Data last = head.data(std::span(sums.back()), "last");
        const auto t = head.submit("sum", {in(firsts.front()), out(last)}, {}, {.worker = workers - 1});
        expected.tasks[static_cast<std::int64_t>(t)] = {rank_of(workers - 1), "sum"};
        expected.producer_of[static_cast<std::int64_t>(t)] = static_cast<std::int64_t>(first_sum);
        head.read(last);
        head.wait();
      });
    }  // the trace is written as the runtime goes
    if (rank == 0) check_trace(dir + "/trace.json", expected, strategy, size, replicated);
  }
}

}  // namespace
}  // namespace herald::runtime
