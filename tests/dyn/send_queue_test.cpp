// SendQueue: which message leaves next, the window per link, and the starvation bound, without MPI. The
// exhaustive test compares the queue with a plain list that applies the rules by scanning, over every
// sequence of a few operations.
#include "../../src/dyn/send_queue.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <optional>
#include <vector>

namespace herald::dyn {
namespace {

using Queue = SendQueue<int>;

std::vector<int> drain(Queue& q) {
  std::vector<int> out;
  while (auto d = q.pop()) out.push_back(d->item);
  return out;
}

TEST(SendQueue, MostUrgentFirstThenQueueOrder) {
  Queue q({0, 0, 0}, {.window = 0, .patience = 0});
  q.push(1, 0, 0, 10);
  q.push(2, 5, 0, 11);
  q.push(1, 5, 0, 12);
  q.push(2, -1, 0, 13);
  q.push(1, 0, 0, 14);
  EXPECT_EQ(drain(q), (std::vector<int>{11, 12, 10, 14, 13}));
  EXPECT_TRUE(q.empty());
}

TEST(SendQueue, BulkBytesOnALinkStayWithinTheWindowButOneMessageAlwaysLeaves) {
  Queue q({0, 0}, {.window = 100, .patience = 0});
  q.push(1, 0, 60, 1);
  q.push(1, 0, 60, 2);
  q.push(1, 0, 500, 3);
  auto first = q.pop();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->item, 1);
  EXPECT_FALSE(q.pop()) << "60 + 60 bytes would exceed the 100-byte window";
  EXPECT_EQ(q.on_wire(0), 60u);
  q.landed(first->dest, first->bulk);
  auto second = q.pop();
  ASSERT_TRUE(second);
  EXPECT_EQ(second->item, 2);
  q.landed(second->dest, second->bulk);
  auto big = q.pop();
  ASSERT_TRUE(big) << "a message larger than the window leaves on an idle link";
  EXPECT_EQ(big->item, 3);
  EXPECT_EQ(q.on_wire(0), 500u);
}

TEST(SendQueue, BulkPiecesOnALinkStayWithinTheirBound) {
  Queue q({0, 0, 1}, {.window = 1000, .pieces = 2, .patience = 0});
  for (int i = 0; i < 3; ++i) q.push(1, 0, 10, i);
  q.push(2, 0, 10, 3);  // another link
  q.push(1, 0, 0, 4);   // small: no bound
  auto a = q.pop(), b = q.pop();
  ASSERT_TRUE(a && b);
  EXPECT_EQ(std::vector<int>({a->item, b->item}), (std::vector<int>{0, 1}));
  EXPECT_EQ(drain(q), (std::vector<int>{3, 4})) << "a third piece on link 0 waits, though its bytes fit";
  q.landed(a->dest, a->bulk);
  auto c = q.pop();
  ASSERT_TRUE(c);
  EXPECT_EQ(c->item, 2);
}

TEST(SendQueue, AnUrgentPieceQueuedLaterOvertakesBulkWaitingForRoom) {
  Queue q({0, 0, 0, 0}, {.window = 100, .patience = 0});
  for (int i = 0; i < 4; ++i) q.push(1, 0, 100, i);  // a low-priority broadcast's pieces
  auto on_wire = q.pop();
  ASSERT_TRUE(on_wire);
  q.push(3, 9, 100, 99);  // an urgent one, to another rank on the same link
  EXPECT_FALSE(q.pop());
  q.landed(on_wire->dest, on_wire->bulk);
  auto next = q.pop();
  ASSERT_TRUE(next);
  EXPECT_EQ(next->item, 99);
}

TEST(SendQueue, SmallMessagesAreNeverHeldByTheWindow) {
  Queue q({0, 0}, {.window = 10, .patience = 0});
  q.push(1, 9, 10, 1);
  q.push(1, 9, 10, 2);  // waits for room
  q.push(1, 0, 0, 3);   // a control message, less urgent
  EXPECT_EQ(q.pop()->item, 1);
  auto small = q.pop();
  ASSERT_TRUE(small) << "the small message goes while the bulk one waits for room";
  EXPECT_EQ(small->item, 3);
  EXPECT_FALSE(q.pop());
}

TEST(SendQueue, AllLinksTogetherStayWithinTheTotal) {
  Queue q({0, 1, 2}, {.window = 10, .total = 15, .patience = 0});
  q.push(1, 0, 10, 1);
  q.push(2, 0, 10, 2);
  q.push(0, 0, 0, 3);
  auto bulk = q.pop();
  ASSERT_TRUE(bulk);
  EXPECT_EQ(bulk->item, 1);
  auto small = q.pop();
  ASSERT_TRUE(small);
  EXPECT_EQ(small->item, 3) << "10 + 10 bytes would exceed the total of 15, though rank 2's link has room";
  EXPECT_FALSE(q.pop());
  EXPECT_EQ(q.on_wire(), 10u);
  q.landed(bulk->dest, bulk->bulk);
  EXPECT_EQ(q.pop()->item, 2);
}

TEST(SendQueue, LinksAreIndependent) {
  // Ranks 1 and 2 on links of their own (this node), rank 3 off it.
  Queue q({0, 1, 2, 0}, {.window = 10, .patience = 0});
  q.push(1, 0, 10, 1);
  q.push(1, 0, 10, 2);
  q.push(2, 0, 10, 3);
  q.push(3, 0, 10, 4);
  std::vector<int> first;
  while (auto d = q.pop()) first.push_back(d->item);
  EXPECT_EQ(first, (std::vector<int>{1, 3, 4})) << "one message per link fits the window at a time";
}

TEST(SendQueue, ALowPriorityMessageLeavesAfterPatienceDepartures) {
  Queue q({0, 0}, {.window = 0, .patience = 3});
  q.push(1, 0, 0, 0);  // the low-priority one
  int urgent = 100;
  std::vector<int> order;
  for (int round = 0; round < 10; ++round) {
    q.push(1, 5, 0, urgent++);  // an urgent message keeps coming
    order.push_back(q.pop()->item);
  }
  const auto at = std::find(order.begin(), order.end(), 0);
  ASSERT_NE(at, order.end()) << "starved";
  EXPECT_EQ(at - order.begin(), 3) << "overdue after 3 departures past it";
}

TEST(SendQueue, AnOverdueMessageKeepsItsLinkForItself) {
  Queue q({0, 0}, {.window = 10, .patience = 1});
  q.push(1, 0, 10, 0);
  q.push(1, 5, 10, 1);
  auto urgent = q.pop();  // the urgent one: now 0 is overdue, and its link is full
  ASSERT_EQ(urgent->item, 1);
  q.push(1, 9, 10, 2);
  EXPECT_FALSE(q.pop()) << "the more urgent newcomer does not take the overdue message's room";
  q.landed(urgent->dest, urgent->bulk);
  EXPECT_EQ(q.pop()->item, 0);
}

TEST(SendQueue, RefusesANegativeLinkAndALandingThatNeverLeft) {
  EXPECT_THROW(Queue({0, -1}, {}), std::invalid_argument);
  Queue q({0, 0}, {.window = 10, .patience = 0});
  EXPECT_THROW(q.landed(1, 5), std::logic_error);
}

// The rules by scanning a list, for the exhaustive comparison.
struct Reference {
  struct Item {
    int id, dest, priority;
    std::size_t bulk;
    std::uint64_t queued_at;
  };
  std::array<int, 3> link_of{0, 0, 1};
  std::size_t window = 6, total = 9, pieces = 2, patience = 3;
  std::vector<Item> queued;  // in queue order
  std::array<std::size_t, 2> on_wire{};
  std::array<std::size_t, 2> pieces_on_wire{};
  std::uint64_t departures = 0;

  bool total_room(const Item& m) const {
    const std::size_t all = on_wire[0] + on_wire[1];
    return all == 0 || all + m.bulk <= total;
  }
  bool room(const Item& m) const {
    if (m.bulk == 0) return true;
    const auto link = static_cast<std::size_t>(link_of[static_cast<std::size_t>(m.dest)]);
    const std::size_t w = on_wire[link];
    return (w == 0 || (w + m.bulk <= window && pieces_on_wire[link] < pieces)) && total_room(m);
  }
  int lane(const Item& m) const { return m.bulk == 0 ? 2 : link_of[static_cast<std::size_t>(m.dest)]; }
  std::optional<Item> pop() {
    int blocked = -1;
    bool blocked_all = false;
    std::optional<std::size_t> chosen;
    if (!queued.empty() && departures - queued.front().queued_at >= patience) {
      if (room(queued.front())) {
        chosen = 0;
      } else {
        blocked = lane(queued.front());
        blocked_all = !total_room(queued.front());
      }
    }
    if (!chosen) {
      // Per lane, only the lane's most urgent message is a candidate (the queue's heap top).
      for (std::size_t i = 0; i < queued.size(); ++i) {
        const Item& m = queued[i];
        bool top = true;
        for (const Item& other : queued)
          if (lane(other) == lane(m) && &other != &m &&
              (other.priority > m.priority || (other.priority == m.priority && other.id < m.id)))
            top = false;
        if (!top || lane(m) == blocked || (blocked_all && m.bulk > 0) || !room(m)) continue;
        if (!chosen || m.priority > queued[*chosen].priority) chosen = i;
      }
    }
    if (!chosen) return std::nullopt;
    Item m = queued[*chosen];
    queued.erase(queued.begin() + static_cast<std::ptrdiff_t>(*chosen));
    if (m.bulk > 0) {
      on_wire[static_cast<std::size_t>(link_of[static_cast<std::size_t>(m.dest)])] += m.bulk;
      ++pieces_on_wire[static_cast<std::size_t>(link_of[static_cast<std::size_t>(m.dest)])];
    }
    ++departures;
    return m;
  }
};

struct Both {
  Queue queue{{0, 0, 1}, {.window = 6, .total = 9, .pieces = 2, .patience = 3}};
  Reference reference;
  std::vector<Queue::Departure> in_flight;  // departed, not landed, oldest first
  int next_id = 0;
};

// Operations: push (3 destinations x 2 priorities x 3 sizes: small, within the window, above it), pop,
// or the oldest departed message landing.
constexpr int push_ops = 3 * 2 * 3;
constexpr int op_count = push_ops + 2;
constexpr std::array<std::size_t, 3> sizes{0, 2, 8};  // three of 2 fit the window of 6, not the bound of 2 pieces

void apply(Both& s, int op) {
  if (op < push_ops) {
    const int dest = op % 3, priority = (op / 3) % 2;
    const std::size_t bulk = sizes[static_cast<std::size_t>(op / 6)];
    const int id = s.next_id++;
    s.queue.push(dest, priority, bulk, id);
    // Queue order is id order here, so queued_at (departures when queued) orders ties as seq does.
    s.reference.queued.push_back({id, dest, priority, bulk, s.reference.departures});
  } else if (op == push_ops) {
    auto got = s.queue.pop();
    auto want = s.reference.pop();
    ASSERT_EQ(got.has_value(), want.has_value());
    if (got) {
      ASSERT_EQ(got->item, want->id);
      ASSERT_EQ(got->bulk, want->bulk);
      s.in_flight.push_back(*got);
    }
  } else if (!s.in_flight.empty()) {
    const Queue::Departure d = s.in_flight.front();
    s.in_flight.erase(s.in_flight.begin());
    s.queue.landed(d.dest, d.bulk);
    if (d.bulk > 0) {
      const auto link = static_cast<std::size_t>(s.reference.link_of[static_cast<std::size_t>(d.dest)]);
      s.reference.on_wire[link] -= d.bulk;
      --s.reference.pieces_on_wire[link];
    }
  }
  for (int link = 0; link < 2; ++link) {
    const std::size_t w = s.queue.on_wire(link);
    ASSERT_EQ(w, s.reference.on_wire[static_cast<std::size_t>(link)]);
    // Within the window, or one message alone above it.
    bool one_alone = false;
    for (const auto& d : s.in_flight)
      if (d.bulk == w && d.bulk > 0 && s.reference.link_of[static_cast<std::size_t>(d.dest)] == link) one_alone = true;
    ASSERT_TRUE(w <= 6 || one_alone) << "link " << link << " carries " << w << " bytes";
    const auto pieces = std::count_if(s.in_flight.begin(), s.in_flight.end(), [&](const auto& d) {
      return d.bulk > 0 && s.reference.link_of[static_cast<std::size_t>(d.dest)] == link;
    });
    ASSERT_LE(pieces, 2) << "link " << link << " carries " << pieces << " pieces";
  }
  const std::size_t all = s.queue.on_wire();
  ASSERT_TRUE(all <= 9 || (s.in_flight.size() == 1)) << "all links carry " << all << " bytes";
  ASSERT_EQ(s.queue.size(), s.reference.queued.size());
}

void explore(const Both& state, int depth, long& sequences) {
  if (depth == 0) {
    ++sequences;
    return;
  }
  for (int op = 0; op < op_count; ++op) {
    Both next = state;
    apply(next, op);
    if (::testing::Test::HasFatalFailure()) return;
    explore(next, depth - 1, sequences);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(SendQueue, AgreesWithTheRulesOnEverySequenceOfFiveOperations) {
  long sequences = 0;
  explore(Both{}, 5, sequences);
  EXPECT_EQ(sequences, 20L * 20 * 20 * 20 * 20);
}

TEST(SendQueue, EveryMessageLeavesOnceTheLinksDrain) {
  // Whatever was queued, popping and landing everything empties the queue: nothing is stuck.
  for (int pattern = 0; pattern < 1 << 10; ++pattern) {
    Queue q({0, 0, 1}, {.window = 6, .patience = 3});
    for (int i = 0; i < 10; ++i) q.push(i % 3, (pattern >> i) & 1, sizes[static_cast<std::size_t>(i % 3)], i);
    std::vector<bool> seen(10, false);
    for (int guard = 0; guard < 100 && !q.empty(); ++guard) {
      std::vector<Queue::Departure> out;
      while (auto d = q.pop()) out.push_back(*d);
      for (const auto& d : out) {
        seen[static_cast<std::size_t>(d.item)] = true;
        q.landed(d.dest, d.bulk);
      }
    }
    EXPECT_TRUE(q.empty()) << "pattern " << pattern;
    EXPECT_EQ(std::count(seen.begin(), seen.end(), true), 10);
  }
}

}  // namespace
}  // namespace herald::dyn
