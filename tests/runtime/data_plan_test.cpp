// The data plan of both controls, without MPI: where each read finds its version, the broadcasts and the
// holders' uses it settles, on hand-made batches, on every small history of events over three ranks and
// two batches (the incremental case replicated control lives on: versions superseded mid-batch), and on
// random batches checked against the rules stated directly; one access placed as both controls place it
// (place_access), and a batch's schedule as both build it (BatchSchedule).
#include "batch_schedule.hpp"
#include "data_plan.hpp"
#include "histories.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <vector>

namespace herald::runtime::detail {
namespace {

// A Settled, copied out of the plan's callback.
struct Record {
  Key key;
  int origin = 0;
  std::vector<int> holders, recipients, priorities;
  bool superseded = false, broadcast = false;
  std::map<int, std::uint32_t> uses;  // per holder
};

struct Recorder {
  std::vector<Record> records;
  DataPlan plan;
  explicit Recorder(bool broadcasts = true)
      : plan(broadcasts, [this](const DataPlan::Settled& s) {
          Record r{s.key, s.replicas.origin, s.replicas.holders, s.replicas.recipients, s.replicas.priorities,
                   s.superseded, s.broadcast, {}};
          for (int h = 0; h < 8; ++h)
            if (const auto n = s.uses(h)) r.uses[h] = n;
          records.push_back(std::move(r));
        }) {}
  const Record* find(Key key) const {
    for (const Record& r : records)
      if (r.key == key) return &r;
    return nullptr;
  }
};

TEST(DataPlan, EnteredDataReadOnEveryWorkerIsOneBroadcastFromItsHolder) {
  Recorder t;
  const auto h = t.plan.add(100, "a", 0);
  t.plan.write(h, 0, 0);  // entered on rank 0
  EXPECT_FALSE(t.plan.read(h, 1, 0).held);
  const DataPlan::Read second = t.plan.read(h, 2, 5);
  EXPECT_FALSE(second.held);
  EXPECT_EQ(second.origin, 0);
  t.plan.read(h, 3, 0);
  EXPECT_TRUE(t.plan.read(h, 2, 7).held);  // rank 2 has it coming
  t.plan.end_batch();
  ASSERT_EQ(t.records.size(), 1u);
  const Record& r = t.records[0];
  EXPECT_TRUE(r.broadcast);
  EXPECT_FALSE(r.superseded);
  EXPECT_EQ(r.origin, 0);
  EXPECT_EQ(r.recipients, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(r.priorities, (std::vector<int>{0, 7, 0}));  // rank 2: its most urgent reader's
  EXPECT_EQ(r.uses, (std::map<int, std::uint32_t>{{0, 1}, {1, 1}, {2, 2}, {3, 1}}));  // the root's one send
}

TEST(DataPlan, WithoutBroadcastsEachRecipientFetchesFromTheOrigin) {
  Recorder t(false);
  const auto h = t.plan.add(100, "a", 1);
  t.plan.write(h, 1, 0);
  t.plan.read(h, 2, 0);
  t.plan.read(h, 3, 0);
  t.plan.read(h, 1, 0);
  t.plan.end_batch();
  ASSERT_EQ(t.records.size(), 1u);
  EXPECT_FALSE(t.records[0].broadcast);
  EXPECT_EQ(t.records[0].uses, (std::map<int, std::uint32_t>{{1, 3}, {2, 1}, {3, 1}}));  // 1 read, 2 sends
}

TEST(DataPlan, AWriteSettlesTheVersionItSupersedesWithItsReadsSoFar) {
  Recorder t;
  const auto h = t.plan.add(8, "a", 0);
  EXPECT_EQ(t.plan.write(h, 0, 0), (Key{h, 1}));
  t.plan.read(h, 1, 0);
  t.plan.read(h, 2, 0);
  EXPECT_EQ(t.plan.write(h, 2, 9), (Key{h, 2}));
  ASSERT_EQ(t.records.size(), 1u);
  EXPECT_EQ(t.records[0].key, (Key{h, 1}));
  EXPECT_TRUE(t.records[0].superseded);
  EXPECT_TRUE(t.records[0].broadcast);
  const DataPlan::Read r = t.plan.read(h, 1, 0);
  EXPECT_EQ(r.key, (Key{h, 2}));
  EXPECT_EQ(r.origin, 2);
  EXPECT_TRUE(r.first);
  EXPECT_FALSE(t.plan.read(h, 3, 0).first);
  t.plan.end_batch();
  ASSERT_EQ(t.records.size(), 2u);
  EXPECT_EQ(t.records[1].key, (Key{h, 2}));
  EXPECT_FALSE(t.records[1].superseded);
  EXPECT_EQ(t.plan.datum(h).made_by, 9u);
}

TEST(DataPlan, ABatchThatOnlySupersedesAVersionSettlesItUnread) {
  Recorder t;
  const auto h = t.plan.add(8, "a", 0);
  t.plan.write(h, 0, 0);
  t.plan.read(h, 1, 0);
  t.plan.end_batch();
  t.plan.write(h, 1, 1);  // the next batch
  ASSERT_EQ(t.records.size(), 2u);
  EXPECT_TRUE(t.records[1].superseded);
  EXPECT_TRUE(t.records[1].recipients.empty());  // served by the first batch
  EXPECT_TRUE(t.records[1].uses.empty());
  EXPECT_EQ(t.records[1].holders, (std::vector<int>{0, 1}));
}

TEST(DataPlan, ExitReturnsTheVersionToOneHolder) {
  Recorder t;
  const auto h = t.plan.add(8, "a", 0);
  t.plan.write(h, 2, 0);
  t.plan.read(h, 1, 0);
  t.plan.end_batch();
  t.plan.returned(h, 0);
  EXPECT_EQ(t.plan.datum(h).replicas.holders, (std::vector<int>{0}));
  EXPECT_EQ(t.plan.datum(h).version, 1u);
  EXPECT_FALSE(t.plan.read(h, 1, 0).held);
}

// Every history of up to 6 events over 3 ranks and one datum (read on a rank, write on a rank, the batch
// ends), after the datum is entered on rank 0, against the rules stated directly: each version is settled
// once per batch it was touched in (superseded when a write follows, in that batch); its recipients are
// the ranks whose first read since it was made came in that batch; a broadcast has two or more; the uses
// of a holder are its reads in the batch plus, at the origin, one send per recipient or one broadcast.
TEST(DataPlan, FollowsTheRulesOverEverySmallHistory) {
  struct Event {
    enum Kind { read, write, end } kind;
    int rank = 0;
  };
  std::vector<Event> alphabet;
  for (int r = 0; r < 3; ++r) {
    alphabet.push_back({Event::read, r});
    alphabet.push_back({Event::write, r});
  }
  alphabet.push_back({Event::end, 0});
  const std::size_t histories = for_every_history(alphabet, 6, [&](const std::vector<Event>& history) {
    for (const bool broadcasts : {false, true}) {
      Recorder t(broadcasts);
      const auto h = t.plan.add(8, "a", 0);
      t.plan.write(h, 0, 0);
      for (const Event& e : history) {
        if (e.kind == Event::read) t.plan.read(h, e.rank, 0);
        if (e.kind == Event::write) t.plan.write(h, e.rank, 1);
        if (e.kind == Event::end) t.plan.end_batch();
      }
      t.plan.end_batch();
      // The rules, replayed.
      std::vector<Record> expected;
      std::uint32_t version = 1;
      int origin = 0;
      std::set<int> holders{0};
      std::vector<int> recipients;
      std::map<int, std::uint32_t> reads;
      bool touched = true;  // the enter touched it in the first batch
      const auto settle = [&](bool superseded) {
        Record r;
        r.key = {h, version};
        r.origin = origin;
        r.recipients = recipients;
        r.superseded = superseded;
        r.broadcast = broadcasts && recipients.size() >= 2;
        r.uses = reads;
        const std::uint32_t sends = r.broadcast ? 1U : static_cast<std::uint32_t>(recipients.size());
        if (sends) r.uses[origin] += sends;
        r.holders.assign(holders.begin(), holders.end());
        expected.push_back(r);
        recipients.clear();
        reads.clear();
      };
      for (const Event& e : history) {
        if (e.kind == Event::end) {
          if (touched) settle(false);
          touched = false;
          recipients.clear();
          reads.clear();
        } else if (e.kind == Event::read) {
          touched = true;
          ++reads[e.rank];
          if (holders.insert(e.rank).second) recipients.push_back(e.rank);
        } else {
          touched = true;
          settle(true);
          ++version;
          origin = e.rank;
          holders = {e.rank};
        }
      }
      if (touched) settle(false);
      ASSERT_EQ(t.records.size(), expected.size()) << "a history of " << history.size() << " events";
      for (std::size_t i = 0; i < expected.size(); ++i) {
        const Record& got = t.records[i];
        const Record& want = expected[i];
        ASSERT_EQ(got.key, want.key);
        ASSERT_EQ(got.origin, want.origin);
        ASSERT_EQ(got.recipients, want.recipients);
        ASSERT_EQ(got.superseded, want.superseded);
        ASSERT_EQ(got.broadcast, want.broadcast);
        ASSERT_EQ(got.uses, want.uses);
        std::vector<int> holders_got = got.holders;
        std::sort(holders_got.begin(), holders_got.end());
        ASSERT_EQ(holders_got, want.holders);
      }
    }
  });
  EXPECT_EQ(histories, 1u + 7 + 49 + 343 + 2401 + 16807 + 117649);
}

// Random batches over several data and ranks: the broadcasts found are exactly the versions read in a
// batch by two or more ranks that neither made nor held them (once per such batch).
TEST(DataPlan, RandomBatchesFindEveryBroadcast) {
  std::mt19937 random(7);
  for (int trial = 0; trial < 2000; ++trial) {
    const int ranks = 2 + static_cast<int>(random() % 6);
    const int data = 1 + static_cast<int>(random() % 4);
    Recorder t;
    std::map<std::uint32_t, int> maker;                              // per handle, its latest's
    std::map<std::uint32_t, std::set<int>> held;                     // per handle, its latest's holders
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::set<int>> lacking;  // this batch's
    std::multiset<std::pair<std::uint32_t, std::uint32_t>> expected;  // a version may be broadcast once per batch
    for (int d = 0; d < data; ++d) {
      const int owner = d % ranks;
      const auto h = t.plan.add(8, "d", owner);
      t.plan.write(h, owner, 0);
      maker[h] = owner;
      held[h] = {owner};
    }
    const auto close = [&] {
      for (const auto& [k, ranks_reading] : lacking)
        if (ranks_reading.size() >= 2) expected.insert(k);
      lacking.clear();
    };
    for (int s = 0, n = static_cast<int>(random() % 40); s < n; ++s) {
      const auto h = static_cast<std::uint32_t>(random() % static_cast<unsigned>(data));
      const int rank = static_cast<int>(random() % static_cast<unsigned>(ranks));
      const std::uint32_t version = t.plan.datum(h).version;
      switch (random() % 6) {
        case 0: {
          close();  // settles only this handle's, but the others' lists stay theirs
          t.plan.end_batch();
          break;
        }
        case 1: {
          const auto k = std::pair{h, version};
          if (lacking.contains(k) && lacking[k].size() >= 2) expected.insert(k);
          lacking.erase(k);
          t.plan.write(h, rank, 1);
          maker[h] = rank;
          held[h] = {rank};
          break;
        }
        default: {
          const DataPlan::Read r = t.plan.read(h, rank, 0);
          EXPECT_EQ(r.key, (Key{h, version}));
          EXPECT_EQ(r.origin, maker[h]);
          EXPECT_EQ(r.held, held[h].contains(rank));
          if (held[h].insert(rank).second) lacking[{h, version}].insert(rank);
        }
      }
    }
    close();
    t.plan.end_batch();
    std::multiset<std::pair<std::uint32_t, std::uint32_t>> found;
    for (const Record& r : t.records)
      if (r.broadcast) {
        found.insert({r.key.handle, r.key.version});
        EXPECT_GE(r.recipients.size(), 2u);
      }
    EXPECT_EQ(found, expected);
  }
}

TEST(WorkloadBuilder, EdgesRunFromTheBatchsWriterToItsReadersAndAnEnterCutsThem) {
  WorkloadBuilder build(2, 1, 3);
  const std::vector<Access> write0{{0, Mode::out}}, read0{{0, Mode::in}}, update01{{0, Mode::inout}, {1, Mode::in}};
  const auto bytes = [](std::uint32_t h) { return std::size_t{100} * (h + 1); };
  EXPECT_EQ(build.task(read0, 1.0, bytes), 0u);   // reads what an earlier batch made: no edge
  EXPECT_EQ(build.task(write0, 2.0, bytes), 1u);
  EXPECT_EQ(build.task(update01, 3.0, bytes), 2u);  // reads row 1's; handle 1 has no writer here
  build.entered(0);
  EXPECT_EQ(build.task(read0, 4.0, bytes), 3u);  // the entered value: no edge
  const Workload w = build.take();
  EXPECT_EQ(w.workers, 2u);
  ASSERT_EQ(w.tasks(), 4u);
  EXPECT_EQ(w.compute[2], (std::vector<double>{3.0, 3.0}));
  ASSERT_EQ(w.edges.size(), 1u);
  EXPECT_EQ(w.edges[0].from, 1u);
  EXPECT_EQ(w.edges[0].to, 2u);
  EXPECT_EQ(w.edges[0].bytes, 100u);
}

TEST(PlaceAccess, AReadComesFromWhereItIsHeldAndOnlyTheFirstInoutTakesItInPlace) {
  Recorder t;
  const auto h = t.plan.add(64, "a", 0);
  t.plan.write(h, 0, 0);
  // Rank 2 lacks it: from the origin. Rank 0 holds it.
  const TaskAccess away = place_access(t.plan, {h, Mode::in}, 2, 1, 0);
  EXPECT_EQ(away.read, (Key{h, 1}));
  EXPECT_EQ(away.source, 0);
  EXPECT_EQ(away.bytes, 64u);
  EXPECT_FALSE(away.in_place);
  EXPECT_EQ(place_access(t.plan, {h, Mode::in}, 0, 2, 0).source, 0);
  // An inout after those reads may not overwrite what they read; its own write is version 2, made on
  // rank 2, whose next inout is the version's first read, so in place.
  const TaskAccess update = place_access(t.plan, {h, Mode::inout}, 2, 3, 0, 1.0, 2.0);
  EXPECT_FALSE(update.in_place);
  EXPECT_EQ(update.source, 2);  // rank 2 has it coming from its first read
  EXPECT_EQ(update.written, 2u);
  const TaskAccess next = place_access(t.plan, {h, Mode::inout}, 2, 4, 0);
  EXPECT_TRUE(next.in_place);
  EXPECT_EQ(next.read, (Key{h, 2}));
  EXPECT_EQ(t.plan.datum(h).made_by, 4u);
  // An out reads nothing.
  const TaskAccess out = place_access(t.plan, {h, Mode::out}, 1, 5, 0);
  EXPECT_EQ(out.source, -1);
  EXPECT_EQ(out.written, 4u);
}

TEST(PlaceAccess, ACommuteUseNamesItsRunAndTheRankGrantingIt) {
  Recorder t;
  const auto h = t.plan.add(8, "run", 0);
  t.plan.write(h, 3, 7);  // the run's opening task, on rank 3
  const TaskAccess a = place_access(t.plan, {h, Mode::commute, 2}, 1, 9, 0);
  EXPECT_EQ(a, commute_access(t.plan, h, 2));
  EXPECT_EQ(a.source, 3);
  EXPECT_EQ(a.written, 2u);
  EXPECT_EQ(t.plan.datum(h).version, 1u);  // no version of its own
}

TEST(BatchSchedule, KeepsTheProgramsWorkersAndNamesEachCopyByItsMakersTaskAndRanks) {
  BatchSchedule batch(2, 1, 2);
  const std::vector<Access> write0{{0, Mode::out}}, read0{{0, Mode::in}};
  const auto bytes = [](std::uint32_t) { return std::size_t{1000}; };
  EXPECT_EQ(batch.task(10, write0, 1.0, bytes, 0), 0u);
  EXPECT_EQ(batch.task(11, read0, 1.0, bytes, 1), 1u);
  EXPECT_EQ(batch.task(12, read0, 1.0, bytes, 1), 2u);
  EXPECT_EQ(batch.tasks(), 3u);
  Link queued;
  queued.queued = true;
  const auto r = batch.schedule(Scheduler::mapped, [&](const Workload& w) {
    EXPECT_EQ(w.edges.size(), 2u);
    return queued;
  }, Link{}, true, [](std::size_t w) { return static_cast<int>(w) + 1; });
  ASSERT_EQ(r.schedule.tasks.size(), 3u);
  EXPECT_EQ(r.schedule.tasks[0].worker, 0u);
  EXPECT_EQ(r.schedule.tasks[1].worker, 1u);
  EXPECT_EQ(r.schedule.tasks[2].worker, 1u);
  EXPECT_EQ(r.urgency.size(), 3u);
  EXPECT_GT(r.urgency[0], r.urgency[1]);  // the writer is on both readers' path
  // One copy to worker 1 serves both its readers, from worker 0: ranks 1 and 2 here.
  ASSERT_EQ(r.copies.size(), 1u);
  const auto& [key, copies] = *r.copies.begin();
  EXPECT_EQ(key, (std::pair<std::uint64_t, std::uint32_t>{10, 0}));
  ASSERT_EQ(copies.size(), 1u);
  EXPECT_EQ(copies[0].source, 1);
  EXPECT_EQ(copies[0].rank, 2);
}

}  // namespace
}  // namespace herald::runtime::detail
