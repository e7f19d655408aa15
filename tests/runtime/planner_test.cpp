// The planner both controls share (planner.hpp), without MPI. On every history of up to five calls over
// two data and two workers, under each control's use of it (the head's one planner; each replicated rank's,
// which tells its own tasks only), every access is placed as the rules say, stated directly below, and a
// call they refuse records nothing. On random
// programs over 2 to 5 ranks and two batches: every rank planning the program alone (replicated control)
// places every task as one planner for all does (head control's use), and keeps exactly the broadcasts it
// takes part in, with the same trees; a planner that waits for the batch's schedule with every task (head
// control's use) and one that places at submission what the scheduler places there (replicated control's)
// agree on every task's rank and reads, and under heft or with planned trees on everything.
#include "histories.hpp"
#include "planner.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <random>
#include <string>
#include <vector>

namespace herald::runtime::detail {
namespace {

struct PlacedRecord {
  std::uint64_t id;
  std::uint32_t kernel;
  int rank;
  int priority;
  double start;
  std::vector<TaskAccess> accesses;
  friend bool operator==(const PlacedRecord&, const PlacedRecord&) = default;
};

struct SettledRecord {
  Key key;
  bool superseded;
  bool broadcast;
  std::vector<int> holders;
  friend bool operator==(const SettledRecord&, const SettledRecord&) = default;
};

// Everything the planner tells its control, in order.
struct Sink final : PlanSink {
  std::vector<std::pair<Key, int>> entered_;
  std::vector<std::pair<std::uint32_t, std::uint64_t>> reads;
  std::vector<PlacedRecord> placed_;
  std::vector<SettledRecord> settled_;
  void entered(const Key& key, int rank) override { entered_.emplace_back(key, rank); }
  void read(std::uint32_t handle, bool, std::uint64_t id) override { reads.emplace_back(handle, id); }
  void placed(PlacedTask& t) override {
    placed_.push_back({t.id, t.kernel, t.rank, t.priority, t.start, {t.accesses.begin(), t.accesses.end()}});
  }
  void settled(const DataPlan::Settled& s) override {
    settled_.push_back({s.key, s.superseded, s.broadcast, s.replicas.holders});
  }
};

// Made once: the exhaustive test builds hundreds of thousands of planners.
const std::vector<KernelEntry>& kernels() {
  static const std::vector<KernelEntry> entries{{"a", {}, {}}, {"b", {}, {}}};
  return entries;
}
const std::vector<std::vector<std::string>>& kernel_names(int ranks) {
  static std::vector<std::vector<std::vector<std::string>>> names;
  for (int r = static_cast<int>(names.size()); r <= ranks; ++r) names.emplace_back(static_cast<std::size_t>(r), std::vector<std::string>{"a", "b"});
  return names[static_cast<std::size_t>(ranks)];
}

std::vector<std::byte>& buffer() {
  static std::vector<std::byte> bytes(1 << 20);
  return bytes;
}

// The ranks a planner of `shape` plans for: its workers' and, under head control, the head's.
int ranks_of(const PlannerShape& shape) { return static_cast<int>(shape.workers) + shape.first_worker; }

// Replicated control's use: rank `rank`'s planner, or one that tells every rank's tasks.
PlannerShape replicated_shape(int ranks, std::optional<int> rank) {
  return {.workers = static_cast<std::size_t>(ranks), .first_worker = 0, .entered_on_owner = true,
          .schedule_all = false, .own_rank = rank};
}

// A program's calls, drawn at random; applied alike to every planner.
struct Op {
  enum Kind { data, enter, read, task, wait } kind;
  std::size_t bytes = 0;
  int owner = 0;
  std::uint32_t handle = 0;
  std::vector<std::pair<std::uint32_t, Mode>> uses{};
  int priority = 0;
  int worker = 0;
  std::string kernel = "a";
};

std::vector<Op> random_program(std::mt19937& rng, int ranks) {
  const auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  std::vector<Op> ops;
  const int handles = 2 + pick(4);
  std::vector<bool> has_value(static_cast<std::size_t>(handles), false);
  for (int h = 0; h < handles; ++h) {
    const std::size_t sizes[] = {8, 4096, 1 << 20};
    ops.push_back({.kind = Op::data, .bytes = sizes[pick(3)], .owner = pick(ranks)});
  }
  for (int h = 0; h < handles; ++h)
    if (pick(3) > 0) {
      ops.push_back({.kind = Op::enter, .handle = static_cast<std::uint32_t>(h)});
      has_value[static_cast<std::size_t>(h)] = true;
    }
  for (int batch = 0; batch < 2; ++batch) {
    const int events = 4 + pick(12);
    for (int e = 0; e < events; ++e) {
      const int kind = pick(10);
      const auto h = static_cast<std::uint32_t>(pick(handles));
      if (kind == 0 && has_value[h]) {
        ops.push_back({.kind = Op::read, .handle = h});
        continue;
      }
      Op op{.kind = Op::task, .priority = pick(4), .worker = pick(ranks), .kernel = pick(2) ? "a" : "b"};
      std::vector<std::uint32_t> chosen(static_cast<std::size_t>(handles));
      for (int i = 0; i < handles; ++i) chosen[static_cast<std::size_t>(i)] = static_cast<std::uint32_t>(i);
      std::shuffle(chosen.begin(), chosen.end(), rng);
      const int uses = 1 + pick(std::min(3, handles));
      for (int u = 0; u < uses; ++u) {
        const std::uint32_t c = chosen[static_cast<std::size_t>(u)];
        const Mode modes[] = {Mode::in, Mode::inout, Mode::out};
        const Mode m = has_value[c] ? modes[pick(3)] : Mode::out;
        op.uses.emplace_back(c, m);
      }
      for (const auto& [c, m] : op.uses)
        if (writes(m)) has_value[c] = true;
      ops.push_back(std::move(op));
    }
    ops.push_back({.kind = Op::wait});
  }
  return ops;
}

struct Outcome {
  Sink sink;
  std::vector<std::vector<BroadcastOrder>> broadcasts;  // per batch
};

// Runs `program` on a planner of `shape`, ending each batch for `rank` (unset: every broadcast).
Outcome run(const std::vector<Op>& program, const ControlSettings& settings, const PlannerShape& shape,
        std::optional<int> rank) {
  Outcome r;
  Planner planner(kernels(), kernel_names(ranks_of(shape)), settings, shape, settings.broadcast != BroadcastStrategy::nobcast,
                  r.sink);
  std::vector<Data> data;
  Statistics stats;
  for (const Op& op : program) {
    switch (op.kind) {
      case Op::data:
        data.push_back(planner.add_data(1, std::span(buffer()).first(op.bytes), "d" + std::to_string(data.size()),
                                        op.owner, true));
        break;
      case Op::enter: planner.enter(op.handle); break;
      case Op::read: planner.read(op.handle, false); break;
      case Op::task: {
        std::vector<Use> uses;
        for (const auto& [h, m] : op.uses) uses.push_back({data[h], m});
        planner.submit(1, op.kernel, uses, {}, {.priority = op.priority, .worker = op.worker});
        break;
      }
      case Op::wait: r.broadcasts.push_back(planner.end_batch(rank, stats).broadcasts); break;
    }
  }
  return r;
}

bool takes_part(const BroadcastOrder& b, int rank) {
  return b.root == rank || std::find(b.recipients.begin(), b.recipients.end(), rank) != b.recipients.end();
}

ControlSettings random_settings(std::mt19937& rng) {
  ControlSettings s;
  const Scheduler schedulers[] = {Scheduler::heft, Scheduler::mapped, Scheduler::owner, Scheduler::round_robin};
  const BroadcastTrees trees[] = {BroadcastTrees::dyn, BroadcastTrees::spread, BroadcastTrees::planned};
  const BroadcastStrategy strategies[] = {BroadcastStrategy::dynbcast, BroadcastStrategy::p2p, BroadcastStrategy::nobcast};
  s.scheduler = schedulers[rng() % 4];
  s.trees = trees[rng() % 3];
  s.broadcast = strategies[rng() % 3];
  s.link = {.alpha = 1e-6, .beta = 1e-9};
  return s;
}

// One call of a history: an enter, a read() or a task (mapped on `worker`), or the end of a batch.
struct Call {
  enum Kind { enter, read, task, wait } kind;
  std::uint32_t handle = 0;  // enter, read
  int worker = 0;            // task
  std::vector<std::pair<std::uint32_t, Mode>> uses{};
};

// What the planner told its sink, in order, for the direct model to walk.
struct Told final : PlanSink {
  struct Event {
    enum Kind { entered, read, placed } kind;
    Key key{};
    int rank = 0;
    std::uint64_t id = 0;
    std::vector<Access> accesses{};        // placed: as submitted
    std::vector<TaskAccess> as_placed{};   // and as placed
  };
  std::vector<Event> events;
  std::map<std::uint64_t, std::vector<Access>> by_id;  // by task number, the accesses submitted
  void entered(const Key& key, int rank) override { events.push_back({Event::entered, key, rank}); }
  void read(std::uint32_t handle, bool, std::uint64_t id) override { events.push_back({Event::read, {handle, 0}, 0, id}); }
  void placed(PlacedTask& t) override {
    events.push_back({Event::placed, {}, t.rank, t.id, by_id.at(t.id), {t.accesses.begin(), t.accesses.end()}});
  }
  void settled(const DataPlan::Settled&) override {}
};

struct Shape {
  std::vector<PlannerShape> planners;  // head control's one, or every replicated rank's
  std::function<int(int worker)> rank_of;
  std::function<int(std::uint32_t handle)> entered_on;
};

// Runs `history` and checks every placement against the rules stated directly: a read takes the latest
// version written before it in submission order, from the reading rank where that rank holds it (it made
// it, or read it before), else from the rank that made it; an inout takes its replica in place where it is
// the version's first read of the batch; a write makes the next version, held by its writer alone. A call
// reading data with no value is refused and leaves nothing: no task number, nothing placed.
Told run_history(const std::vector<Call>& history, const PlannerShape& shape, bool heft) {
  ControlSettings settings;
  settings.scheduler = heft ? Scheduler::heft : Scheduler::mapped;
  Told told;
  Planner planner(kernels(), kernel_names(ranks_of(shape)), settings, shape, false, told);
  std::vector<Data> data;
  for (int h = 0; h < 2; ++h) data.push_back(planner.add_data(1, std::span(buffer()).first(64), "d" + std::to_string(h), h, true));
  std::vector<bool> has_value(2, false);
  Statistics stats;
  for (const Call& c : history) {
    const std::uint64_t next = planner.next_id();
    bool refused = false;
    switch (c.kind) {
      case Call::enter:
        planner.enter(c.handle);
        has_value[c.handle] = true;
        break;
      case Call::read:
        refused = !has_value[c.handle];
        if (refused)
          EXPECT_THROW(planner.read(c.handle, false), Error);
        else
          planner.read(c.handle, false);
        break;
      case Call::task: {
        std::vector<Use> uses;
        std::vector<Access> accesses;
        for (const auto& [h, m] : c.uses) {
          uses.push_back({data[h], m});
          accesses.push_back({h, m});
          refused = refused || (reads(m) && !has_value[h]);
        }
        if (refused) {
          EXPECT_THROW(planner.submit(1, "a", uses, {}, {.worker = c.worker}), Error);
        } else {
          told.by_id[next] = accesses;
          planner.submit(1, "a", uses, {}, {.worker = c.worker});
          for (const auto& [h, m] : c.uses)
            if (writes(m)) has_value[h] = true;
        }
        break;
      }
      case Call::wait: planner.end_batch(shape.own_rank, stats); break;
    }
    if (refused) {
      EXPECT_EQ(planner.next_id(), next);
    }
  }
  planner.end_batch(shape.own_rank, stats);
  return told;
}

void check_history(const std::vector<Call>& history, const Shape& shape, bool heft) {
  // Every planner tells the same enters and reads, and each task is told by exactly one: its rank's.
  std::vector<Told> told;
  for (const PlannerShape& p : shape.planners) told.push_back(run_history(history, p, heft));
  std::vector<Told::Event> calls;  // the enters and reads, as the first planner told them
  std::map<std::uint64_t, Told::Event> placed;
  for (std::size_t i = 0; i < told.size(); ++i) {
    std::vector<Told::Event> mine;
    for (const Told::Event& e : told[i].events) {
      if (e.kind != Told::Event::placed) {
        mine.push_back(e);
        continue;
      }
      if (shape.planners[i].own_rank) {
        EXPECT_EQ(e.rank, *shape.planners[i].own_rank);
      }
      EXPECT_TRUE(placed.emplace(e.id, e).second) << "task " << e.id << " told twice";
    }
    if (i == 0) calls = mine;
    ASSERT_EQ(mine.size(), calls.size());
    for (std::size_t k = 0; k < mine.size(); ++k) {
      EXPECT_EQ(mine[k].kind, calls[k].kind);
      EXPECT_EQ(mine[k].key, calls[k].key);
      EXPECT_EQ(mine[k].rank, calls[k].rank);
    }
  }
  // The model, walked in submission order.
  struct Latest {
    std::uint32_t version = 0;
    int origin = 0;
    std::set<int> holders;
    bool read_in_batch = false;
  };
  std::vector<Latest> latest(2);
  // The enters and reads come out in submission order: the calls are walked alongside, a wait ending the
  // batch; each task is found by its number.
  std::size_t event = 0;
  const auto expect_next = [&](Told::Event::Kind kind) -> const Told::Event* {
    if (event >= calls.size() || calls[event].kind != kind) {
      ADD_FAILURE() << "event " << event << " is not of the kind expected";
      return nullptr;
    }
    return &calls[event++];
  };
  std::uint64_t id = 0;  // each call's task number, as the planner gives them
  std::size_t walked = 0;
  std::vector<bool> valued(2, false);
  for (const Call& c : history) {
    if (c.kind == Call::wait) {
      for (Latest& l : latest) l.read_in_batch = false;
      continue;
    }
    if (c.kind == Call::enter) {
      ++id;
      const Told::Event* e = expect_next(Told::Event::entered);
      if (!e) return;
      Latest& l = latest[c.handle];
      ++l.version;
      l.origin = shape.entered_on(c.handle);
      l.holders = {l.origin};
      l.read_in_batch = false;
      valued[c.handle] = true;
      EXPECT_EQ(e->key, (Key{c.handle, l.version}));
      EXPECT_EQ(e->rank, l.origin);
      continue;
    }
    if (c.kind == Call::read) {
      if (!valued[c.handle]) continue;
      const Told::Event* e = expect_next(Told::Event::read);
      if (!e) return;
      EXPECT_EQ(e->key.handle, c.handle);
      EXPECT_EQ(e->id, id++);
      continue;
    }
    bool refused = false;
    for (const auto& [h, m] : c.uses) refused = refused || (reads(m) && !valued[h]);
    if (refused) continue;
    const auto found = placed.find(id++);
    if (found == placed.end()) {
      ADD_FAILURE() << "task " << id - 1 << " was told by no planner";
      return;
    }
    const Told::Event* e = &found->second;
    ++walked;
    const int rank = shape.rank_of(c.worker);
    if (!heft) {
      EXPECT_EQ(e->rank, rank);
    }
    ASSERT_EQ(e->as_placed.size(), c.uses.size());
    for (std::size_t i = 0; i < c.uses.size(); ++i) {
      const auto [h, m] = c.uses[i];
      const TaskAccess& a = e->as_placed[i];
      Latest& l = latest[h];
      EXPECT_EQ(a.mode, m);
      if (reads(m)) {
        EXPECT_EQ(a.read, (Key{h, l.version}));
        EXPECT_EQ(a.source, l.holders.count(e->rank) ? e->rank : l.origin);
        EXPECT_EQ(a.in_place, m == Mode::inout && !l.read_in_batch);
        l.holders.insert(e->rank);
        l.read_in_batch = true;
      }
      if (writes(m)) {
        ++l.version;
        EXPECT_EQ(a.written, l.version);
        l.origin = e->rank;
        l.holders = {e->rank};
        l.read_in_batch = false;
        valued[h] = true;
      }
    }
  }
  EXPECT_EQ(event, calls.size());
  EXPECT_EQ(placed.size(), walked);  // no task told that the program did not submit
}

TEST(Planner, EveryHistoryUnderEachControlsUse) {
  const std::vector<Call> alphabet = {
      {Call::enter, 0},
      {Call::enter, 1},
      {Call::read, 0},
      {Call::task, 0, 0, {{0, Mode::inout}}},
      {Call::task, 0, 1, {{0, Mode::in}, {1, Mode::out}}},
      {Call::task, 0, 1, {{1, Mode::inout}}},
      {Call::task, 0, 0, {{1, Mode::in}}},
      {Call::wait},
  };
  // Head control: workers on ranks 1 and 2, every entered value on the head (rank 0), every task waiting
  // for the batch's schedule. Replicated control: workers are ranks 0 and 1, values entered on their
  // owners (datum h is worker h's), each rank planning alone.
  const Shape head{{{.workers = 2, .first_worker = 1, .entered_on_owner = false, .schedule_all = true,
                     .own_rank = std::nullopt}},
                   [](int w) { return w + 1; }, [](std::uint32_t) { return 0; }};
  const Shape replicated{{replicated_shape(2, 0), replicated_shape(2, 1)}, [](int w) { return w; },
                         [](std::uint32_t h) { return static_cast<int>(h); }};
  const std::vector<Shape> shapes{head, replicated};
  // Mapped, where the test knows every task's rank, up to five calls; under heft, which the sanitizer build
  // runs ten times slower, up to four.
  for (const bool heft : {false, true}) {
    const std::size_t histories = for_every_history(alphabet, heft ? 4 : 5, [&](const std::vector<Call>& history) {
      for (const Shape& shape : shapes) {
        if (::testing::Test::HasFailure()) return;
        check_history(history, shape, heft);
      }
    });
    EXPECT_EQ(histories, heft ? 1u + 8 + 64 + 512 + 4096 : 1u + 8 + 64 + 512 + 4096 + 32768);
  }
}

TEST(Planner, EveryRankPlansAsOnePlannerForAllAndKeepsItsBroadcasts) {
  std::mt19937 rng(20261207);
  std::size_t broadcasts = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int ranks = 2 + static_cast<int>(rng() % 4);
    const ControlSettings settings = random_settings(rng);
    const std::vector<Op> program = random_program(rng, ranks);
    SCOPED_TRACE("trial " + std::to_string(trial) + ", " + std::to_string(ranks) + " ranks, scheduler " +
                 std::to_string(static_cast<int>(settings.scheduler)));
    // One planner ordering every broadcast, as the head does.
    const Outcome all = run(program, settings, replicated_shape(ranks, std::nullopt), std::nullopt);
    for (const auto& batch : all.broadcasts) broadcasts += batch.size();
    for (int rank = 0; rank < ranks; ++rank) {
      const Outcome mine = run(program, settings, replicated_shape(ranks, rank), rank);
      std::vector<PlacedRecord> its;
      for (const PlacedRecord& p : all.sink.placed_)
        if (p.rank == rank) its.push_back(p);
      EXPECT_EQ(mine.sink.placed_, its) << "rank " << rank;
      EXPECT_EQ(mine.sink.settled_, all.sink.settled_) << "rank " << rank;
      EXPECT_EQ(mine.sink.entered_, all.sink.entered_) << "rank " << rank;
      ASSERT_EQ(mine.broadcasts.size(), all.broadcasts.size());
      for (std::size_t b = 0; b < all.broadcasts.size(); ++b) {
        std::vector<BroadcastOrder> expected;
        for (const BroadcastOrder& o : all.broadcasts[b])
          if (takes_part(o, rank)) expected.push_back(o);
        EXPECT_EQ(mine.broadcasts[b], expected) << "rank " << rank << ", batch " << b;
      }
    }
  }
  EXPECT_GT(broadcasts, 100u);  // the programs do make broadcasts to compare
}

TEST(Planner, PlacingAtSubmissionAgreesWithWaitingForTheSchedule) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    const int ranks = 2 + static_cast<int>(rng() % 4);
    const ControlSettings settings = random_settings(rng);
    const std::vector<Op> program = random_program(rng, ranks);
    SCOPED_TRACE("trial " + std::to_string(trial));
    PlannerShape waiting = replicated_shape(ranks, std::nullopt);
    waiting.schedule_all = true;
    const Outcome a = run(program, settings, waiting, std::nullopt);
    const Outcome b = run(program, settings, replicated_shape(ranks, std::nullopt), std::nullopt);
    if (settings.scheduler == Scheduler::heft || settings.trees == BroadcastTrees::planned) {
      // heft, and planned trees, wait for the batch's schedule either way.
      EXPECT_EQ(a.sink.placed_, b.sink.placed_);
      EXPECT_EQ(a.broadcasts, b.broadcasts);
      continue;
    }
    // Elsewhere the rank is chosen at submission either way; only the times and the urgencies the
    // schedule gives differ.
    ASSERT_EQ(a.sink.placed_.size(), b.sink.placed_.size());
    for (std::size_t i = 0; i < a.sink.placed_.size(); ++i) {
      EXPECT_EQ(a.sink.placed_[i].id, b.sink.placed_[i].id);
      EXPECT_EQ(a.sink.placed_[i].rank, b.sink.placed_[i].rank);
      EXPECT_EQ(a.sink.placed_[i].accesses, b.sink.placed_[i].accesses);
      EXPECT_EQ(b.sink.placed_[i].start, 0.0);  // placed before any schedule
    }
  }
}

TEST(Planner, TasksPlacedAtSubmissionWaitBehindOnesWaitingForTheSchedule) {
  // Versions follow submission order: under heft every task waits, so an enter after it does too.
  Sink sink;
  ControlSettings settings;
  settings.scheduler = Scheduler::heft;
  Planner planner(kernels(), kernel_names(2), settings, replicated_shape(2, std::nullopt), true, sink);
  const Data d = planner.add_data(1, std::span(buffer()).first(8), "d", 1, true);
  planner.enter(d.index());
  ASSERT_EQ(sink.entered_.size(), 1u);  // nothing waits yet: entered at once, on its owner
  EXPECT_EQ(sink.entered_[0], (std::pair{Key{0, 1}, 1}));
  const Use uses[] = {{d, Mode::inout}};
  planner.submit(1, "a", uses, {}, {});
  planner.enter(d.index());
  EXPECT_TRUE(planner.waiting());
  EXPECT_EQ(sink.entered_.size(), 1u);
  EXPECT_TRUE(sink.placed_.empty());
  Statistics stats;
  planner.end_batch(0, stats);
  ASSERT_EQ(sink.placed_.size(), 1u);
  EXPECT_EQ(sink.placed_[0].accesses[0].written, 2u);
  ASSERT_EQ(sink.entered_.size(), 2u);
  EXPECT_EQ(sink.entered_[1].first, (Key{0, 3}));
  EXPECT_FALSE(planner.waiting());
}

TEST(Planner, ARefusedCallRecordsNothing) {
  Sink sink;
  ControlSettings settings;
  settings.scheduler = Scheduler::mapped;
  PlannerShape shape = replicated_shape(2, std::nullopt);
  shape.schedule_all = true;
  Planner planner(kernels(), kernel_names(2), settings, shape, true, sink);
  Planner other(kernels(), kernel_names(2), settings, shape, true, sink);
  const auto expect_refused = [&](auto call, const std::string& says) {
    const std::uint64_t next = planner.next_id();
    try {
      call();
      ADD_FAILURE() << "not refused: " << says;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
    EXPECT_EQ(planner.next_id(), next) << says;
    EXPECT_FALSE(planner.waiting()) << says;
  };
  expect_refused([&] { planner.add_data(1, {static_cast<std::byte*>(nullptr), 8}, "n", 0, true); }, "null buffer");
  EXPECT_EQ(planner.handles(), 0u);
  const Data a = planner.add_data(1, std::span(buffer()).first(8), "a", 0, true);
  const Data b = planner.add_data(1, std::span(buffer()).first(8), "b", 1, true);
  const Data foreign = other.add_data(2, std::span(buffer()).first(8), "f", 0, true);
  const TaskOptions on0{.worker = 0};
  expect_refused([&] { planner.read(a.index(), false); }, "has no value yet");
  expect_refused([&] { planner.submit(1, "a", std::vector<Use>{in(a)}, {}, on0); }, "has no value yet");
  expect_refused([&] { planner.submit(1, "zzz", std::vector<Use>{out(a)}, {}, on0); }, "zzz");
  expect_refused([&] { planner.submit(1, "a", std::vector<Use>{out(foreign)}, {}, on0); }, "never registered");
  expect_refused([&] { planner.submit(1, "a", std::vector<Use>{out(a), in(a)}, {}, on0); }, "twice");
  expect_refused([&] { planner.submit(1, "a", std::vector<Use>{out(a)}, {}, {.worker = 2}); }, "worker");
  expect_refused([&] { planner.submit(1, "a", std::vector<Use>{out(a)}, {}, {}); }, "needs TaskOptions::worker");
  EXPECT_FALSE(planner.has_value(a.index()));
  // The numbers a refused call would have taken go to the next accepted one.
  const auto t = planner.submit(1, "a", std::vector<Use>{out(a), out(b)}, {}, on0);
  EXPECT_EQ(t.id, 0u);
  EXPECT_TRUE(planner.has_value(a.index()));
  EXPECT_EQ(planner.read(a.index(), false), (Key{0, 1}));
}

}  // namespace
}  // namespace herald::runtime::detail
