// The ring behind the engine's reused request states and messages, without MPI.
#include "recycler.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <vector>

namespace herald::dyn::detail {
namespace {

struct Thing {
  int value = 0;
  int renewed = 0;
};

void renew(Thing& t) {
  const int times = t.renewed + 1;
  t = {};
  t.renewed = times;
}

TEST(Recycler, FillsTheRingWithNewObjectsFirst) {
  Recycler<Thing> ring(4);
  std::set<const Thing*> seen;
  for (int i = 0; i < 4; ++i) {
    const std::shared_ptr<Thing> t = ring.get(renew);
    EXPECT_EQ(t->renewed, 0);
    seen.insert(t.get());
  }
  EXPECT_EQ(seen.size(), 4u);
}

TEST(Recycler, HandsBackTheOldestOnceNobodyHoldsItRenewed) {
  Recycler<Thing> ring(3);
  std::vector<const Thing*> first;
  for (int i = 0; i < 3; ++i) {
    const std::shared_ptr<Thing> t = ring.get(renew);
    t->value = 10 + i;
    first.push_back(t.get());
  }
  for (int round = 1; round <= 2; ++round)
    for (int i = 0; i < 3; ++i) {
      const std::shared_ptr<Thing> t = ring.get(renew);
      EXPECT_EQ(t.get(), first[static_cast<std::size_t>(i)]);
      EXPECT_EQ(t->value, 0) << "the contents of its last use are gone";
      EXPECT_EQ(t->renewed, round);
      t->value = 99;
    }
}

TEST(Recycler, LeavesAnObjectStillHeldToItsHolder) {
  Recycler<Thing> ring(2);
  const std::shared_ptr<Thing> kept = ring.get(renew);
  kept->value = 7;
  const Thing* other = ring.get(renew).get();
  const std::shared_ptr<Thing> fresh = ring.get(renew);  // the oldest is `kept`: still held
  EXPECT_NE(fresh.get(), kept.get());
  EXPECT_EQ(fresh->renewed, 0);
  EXPECT_EQ(kept->value, 7);
  EXPECT_EQ(kept.use_count(), 1) << "the ring let go of it";
  EXPECT_EQ(ring.get(renew).get(), other);  // the next oldest was free
}

}  // namespace
}  // namespace herald::dyn::detail
