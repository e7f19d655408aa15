// The trace recorder and its formats, without MPI: what is recorded is read back whole and in each thread's
// order, full buffers spill and a torn spill file keeps its whole blocks, clocks are put on one, and the
// Chrome file says what was recorded.
#include <herald/error.hpp>
#include <herald/trace.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

namespace herald::trace {
namespace {

// A folder of the test's own in TMPDIR, removed when the test ends.
class Scratch {
 public:
  explicit Scratch(const std::string& name)
      : path_(std::filesystem::temp_directory_path() /
              ("herald-trace-test-" + std::to_string(::getpid()) + "-" + name)) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~Scratch() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  operator const std::filesystem::path&() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

// prefix and number (built by appending: GCC 12 warns, wrongly, of overlapping copies in "k" + to_string()).
std::string numbered(const char* prefix, std::int64_t n) {
  std::string s(prefix);
  s += std::to_string(n);
  return s;
}

// A clock that ticks one second a reading, from every thread: readings are unique and ordered.
struct TickingClock {
  std::shared_ptr<std::atomic<int>> ticks = std::make_shared<std::atomic<int>>(0);
  double operator()() const { return ticks->fetch_add(1); }
};

TEST(TraceRecorder, ReadsBackEveryEventInEachThreadsOrder) {
  const Scratch dir("order");
  Recorder recorder(TickingClock{}, dir / "r.events", 3, /*capacity=*/7);
  constexpr int threads = 4, per_thread = 100;
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      recorder.thread(numbered("worker ", t));
      for (int i = 0; i < per_thread; ++i) {
        const double begin = recorder.now();
        recorder.span(Kind::task, begin, /*a=*/t * 1000 + i, 0, 0, 0, 0, recorder.string(numbered("k", t)));
      }
    });
  for (auto& t : pool) t.join();
  recorder.flush();
  EXPECT_GT(recorder.spills(), static_cast<std::size_t>(threads * per_thread / 7 - 1));  // buffers filled and spilled
  const Log log = recorder.read();
  EXPECT_EQ(log.rank, 3);
  ASSERT_EQ(log.events.size(), static_cast<std::size_t>(threads * per_thread));
  ASSERT_EQ(log.threads.size(), static_cast<std::size_t>(threads));
  std::map<std::uint16_t, std::vector<const Event*>> by_thread;
  for (const Event& e : log.events) by_thread[e.thread].push_back(&e);
  for (const auto& [thread, events] : by_thread) {
    ASSERT_EQ(events.size(), static_cast<std::size_t>(per_thread));
    const std::int64_t t = events.front()->a / 1000;
    EXPECT_EQ(log.threads[thread], numbered("worker ", t));
    EXPECT_EQ(log.strings.at(events.front()->name), numbered("k", t));
    for (int i = 0; i < per_thread; ++i) {
      EXPECT_EQ(events[static_cast<std::size_t>(i)]->a, t * 1000 + i);  // the thread's order
      EXPECT_LT(events[static_cast<std::size_t>(i)]->begin, events[static_cast<std::size_t>(i)]->end);
      if (i > 0) {
        EXPECT_GT(events[static_cast<std::size_t>(i)]->begin, events[static_cast<std::size_t>(i) - 1]->end);
      }
    }
  }
}

TEST(TraceRecorder, AFullBufferSpillsAndMemoryStaysAtItsCapacity) {
  const Scratch dir("overflow");
  Recorder recorder(TickingClock{}, dir / "r.events", 0, /*capacity=*/10);
  for (int i = 0; i < 25; ++i) recorder.record({.a = i, .kind = Kind::submit});
  EXPECT_EQ(recorder.spills(), 2u);  // at the 11th and the 21st
  recorder.flush();
  EXPECT_EQ(recorder.spills(), 3u);
  const Log log = recorder.read();
  ASSERT_EQ(log.events.size(), 25u);
  for (int i = 0; i < 25; ++i) EXPECT_EQ(log.events[static_cast<std::size_t>(i)].a, i);
}

TEST(TraceRecorder, ATornSpillFileKeepsItsWholeBlocks) {
  const Scratch dir("torn");
  {
    Recorder recorder(TickingClock{}, dir / "r.events", 0, /*capacity=*/4);
    for (int i = 0; i < 10; ++i) recorder.record({.a = i, .name = recorder.string(numbered("s", i)),
                                                   .kind = Kind::submit});
    recorder.flush();  // blocks of 4, 4 and 2 events
  }
  std::vector<std::byte> bytes = read_file(dir / "r.events");
  bytes.resize(bytes.size() - sizeof(Event) / 2);  // a crash in the middle of the last block
  const Log log = decode_spill(bytes, 5);
  ASSERT_EQ(log.events.size(), 8u);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(log.strings.at(log.events[static_cast<std::size_t>(i)].name), numbered("s", i));
  std::vector<std::byte> garbage(64, std::byte{0x5a});
  EXPECT_THROW(decode_spill(garbage, 0), Error);
}

TEST(TraceRecorder, AnUnwritableSpillFileIsRefusedNamingIt) {
  try {
    Recorder recorder(TickingClock{}, "/nonexistent-dir/r.events", 0);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/r.events"), std::string::npos) << e.what();
  }
}

TEST(TraceRecover, ARunsSpillFilesAndStartClocksMakeItsTrace) {
  const Scratch dir("recover");
  std::filesystem::create_directories(dir / "raw");
  for (int r = 0; r < 3; ++r) {
    if (r == 1) continue;  // rank 1 left no file
    Recorder recorder(TickingClock{}, dir / "raw" / ("rank-" + std::to_string(r) + ".events"), r, 4);
    for (int i = 0; i < 10; ++i) recorder.record({.begin = 100.0 + i, .end = 100.5 + i, .a = r * 100 + i, .kind = Kind::submit});
    // No flush: the last two events stay in the buffer, as a crash leaves them.
  }
  Recording clocks;
  clocks.clocks.resize(3);
  clocks.clocks[2] = {.local_start = 50, .offset_start = 7, .error = 1e-6};
  write_clocks(clocks, dir / "raw" / "clocks.json");
  const Recording run = recover(dir);
  ASSERT_EQ(run.logs.size(), 3u);
  EXPECT_EQ(run.logs[0].events.size(), 8u);  // two whole blocks of four
  EXPECT_TRUE(run.logs[1].events.empty());
  ASSERT_EQ(run.logs[2].events.size(), 8u);
  EXPECT_EQ(run.logs[2].events[3].a, 203);
  EXPECT_DOUBLE_EQ(run.clocks[2].to_reference(100), 93);
  EXPECT_DOUBLE_EQ(run.clocks[2].error, 1e-6);
  std::filesystem::remove(dir / "raw" / "clocks.json");
  EXPECT_THROW(recover(dir), Error);
}

TEST(TraceClock, TheShortestRoundTripGivesTheOffset) {
  // The remote clock is 5 s ahead; the second probe's reply was delayed by 3 s on its way back.
  const std::vector<Probe> probes{{10.0, 15.5, 11.0}, {20.0, 25.5, 24.0}, {30.0, 35.25, 30.5}};
  EXPECT_DOUBLE_EQ(offset_from(probes), 35.25 - 30.25);
}

TEST(TraceClock, OffsetsMoveLinearlyBetweenTheirMeasurements) {
  ClockFit fit{.local_start = 100, .offset_start = 2, .local_end = 200, .offset_end = 4, .has_end = true};
  EXPECT_DOUBLE_EQ(fit.to_reference(100), 98);
  EXPECT_DOUBLE_EQ(fit.to_reference(150), 147);
  EXPECT_DOUBLE_EQ(fit.to_reference(200), 196);
  fit.has_end = false;
  EXPECT_DOUBLE_EQ(fit.to_reference(150), 148);
}

TEST(TraceChrome, WritesWhatWasRecordedOnTheReferenceClock) {
  const Scratch dir("chrome");
  Recording run;
  run.logs.resize(2);
  run.clocks.resize(2);
  run.clocks[1].offset_start = 10;  // rank 1's clock is 10 s ahead
  for (int r = 0; r < 2; ++r) {
    run.logs[r].rank = r;
    run.logs[r].strings = {"", "gemm", "binomial", "auto: cost model"};
    run.logs[r].threads = {"main", "kernel 1"};
  }
  // Rank 0 submits task 7 at 1 s; rank 1 runs it from (its) 12 s to 13 s, ready at 11.5 s, having fetched
  // version 3 of datum 2 that task 4 wrote.
  run.logs[0].events.push_back({.begin = 1, .end = 1, .a = 7, .name = 1, .kind = Kind::submit});
  run.logs[0].events.push_back({.begin = 1, .end = 1, .a = 7, .b = 4, .kind = Kind::producer});
  run.logs[0].events.push_back({.begin = 1, .end = 1, .a = 4, .e = (std::int64_t{2} << 32) | 3, .kind = Kind::version});
  run.logs[1].events.push_back({.begin = 12, .end = 13, .mark = 11.5, .a = 7, .b = 2, .name = 1, .kind = Kind::task,
                                .thread = 1});
  run.logs[1].events.push_back({.begin = 11, .end = 11.5, .a = 0, .b = 1, .c = 4096, .d = 7,
                                .e = (std::int64_t{2} << 32) | 3, .kind = Kind::transfer});
  // A broadcast of 64 bytes from rank 0: its send at 1.5-2 s, rank 1's receive at (its) 11.25-12.25 s.
  run.logs[0].events.push_back({.begin = 1.5, .end = 2, .a = 9, .b = 77, .c = 1, .d = 64, .kind = Kind::send});
  run.logs[1].events.push_back({.begin = 11.25, .end = 12.25, .a = 9, .b = 77, .c = 0, .d = 64, .kind = Kind::recv});
  run.logs[0].events.push_back({.begin = 1.5, .end = 2, .a = 9, .b = 77, .c = 0, .d = 64, .name = 2, .detail = 3,
                                .kind = Kind::bcast});
  write_chrome_json(run, dir / "trace.json");
  std::ifstream in(dir / "trace.json");
  const nlohmann::json trace = nlohmann::json::parse(in);
  ASSERT_TRUE(trace.contains("traceEvents"));
  EXPECT_EQ(trace["otherData"]["ranks"], 2);
  std::map<std::string, nlohmann::json> by_cat;
  int flows = 0;
  for (const auto& e : trace["traceEvents"]) {
    ASSERT_TRUE(e.contains("ph") && e.contains("pid")) << e.dump();
    if (e["ph"] == "X" || e["ph"] == "i") by_cat[e["cat"]] = e;
    if (e["ph"] == "s" || e["ph"] == "f") ++flows;
  }
  // Times in microseconds from the first event (the submission, at 1 s on the reference clock).
  const auto& task = by_cat.at("task");
  EXPECT_EQ(task["name"], "gemm");
  EXPECT_EQ(task["pid"], 1);
  EXPECT_EQ(task["tid"], 1);
  EXPECT_DOUBLE_EQ(task["ts"].get<double>(), 1e6);       // 12 - 10 - 1 s
  EXPECT_DOUBLE_EQ(task["dur"].get<double>(), 1e6);
  EXPECT_DOUBLE_EQ(task["args"]["ready"].get<double>(), 0.5e6);
  EXPECT_DOUBLE_EQ(task["args"]["submit"].get<double>(), 0);
  EXPECT_EQ(task["args"]["producers"], nlohmann::json::array({4}));
  const auto& transfer = by_cat.at("transfer");
  EXPECT_EQ(transfer["args"]["bytes"], 4096);
  EXPECT_EQ(transfer["args"]["data"], 2);
  EXPECT_EQ(transfer["args"]["version"], 3);
  EXPECT_EQ(transfer["args"]["producer"], 4);
  EXPECT_EQ(transfer["args"]["task"], 7);
  EXPECT_EQ(by_cat.at("bcast")["name"], "binomial");
  EXPECT_EQ(by_cat.at("bcast")["args"]["why"], "auto: cost model");
  EXPECT_EQ(by_cat.at("recv")["args"]["from"], 0);
  EXPECT_EQ(flows, 2);  // the send's arrow to its receive
  EXPECT_EQ(trace["otherData"]["offsets_us"][1].get<double>(), 10e6);
}

}  // namespace
}  // namespace herald::trace
