// Dynamic broadcast and transparent receive between real MPI processes. Every rank runs every test;
// scenarios drawn at random use one seed on all ranks, so all agree on who sends what to whom, while each
// rank shuffles its own posting order with a seed of its own.
#include <herald/algorithms.hpp>
#include <herald/dyn/endpoint.hpp>
#include "../../src/dyn/route.hpp"
#include <herald/error.hpp>

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <numeric>
#include <random>
#include <thread>
#include <utility>

namespace herald::dyn {
namespace {

int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int world_size() {
  int n = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

// Bytes that depend on who sent what, so a message delivered to the wrong receive is caught.
std::vector<std::byte> pattern(int origin, int tag, int index, std::size_t n) {
  std::vector<std::byte> v(n);
  std::uint32_t x = static_cast<std::uint32_t>(origin) * 2654435761u ^ static_cast<std::uint32_t>(tag) * 40503u ^
                    static_cast<std::uint32_t>(index) * 97u ^ static_cast<std::uint32_t>(n);
  for (auto& b : v) {
    x = x * 1664525u + 1013904223u;
    b = static_cast<std::byte>(x >> 24);
  }
  return v;
}

// Polls until `done` holds; false after `seconds` (the ctest timeout is the backstop, this names the spot).
template <class Done>
bool poll_until(Endpoint& ep, Done done, double seconds = 30) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!done()) {
    if (!ep.progress()) std::this_thread::yield();
    if (std::chrono::steady_clock::now() > deadline) return false;
  }
  return true;
}

std::vector<int> others(int except, int n) {
  std::vector<int> v;
  for (int r = 0; r < n; ++r)
    if (r != except) v.push_back(r);
  return v;
}

TEST(Dyn, PointToPointAndBroadcastLandInTheSameReceive) {
  const int me = world_rank(), n = world_size();
  Endpoint ep(MPI_COMM_WORLD);
  const auto p2p = pattern(0, 5, 0, 333), bcast = pattern(0, 5, 1, 4444);
  if (me == 0) {
    const std::vector<int> everyone = others(0, n);
    Request a = ep.send_p2p(p2p, 1, 5);
    Request b = ep.send(bcast, everyone, 5);
    a.wait();
    b.wait();
  } else {
    std::vector<std::byte> buffer(5000);
    if (me == 1) {
      const Status s = ep.recv(buffer, 0, 5);
      EXPECT_EQ(s.bytes, p2p.size());
      EXPECT_TRUE(std::equal(p2p.begin(), p2p.end(), buffer.begin())) << "point-to-point data";
    }
    const Status s = ep.recv(buffer, 0, 5);
    EXPECT_EQ(s.source, 0);
    EXPECT_EQ(s.tag, 5);
    EXPECT_EQ(s.bytes, bcast.size());
    EXPECT_TRUE(std::equal(bcast.begin(), bcast.end(), buffer.begin())) << "broadcast data";
  }
}

// Random recipient sets (empty, one, all, sparse), sizes (0, 1, odd, multi-segment), shapes and tags,
// all in flight at once from every rank, each rank posting its sends and receives in its own random
// order with random polling in between, and payloads cut in small pieces.
TEST(Dyn, RandomBroadcastsFromEveryRankAtOnce) {
  const int me = world_rank(), n = world_size();
  Endpoint ep(MPI_COMM_WORLD, {.max_piece = 3000});
  struct Op {
    int origin;
    std::vector<int> recipients;
    std::vector<int> priorities;
    int tag;
    std::size_t bytes;
    std::optional<std::string> algorithm;
    std::optional<std::size_t> segment;
    bool p2p;
  };
  const std::size_t sizes[] = {0, 1, 1001, 3 * 4096 + 17, 65536 + 3, 200003};
  using Shape = std::pair<std::optional<std::string>, std::optional<std::size_t>>;
  const Shape shapes[] = {{std::nullopt, std::nullopt}, {"binomial", 4096}, {"chain", 4096},
                          {"knomial", std::nullopt},    {"binary", 5000},   {"linear", std::nullopt}};
  std::mt19937 scenario(1234 + n);
  std::vector<Op> ops;
  for (int round = 0; round < 48; ++round) {
    Op op{};
    op.origin = static_cast<int>(scenario() % n);
    std::vector<int> pool = others(op.origin, n);
    std::shuffle(pool.begin(), pool.end(), scenario);
    switch (round % 4) {
      case 0: break;                                          // empty
      case 1: op.recipients = {pool.front()}; break;          // one
      case 2: op.recipients = pool; break;                    // all
      default:                                                // sparse
        for (int r : pool)
          if (scenario() % 2) op.recipients.push_back(r);
    }
    for (std::size_t i = 0; i < op.recipients.size(); ++i) op.priorities.push_back(static_cast<int>(scenario() % 3));
    op.tag = static_cast<int>(scenario() % 2);
    op.bytes = sizes[scenario() % std::size(sizes)];
    const auto& shape = shapes[scenario() % std::size(shapes)];
    op.algorithm = shape.first;
    op.segment = shape.second;
    op.p2p = op.recipients.size() == 1 && scenario() % 2;
    ops.push_back(std::move(op));
  }

  // This rank's work: its sends in round order, its receives per (origin, tag) in round order; the
  // queues are merged at random, which keeps the only order MPI semantics fix.
  std::map<std::pair<int, int>, std::deque<int>> queues;  // (-1, 0) = own sends
  for (int i = 0; i < static_cast<int>(ops.size()); ++i) {
    if (ops[i].origin == me) queues[{-1, 0}].push_back(i);
    if (std::find(ops[i].recipients.begin(), ops[i].recipients.end(), me) != ops[i].recipients.end())
      queues[{ops[i].origin, ops[i].tag}].push_back(i);
  }
  std::mt19937 local(77 + me);
  std::map<int, std::vector<std::byte>> payloads, buffers;
  std::vector<std::pair<int, Request>> sends, recvs;
  while (!queues.empty()) {
    auto it = std::next(queues.begin(), static_cast<long>(local() % queues.size()));
    const int i = it->second.front();
    const bool sending = it->first.first == -1;
    it->second.pop_front();
    if (it->second.empty()) queues.erase(it);
    if (local() % 3 == 0)
      for (int k = static_cast<int>(local() % 20); k > 0; --k) ep.progress();
    const Op& op = ops[i];
    if (sending) {
      payloads[i] = pattern(op.origin, op.tag, i, op.bytes);
      if (op.p2p) {
        sends.emplace_back(i, ep.send_p2p(payloads[i], op.recipients[0], op.tag, op.priorities[0]));
      } else {
        sends.emplace_back(i, ep.send(payloads[i], op.recipients, op.tag,
                                      {.priorities = op.priorities, .algorithm = op.algorithm,
                                       .segment = op.segment}));
      }
    } else {
      // Sometimes a roomier buffer than needed: the tail must stay untouched.
      buffers[i].assign(op.bytes + (local() % 2 ? 7 : 0), std::byte{0xEE});
      recvs.emplace_back(i, ep.irecv(buffers[i], op.origin, op.tag));
    }
  }
  std::shuffle(recvs.begin(), recvs.end(), local);
  for (auto& [i, request] : recvs) {
    request.wait();
    const Op& op = ops[i];
    const Status s = request.status();
    EXPECT_EQ(s.source, op.origin);
    EXPECT_EQ(s.tag, op.tag);
    EXPECT_EQ(s.bytes, op.bytes) << "round " << i;
    const auto expected = pattern(op.origin, op.tag, i, op.bytes);
    EXPECT_TRUE(std::equal(expected.begin(), expected.end(), buffers[i].begin())) << "round " << i;
    EXPECT_TRUE(std::all_of(buffers[i].begin() + static_cast<long>(op.bytes), buffers[i].end(),
                            [](std::byte b) { return b == std::byte{0xEE}; }))
        << "bytes written past the message, round " << i;
  }
  for (auto& [i, request] : sends) request.wait();
}

TEST(Dyn, ReceivePostedFirstGetsTheDataInPlace) {
  const int me = world_rank(), n = world_size();
  constexpr std::size_t bytes = 50000, segment = 4096;
  Endpoint ep(MPI_COMM_WORLD);
  const auto data = pattern(0, 1, 0, bytes);
  std::vector<std::byte> buffer(bytes);
  Request request;
  if (me != 0) request = ep.irecv(buffer, 0, 1);
  MPI_Barrier(MPI_COMM_WORLD);  // every receive is posted before the first byte leaves
  if (me == 0) {
    ep.send(data, others(0, n), 1, {.algorithm = "binomial", .segment = segment}).wait();
  } else {
    request.wait();
    EXPECT_EQ(buffer, data);
  }
  const Statistics st = ep.statistics();
  EXPECT_EQ(st.bytes_copied, 0u);
  EXPECT_EQ(st.received_in_place, me == 0 ? 0u : 1u);
  // Exact count: every tree edge not leaving the origin carries every segment once.
  const Tree tree = tree_of(make_schedule(find_algorithm("binomial"), {.ranks = n, .root = 0, .bytes = 1}));
  const std::size_t expected = (static_cast<std::size_t>(n - 1) - tree.children[0].size()) *
                               ((bytes + segment - 1) / segment);
  unsigned long local = st.segments_forwarded, total = 0;
  MPI_Allreduce(&local, &total, 1, MPI_UNSIGNED_LONG, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(total, expected);
}

// A message of zero bytes has "arrived" as soon as it is announced: a forwarder whose receive was posted
// first must still keep it until its empty segment has been passed on (AddressSanitizer catches a message
// dropped before that), and every rank's receive completes.
TEST(Dyn, ZeroBytesPassThroughForwardersWithReceivesPostedFirst) {
  const int me = world_rank(), n = world_size();
  constexpr int rounds = 5;
  Endpoint ep(MPI_COMM_WORLD);
  std::vector<std::byte> buffer(8);
  for (int round = 0; round < rounds; ++round) {
    Request request;
    if (me != 0) request = ep.irecv(buffer, 0, 4);
    MPI_Barrier(MPI_COMM_WORLD);  // every receive is posted before the message leaves
    if (me == 0) {
      ep.send({}, others(0, n), 4, {.algorithm = "chain"}).wait();
    } else {
      request.wait();
      EXPECT_EQ(request.status().bytes, 0u);
      EXPECT_EQ(request.status().source, 0);
    }
  }
  // A chain forwards at every recipient but the last.
  unsigned long local = ep.statistics().segments_forwarded, total = 0;
  MPI_Allreduce(&local, &total, 1, MPI_UNSIGNED_LONG, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(total, static_cast<unsigned long>(rounds) * static_cast<unsigned long>(std::max(n - 2, 0)));
}

TEST(Dyn, DataArrivingFirstIsHeldThenDelivered) {
  const int me = world_rank(), n = world_size();
  constexpr std::size_t bytes = 50000;
  Endpoint ep(MPI_COMM_WORLD);
  const auto data = pattern(0, 2, 0, bytes);
  if (me == 0) {
    ep.send(data, others(0, n), 2, {.algorithm = "chain", .segment = 4096}).wait();
  } else {
    ASSERT_TRUE(poll_until(ep, [&] { return ep.iprobe(0, 2).has_value(); })) << "message never announced";
    const auto seen = ep.iprobe(0, 2);
    EXPECT_EQ(seen->bytes, bytes);
    EXPECT_FALSE(ep.iprobe(0, 3)) << "probe ignores the tag";
    std::vector<std::byte> buffer(bytes);
    ep.recv(buffer, 0, 2);
    EXPECT_EQ(buffer, data);
    const Statistics st = ep.statistics();
    EXPECT_EQ(st.received_held, 1u);
    EXPECT_EQ(st.bytes_copied, bytes);
  }
}

// Held messages (taken out of their frames by polling before any receive exists) are taken by recv and
// irecv as MPI takes unexpected messages: in the sender's order among those that fit, whatever the tag
// order of the receives, by broadcast or point-to-point alike; a receive too short for its held message
// fails with `truncated`, writes nothing and leaves the next message alone.
TEST(Dyn, HeldMessagesAreTakenInTheSendersOrder) {
  const int me = world_rank();
  if (world_size() < 2) GTEST_SKIP() << "needs 2 ranks";
  Endpoint ep(MPI_COMM_WORLD);
  // (tag, bytes) in sending order; tag 5 twice, a zero-byte message, one in several frames' worth.
  const std::vector<std::pair<int, std::size_t>> sent{{5, 8}, {7, 0}, {5, 1000}, {9, 20000}, {11, 64}, {12, 16}};
  if (me == 0) {
    std::vector<std::vector<std::byte>> data;
    for (std::size_t i = 0; i < sent.size(); ++i)
      data.push_back(pattern(0, sent[i].first, static_cast<int>(i), sent[i].second));
    std::vector<Request> sends;
    for (std::size_t i = 0; i < sent.size(); ++i) {
      const int tag = sent[i].first;
      sends.push_back(i % 2 ? ep.send_p2p(data[i], 1, tag) : ep.send(data[i], std::vector<int>{1}, tag));
    }
    for (Request& s : sends) s.wait();
  }
  if (me == 1) {
    // The last message is matchable only once every earlier one from rank 0 has arrived.
    ASSERT_TRUE(poll_until(ep, [&] { return ep.iprobe(0, 12).has_value(); })) << "messages never arrived";
    const Statistics before = ep.statistics();
    std::vector<std::byte> buffer(30000);
    auto expect = [&](const Status& st, std::size_t index) {
      EXPECT_EQ(st.source, 0);
      EXPECT_EQ(st.tag, sent[index].first);
      ASSERT_EQ(st.bytes, sent[index].second);
      EXPECT_TRUE(std::equal(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(st.bytes),
                             pattern(0, sent[index].first, static_cast<int>(index), st.bytes).begin()))
          << "message " << index;
    };
    expect(ep.recv(buffer, 0, 9), 3);               // skips the earlier tags
    expect(ep.recv(buffer, 0, 5), 0);               // the first of the two tag-5 messages
    Request r = ep.irecv(buffer, MPI_ANY_SOURCE, MPI_ANY_TAG);
    ASSERT_TRUE(r.test()) << "a held message completes its irecv at once";
    expect(r.status(), 1);                          // the zero-byte one, sent before the second tag 5
    expect(ep.recv(buffer, 0, MPI_ANY_TAG), 2);
    std::vector<std::byte> small(10, std::byte{0x5a});
    try {
      ep.recv(small, 0, 11);
      ADD_FAILURE() << "a 64-byte message fit a 10-byte buffer";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::truncated);
    }
    EXPECT_EQ(small, std::vector<std::byte>(10, std::byte{0x5a})) << "a refused receive wrote into its buffer";
    expect(ep.recv(buffer, 0, MPI_ANY_TAG), 5);
    const Statistics after = ep.statistics();
    EXPECT_EQ(after.received_held - before.received_held, 5u);
    EXPECT_EQ(after.bytes_copied - before.bytes_copied, 8u + 0u + 1000u + 20000u + 16u);
    EXPECT_FALSE(ep.iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG)) << "a message left over";
  }
}

// Messages that are already waiting when their receives are posted one after another: each receive takes
// its own message from its frame straight into its buffer, and the polling it does stops there, so the
// messages behind it are not held (copied aside) for receives not yet posted. More send requests are alive
// at once than the endpoint keeps request states for reuse. Frame slots of the default size, so
// that every message rides inside its frame whatever HERALD_DYN_FRAME_SLOT says (a payload that follows
// its frame keeps the receive open, and the polling goes on past it).
TEST(Dyn, WaitingMessagesAreTakenOneByOneNotHeld) {
  const int me = world_rank();
  constexpr int count = 40;
  Endpoint ep(MPI_COMM_WORLD, {.frame_slot = 16 * 1024});
  if (me == 0) {
    std::vector<std::vector<std::byte>> data;
    for (int i = 0; i < count; ++i) data.push_back(pattern(0, 8, i, 100 + static_cast<std::size_t>(i)));
    std::vector<Request> sends;
    for (int i = 0; i < count; ++i) sends.push_back(ep.send(data[i], std::vector<int>{1}, 8));
    for (Request& s : sends) s.wait();
  }
  MPI_Barrier(MPI_COMM_WORLD);  // rank 1 has not polled its endpoint before this
  if (me == 1) {
    for (int i = 0; i < count; ++i) {
      std::vector<std::byte> buffer(200);
      const Status status = ep.recv(buffer, 0, 8);
      ASSERT_EQ(status.bytes, 100 + static_cast<std::size_t>(i)) << "message " << i;
      buffer.resize(status.bytes);
      EXPECT_EQ(buffer, pattern(0, 8, i, status.bytes)) << "message " << i;
    }
    const Statistics st = ep.statistics();
    EXPECT_EQ(st.received_held, 0u);
    EXPECT_EQ(st.received_in_place, static_cast<std::size_t>(count));
  }
}

// More receives alive at once than the endpoint keeps request states for reuse, completed and read back in
// the reverse order: each must keep its own status and data.
TEST(Dyn, ManyRequestsAliveAtOnceKeepTheirOwnStatus) {
  const int me = world_rank();
  constexpr int count = 80;
  Endpoint ep(MPI_COMM_WORLD);
  auto size_of = [](int i) { return 10 + 3 * static_cast<std::size_t>(i); };
  if (me == 0) {
    std::vector<std::vector<std::byte>> data;
    for (int i = 0; i < count; ++i) data.push_back(pattern(0, 11, i, size_of(i)));
    std::vector<Request> sends;
    for (int i = 0; i < count; ++i) sends.push_back(ep.send(data[i], std::vector<int>{1}, 11));
    for (auto it = sends.rbegin(); it != sends.rend(); ++it) it->wait();
  } else if (me == 1) {
    std::vector<std::vector<std::byte>> buffers(count, std::vector<std::byte>(size_of(count)));
    std::vector<Request> receives;
    for (int i = 0; i < count; ++i) receives.push_back(ep.irecv(buffers[i], 0, 11));
    for (int i = count - 1; i >= 0; --i) {
      receives[i].wait();
      ASSERT_EQ(receives[i].status().bytes, size_of(i)) << "receive " << i;
      buffers[i].resize(size_of(i));
      EXPECT_EQ(buffers[i], pattern(0, 11, i, size_of(i))) << "receive " << i;
    }
  }
}

// A holder of many requests advances the endpoint once per pass and asks each whether it is done: done()
// moves nothing itself, and every request completes that way with its own data.
TEST(Dyn, ManyRequestsCompleteWithOnePollingPassForAll) {
  const int me = world_rank();
  constexpr int count = 40;
  Endpoint ep(MPI_COMM_WORLD);
  if (world_size() < 2) return;
  const std::vector<int> to_all = others(0, world_size());
  if (me == 0) {
    std::vector<std::vector<std::byte>> data;
    for (int i = 0; i < count; ++i) data.push_back(pattern(0, 12, i, 100 + static_cast<std::size_t>(i)));
    std::vector<Request> sends;
    for (int i = 0; i < count; ++i) sends.push_back(ep.send(data[i], to_all, 12));
    ASSERT_TRUE(poll_until(ep, [&] {
      return std::all_of(sends.begin(), sends.end(), [](Request& r) { return r.done(); });
    }));
  } else {
    std::vector<std::vector<std::byte>> buffers(count, std::vector<std::byte>(100 + count));
    std::vector<Request> receives;
    for (int i = 0; i < count; ++i) receives.push_back(ep.irecv(buffers[i], 0, 12));
    ASSERT_TRUE(poll_until(ep, [&] {
      return std::all_of(receives.begin(), receives.end(), [](Request& r) { return r.done(); });
    }));
    for (int i = 0; i < count; ++i) {
      ASSERT_EQ(receives[i].status().bytes, 100 + static_cast<std::size_t>(i)) << "receive " << i;
      buffers[i].resize(100 + static_cast<std::size_t>(i));
      EXPECT_EQ(buffers[i], pattern(0, 12, i, 100 + static_cast<std::size_t>(i))) << "receive " << i;
    }
  }
  // Forwarders may still have pieces to pass on: every rank polls until its part is done.
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST(Dyn, MessagesFromOneOriginKeepTheirOrder) {
  // A broadcast down a chain, then a short point-to-point message to the chain's end, then a one-byte
  // broadcast, all with one tag. The first forwarder holds the broadcast back until the point-to-point
  // message has reached the end of the chain, so it overtakes for sure; the receives must still see the
  // origin's order.
  const int me = world_rank(), n = world_size();
  const int last = n - 1;
  Endpoint ep(MPI_COMM_WORLD);
  const auto a = pattern(0, 9, 0, 200000), b = pattern(0, 9, 1, 10), c = pattern(0, 9, 2, 1);
  const std::vector<int> chain_order = others(0, n);
  if (me == 0) {
    // Two large segments: MPI announces each with one small message, so the held-back forwarder does not
    // tie up the shared-memory buffers the point-to-point message needs.
    Request ra = ep.send(a, chain_order, 9, {.algorithm = "chain", .segment = 100000});
    Request rb = ep.send_p2p(b, last, 9);
    Request rc = ep.send(c, chain_order, 9);
    ra.wait();
    rb.wait();
    rc.wait();
    return;
  }
  const bool overtaking = n >= 3;  // with two ranks there is no forwarder to hold anything back
  if (overtaking && me == 1) MPI_Recv(nullptr, 0, MPI_BYTE, last, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (overtaking && me == last) {
    ASSERT_TRUE(poll_until(ep, [&] { return ep.statistics().overtaken >= 1; })) << "no message overtook";
    EXPECT_FALSE(ep.iprobe(0, 9)) << "the later message is visible before the earlier one";
    MPI_Send(nullptr, 0, MPI_BYTE, 1, 99, MPI_COMM_WORLD);
  }
  std::vector<std::byte> buffer(a.size());
  Status s = ep.recv(buffer, 0, 9);
  EXPECT_EQ(s.bytes, a.size());
  EXPECT_TRUE(std::equal(a.begin(), a.end(), buffer.begin()));
  if (me == last) {
    s = ep.recv(buffer, 0, 9);
    EXPECT_EQ(s.bytes, b.size());
    EXPECT_TRUE(std::equal(b.begin(), b.end(), buffer.begin()));
  }
  s = ep.recv(buffer, 0, 9);
  EXPECT_EQ(s.bytes, c.size());
  EXPECT_EQ(buffer[0], c[0]);
}

TEST(Dyn, PrioritiesOrderTheChainAndTravelWithIt) {
  // Down a chain the recipients line up by decreasing priority: each one but the last forwards every
  // segment exactly once, and the last (lowest priority) forwards nothing.
  const int me = world_rank(), n = world_size();
  constexpr std::size_t bytes = 10000, segment = 1000;
  Endpoint ep(MPI_COMM_WORLD);
  std::vector<int> recipients = others(0, n);
  std::mt19937 rng(99);
  std::shuffle(recipients.begin(), recipients.end(), rng);
  // Rising along the list, so ignoring priorities would put the most urgent recipient last.
  std::vector<int> priorities(recipients.size());
  std::iota(priorities.begin(), priorities.end(), 10);
  const auto data = pattern(0, 8, 0, bytes);
  if (me == 0) {
    ep.send(data, recipients, 8, {.priorities = priorities, .algorithm = "chain", .segment = segment}).wait();
  } else {
    std::vector<std::byte> buffer(bytes);
    ep.recv(buffer, 0, 8);
    EXPECT_EQ(buffer, data);
    const auto at = std::find(recipients.begin(), recipients.end(), me) - recipients.begin();
    const bool lowest = priorities[at] == *std::min_element(priorities.begin(), priorities.end());
    EXPECT_EQ(ep.statistics().segments_forwarded, lowest ? 0u : bytes / segment)
        << "priority " << priorities[at];
  }
}

TEST(Dyn, ACallersTreeIsFollowed) {
  // Rank 0 gives its own tree: every recipient i > 0 in the list gets the data from recipient (i - 1) / 2
  // of the list, a heap-shaped binary tree over the recipients in a shuffled order. Each forwards every
  // segment once to each of its children there, so the counts tell the tree was followed.
  const int me = world_rank(), n = world_size();
  constexpr std::size_t bytes = 10000, segment = 1000;
  Endpoint ep(MPI_COMM_WORLD);
  std::vector<int> recipients = others(0, n);
  std::mt19937 rng(7);
  std::shuffle(recipients.begin(), recipients.end(), rng);
  std::vector<int> parents(recipients.size());
  for (std::size_t i = 0; i < parents.size(); ++i) parents[i] = i == 0 ? -1 : static_cast<int>((i - 1) / 2);
  const auto data = pattern(0, 9, 0, bytes);
  if (me == 0) {
    ep.send(data, recipients, 9, {.algorithm = "chain", .segment = segment, .parents = parents}).wait();
    EXPECT_EQ(ep.statistics().segments_forwarded, 0u);
  } else {
    std::vector<std::byte> buffer(bytes);
    ep.recv(buffer, 0, 9);
    EXPECT_EQ(buffer, data);
    const auto at = static_cast<int>(std::find(recipients.begin(), recipients.end(), me) - recipients.begin());
    const auto children = std::count(parents.begin(), parents.end(), at);
    EXPECT_EQ(ep.statistics().segments_forwarded, static_cast<std::uint64_t>(children) * (bytes / segment))
        << "recipient " << at << " of " << recipients.size();
  }
}

TEST(Dyn, AForwarderReadsItsDataBeforeItsForwardsHaveLeft) {
  // Down the chain 0 -> 1 -> 2, rank 2 takes nothing until rank 1 has its data: rank 1's forwards cannot
  // finish (300 KB pieces stay on the wire until their receiver takes them), yet its receive is delivered,
  // the bytes all there to read. The receive completes once the forwards have left.
  const int me = world_rank(), n = world_size();
  if (n < 3) GTEST_SKIP() << "needs a forwarder and its child: 3 ranks";
  constexpr std::size_t segment = 300000, bytes = 3 * segment;
  Endpoint ep(MPI_COMM_WORLD, {.max_piece = std::size_t{INT_MAX}});
  const auto data = pattern(0, 30, 0, bytes);
  std::vector<std::byte> buffer(bytes);
  Request request;
  if (me == 0) {
    ep.send(data, std::vector<int>{1, 2}, 30, {.algorithm = "chain", .segment = segment}).wait();
  } else if (me == 1) {
    request = ep.irecv(buffer, 0, 30);
    EXPECT_TRUE(poll_until(ep, [&] { return request.delivered(); }));
    EXPECT_EQ(buffer, data) << "delivered before every byte was in";
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == 2) request = ep.irecv(buffer, 0, 30);
  if (me == 1 || me == 2) {
    request.wait();
    EXPECT_TRUE(request.delivered());
    EXPECT_EQ(buffer, data);
  }
}

TEST(Dyn, AnUrgentBroadcastOvertakesQueuedBulkAtAForwarder) {
  // Rank 0 sends three low-priority broadcasts down the chain 0 -> 1 -> 2, then an urgent one goes down
  // the chain through rank 1 too, each in four segments of 300 KB (above every MPI's eager limit: a piece stays on the wire
  // until its receiver takes it). Rank 1 forwards with a window of one byte and rank 2 takes nothing until
  // every segment has reached rank 1, and the urgent broadcast starts once the others are there. So one
  // low-priority segment is on the wire when the urgent broadcast comes to be forwarded, and the rest
  // queue ahead of it in time but behind it in priority: the urgent broadcast completes at rank 2 before
  // any low-priority one can (each still needs segments that leave after all of the urgent one's).
  // With 4 ranks the urgent one comes from another origin (rank 3), with 3 from the same: a receive takes
  // a message only once every earlier message from its origin has announced itself, as MPI orders one
  // sender's messages, and a bulk broadcast's header goes ahead of its data, so the low-priority ones'
  // headers are in before the urgent one's data.
  const int me = world_rank(), n = world_size();
  if (n < 3) GTEST_SKIP() << "needs a forwarder and its child: 3 ranks";
  constexpr std::size_t segment = 300000, bytes = 4 * segment;
  constexpr int low = 3, tags[] = {20, 21, 22, 23};  // the last is urgent
  const int urgent_origin = n >= 4 ? 3 : 0;
  const auto origin = [&](int i) { return i == low ? urgent_origin : 0; };
  Options options{.max_piece = std::size_t{INT_MAX}, .window = me == 1 ? 1 : 0};
  Endpoint ep(MPI_COMM_WORLD, options);
  const std::vector<int> chain{1, 2};
  std::vector<std::vector<std::byte>> data;
  for (int i = 0; i <= low; ++i) data.push_back(pattern(origin(i), tags[i], i, bytes));
  std::vector<std::vector<std::byte>> buffers(low + 1, std::vector<std::byte>(bytes));
  std::vector<Request> requests;
  // The low-priority ones reach rank 1 first, then the urgent one.
  const auto send = [&](int first, int last) {
    for (int i = first; i <= last; ++i) {
      if (origin(i) != me) continue;
      const std::vector<int> priorities(2, i == low ? 9 : 0);
      ep.send(data[static_cast<std::size_t>(i)], chain, tags[i],
              {.priorities = priorities, .algorithm = "chain", .segment = segment})
          .wait();
    }
  };
  const auto landed_at_forwarder = [&](std::size_t segments) {
    if (me != 1) return;
    EXPECT_TRUE(poll_until(ep, [&] { return ep.statistics().segments_forwarded == segments; }))
        << "segments landed at the forwarder: " << ep.statistics().segments_forwarded;
  };
  if (me == 1) {
    for (int i = 0; i <= low; ++i)
      requests.push_back(ep.irecv(buffers[static_cast<std::size_t>(i)], origin(i), tags[i]));
  }
  // Each broadcast: its header alone first (a bulk message's announcement), then its four segments.
  send(0, low - 1);
  landed_at_forwarder(5u * low);
  MPI_Barrier(MPI_COMM_WORLD);
  send(low, low);
  landed_at_forwarder(5u * (low + 1));
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == 1) {
    for (auto& r : requests) r.wait();
  } else if (me == 2) {
    for (int i = 0; i <= low; ++i)
      requests.push_back(ep.irecv(buffers[static_cast<std::size_t>(i)], origin(i), tags[i]));
    bool urgent_first = true;
    EXPECT_TRUE(poll_until(ep, [&] {
      const bool urgent = requests[low].done();
      for (int i = 0; i < low; ++i)
        if (requests[static_cast<std::size_t>(i)].done() && !urgent) urgent_first = false;
      return std::all_of(requests.begin(), requests.end(), [](Request& r) { return r.done(); });
    }));
    EXPECT_TRUE(urgent_first) << "a low-priority broadcast completed before the urgent one";
  }
  if (me == 1 || me == 2) {
    for (int i = 0; i <= low; ++i) EXPECT_EQ(buffers[static_cast<std::size_t>(i)], data[static_cast<std::size_t>(i)]) << i;
  }
}

// A message that fits one frame skips the queue when the queue is empty, and MPI may or may not finish
// sending it at once. Here rank 1 sits in a barrier while rank 0 sends: tiny frames finish at once, larger
// ones stay on the wire (above MPI's eager limit, MPI reads them only once rank 1 takes them), then the
// in-flight limit fills and the rest wait in the queue, where a later small message must not overtake
// them. Every message must arrive intact and in order, with none overtaken.
TEST(Dyn, MessagesSentAtOnceOrQueuedKeepTheirOrderAndBytes) {
  const int me = world_rank();
  Endpoint ep(MPI_COMM_WORLD, {.max_in_flight = 4});
  const std::size_t sizes[] = {1, 6000, 0, 1000, 6000, 1, 9000, 6000, 1, 200, 6000, 1};
  constexpr int count = 48;
  auto size_of = [&](int i) { return sizes[i % std::size(sizes)]; };
  if (me == 0) {
    const std::vector<int> one{1};
    std::vector<std::vector<std::byte>> data;
    for (int i = 0; i < count; ++i) data.push_back(pattern(0, 3, i, size_of(i)));
    std::vector<Request> sends;
    for (int i = 0; i < count; ++i)
      sends.push_back(i % 2 ? ep.send(data[i], one, 3) : ep.send_p2p(data[i], 1, 3));
    MPI_Barrier(MPI_COMM_WORLD);
    for (Request& r : sends) r.wait();
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 1) {
      for (int i = 0; i < count; ++i) {
        std::vector<std::byte> buffer(10000, std::byte{0xEE});
        const Status s = ep.recv(buffer, 0, 3);
        ASSERT_EQ(s.bytes, size_of(i)) << "message " << i;
        const auto expected = pattern(0, 3, i, size_of(i));
        EXPECT_TRUE(std::equal(expected.begin(), expected.end(), buffer.begin())) << "message " << i;
      }
      EXPECT_EQ(ep.statistics().overtaken, 0u);
    }
  }
}

TEST(Dyn, PayloadPiecesToOneRankKeepTheirOrder) {
  // Pieces of 80 KiB are bulk: at most two at a time go to one rank and the rest wait. Each message here
  // is a bulk piece and a short tail, so a tail must wait behind the bulk piece of its own message
  // rather than overtake it: the receiver matches pieces in the order of their headers.
  const int me = world_rank(), n = world_size();
  Endpoint ep(MPI_COMM_WORLD, {.max_piece = 80 * 1024});
  constexpr int count = 6;
  auto size_of = [](int i) { return std::size_t{100000} + 7 * static_cast<std::size_t>(i); };
  if (me == 0) {
    std::vector<std::vector<std::byte>> data;
    for (int i = 0; i < count; ++i) data.push_back(pattern(0, 4, i, size_of(i)));
    std::vector<Request> sends;
    for (int dest = 1; dest < n; ++dest)
      for (int i = 0; i < count; ++i) sends.push_back(ep.send_p2p(data[i], dest, 4));
    for (Request& r : sends) r.wait();
  } else {
    for (int i = 0; i < count; ++i) {
      std::vector<std::byte> buffer(size_of(i));
      const Status s = ep.recv(buffer, 0, 4);
      ASSERT_EQ(s.bytes, size_of(i)) << "message " << i;
      EXPECT_EQ(buffer, pattern(0, 4, i, size_of(i))) << "message " << i;
    }
  }
}

TEST(Dyn, AnySourceAndAnyTag) {
  const int me = world_rank(), n = world_size();
  Endpoint ep(MPI_COMM_WORLD);
  if (me == 0) {
    std::vector<bool> seen(n, false);
    for (int k = 1; k < n; ++k) {
      std::vector<std::byte> buffer(100);
      const Status s = ep.recv(buffer, MPI_ANY_SOURCE, MPI_ANY_TAG);
      ASSERT_GT(s.source, 0);
      EXPECT_EQ(s.tag, 40 + s.source);
      EXPECT_FALSE(seen[s.source]);
      seen[s.source] = true;
      const auto expected = pattern(s.source, s.tag, 0, 17 * s.source);
      EXPECT_EQ(s.bytes, expected.size());
      EXPECT_TRUE(std::equal(expected.begin(), expected.end(), buffer.begin()));
    }
  } else {
    const auto data = pattern(me, 40 + me, 0, 17 * me);
    ep.send_p2p(data, 0, 40 + me).wait();
  }
}

TEST(Dyn, TooLongForTheBufferIsRefusedAndNothingWritten) {
  const int me = world_rank(), n = world_size();
  Endpoint ep(MPI_COMM_WORLD);
  const auto data = pattern(0, 4, 0, 1000);
  for (bool posted_first : {true, false}) {
    std::vector<std::byte> guard(1100, std::byte{0xAB});
    Request request;
    if (me == 1 && posted_first) request = ep.irecv(std::span(guard).first(999), 0, 4);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
      // A chain: rank 1 must forward what it refuses to deliver.
      ep.send(data, others(0, n), 4, {.algorithm = "chain", .segment = 256}).wait();
    } else if (me == 1) {
      if (!posted_first) {
        ASSERT_TRUE(poll_until(ep, [&] { return ep.iprobe(0, 4).has_value(); }));
        request = ep.irecv(std::span(guard).first(999), 0, 4);
      }
      try {
        request.wait();
        ADD_FAILURE() << "a 1000-byte message fitted a 999-byte buffer";
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), Errc::truncated);
        EXPECT_NE(std::string(e.what()).find("1000 bytes"), std::string::npos) << e.what();
      }
      EXPECT_TRUE(std::all_of(guard.begin(), guard.end(), [](std::byte b) { return b == std::byte{0xAB}; }))
          << "bytes written into a buffer too short for the message";
    } else {
      std::vector<std::byte> buffer(1000);
      ep.recv(buffer, 0, 4);
      EXPECT_EQ(buffer, data) << "the sub-tree below a refused receive lost its data";
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

TEST(Dyn, BadArgumentsAreRefusedBeforeAnythingMoves) {
  const int me = world_rank(), n = world_size();
  Endpoint ep(MPI_COMM_WORLD);
  const auto data = pattern(me, 3, 0, 64);
  const int next = (me + 1) % n, prev = (me + n - 1) % n;
  auto code_of = [](auto&& call) {
    try {
      call();
    } catch (const Error& e) {
      return e.code();
    }
    return Errc::mpi;  // "no error": a code none of these calls may give
  };
  const std::vector<int> twice{next, next}, with_me{next, me}, outside{n}, one{next};
  const std::vector<int> two_priorities{1, 2};
  EXPECT_EQ(code_of([&] { ep.send(data, twice, 3); }), Errc::invalid_argument);
  EXPECT_EQ(code_of([&] { ep.send(data, with_me, 3); }), Errc::invalid_argument);
  EXPECT_EQ(code_of([&] { ep.send(data, outside, 3); }), Errc::invalid_argument);
  EXPECT_EQ(code_of([&] { ep.send(data, one, -2); }), Errc::invalid_argument);
  EXPECT_EQ(code_of([&] { ep.send(data, one, 3, {.priorities = two_priorities}); }), Errc::invalid_argument);
  // A caller's tree: one parent per recipient, each -1 or another recipient, reaching the root.
  const std::vector<int> two_parents{-1, 0}, self{0}, out_of_range{1};
  EXPECT_EQ(code_of([&] { ep.send(data, one, 3, {.parents = two_parents}); }), Errc::invalid_argument);
  EXPECT_EQ(code_of([&] { ep.send(data, one, 3, {.parents = self}); }), Errc::invalid_argument);
  EXPECT_EQ(code_of([&] { ep.send(data, one, 3, {.parents = out_of_range}); }), Errc::invalid_argument);
  if (n >= 3) {
    const std::vector<int> all = others(me, n);
    std::vector<int> cycle(all.size());
    for (std::size_t i = 0; i < cycle.size(); ++i) cycle[i] = static_cast<int>((i + 1) % cycle.size());
    EXPECT_EQ(code_of([&] { ep.send(data, all, 3, {.parents = cycle}); }), Errc::invalid_argument);
  }
  if (n >= 3) {  // over two ranks every algorithm is the single edge origin -> recipient
    const std::vector<int> all = others(me, n);
    EXPECT_EQ(code_of([&] { ep.send(data, all, 3, {.algorithm = "two_tree"}); }), Errc::invalid_argument);
  }
  EXPECT_EQ(code_of([&] { ep.send(data, one, 3, {.algorithm = "no_such_tree"}); }), Errc::unknown_algorithm);
  EXPECT_EQ(code_of([&] { ep.send({static_cast<const std::byte*>(nullptr), 5}, one, 3); }), Errc::invalid_buffer);
  EXPECT_EQ(code_of([&] { ep.send_p2p(data, me, 3); }), Errc::invalid_argument);
  std::vector<std::byte> buffer(64);
  EXPECT_EQ(code_of([&] { ep.irecv(buffer, me, 3); }), Errc::invalid_argument);
  EXPECT_EQ(code_of([&] { ep.irecv(buffer, n + 3, 3); }), Errc::invalid_argument);
  // Nothing was sent and no sequence number was spent: a ring exchange still pairs up.
  Request out = ep.send(data, one, 3);
  const Status s = ep.recv(buffer, prev, 3);
  out.wait();
  EXPECT_EQ(s.bytes, 64u);
  const auto expected = pattern(prev, 3, 0, 64);
  EXPECT_EQ(buffer, expected);
}

TEST(Dyn, ForwardingFollowsTheNodeUnlessGiven) {
  // These tests run on one machine: every rank shares one node, so a core forwards (serial), unless the
  // options say otherwise; the shapes sends pick follow.
  const CostModel network{.alpha = 12e-6, .beta = 8e-9};
  const std::size_t bytes = std::size_t{8} << 20;
  if (std::getenv("HERALD_DYN_FORWARDING") == nullptr) {
    Endpoint local(MPI_COMM_WORLD, {.cost_model = network});
    EXPECT_EQ(local.forwarding(), Forwarding::serial);
  }
  Endpoint serial(MPI_COMM_WORLD, {.cost_model = network, .forwarding = Forwarding::serial});
  Endpoint overlapped(MPI_COMM_WORLD, {.cost_model = network, .forwarding = Forwarding::overlapped});
  EXPECT_EQ(overlapped.forwarding(), Forwarding::overlapped);
  EXPECT_EQ(serial.shape(2, bytes).algorithm, choose_shape(3, bytes, network, Forwarding::serial).algorithm);
  const Shape piped = overlapped.shape(2, bytes);
  const Shape expected = choose_shape(3, bytes, network, Forwarding::overlapped);
  EXPECT_EQ(piped.algorithm, expected.algorithm);
  EXPECT_EQ(piped.segment, expected.segment);
  EXPECT_THROW(overlapped.shape(0, bytes), Error);
}

TEST(Dyn, BadConfigurationIsRefusedAtConstruction) {
  const char* saved = std::getenv("HERALD_DYN_ALGORITHM");
  const std::string keep = saved ? saved : "";
  setenv("HERALD_DYN_ALGORITHM", "no_such_tree", 1);
  try {
    Endpoint ep(MPI_COMM_WORLD);
    ADD_FAILURE() << "HERALD_DYN_ALGORITHM=no_such_tree accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::unknown_algorithm);
  }
  if (saved) {
    setenv("HERALD_DYN_ALGORITHM", keep.c_str(), 1);
  } else {
    unsetenv("HERALD_DYN_ALGORITHM");
  }
  EXPECT_THROW(Endpoint(MPI_COMM_NULL), Error);
  // The send queue's bounds: a bad value is refused by name (a negative count too).
  for (const auto& [name, bad] : {std::pair{"HERALD_DYN_WINDOW", "wide"}, std::pair{"HERALD_DYN_TOTAL_WINDOW", "all"},
                                  std::pair{"HERALD_DYN_WINDOW_PIECES", "-1"}}) {
    if (std::getenv(name)) continue;
    setenv(name, bad, 1);
    try {
      Endpoint ep(MPI_COMM_WORLD);
      ADD_FAILURE() << name << "=" << bad << " accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
    unsetenv(name);
  }
  // On a channel shared with its owner: none, or a progress thread of its own, is refused before anything
  // collective (every rank refuses alike).
  EXPECT_THROW(Endpoint(std::shared_ptr<Channel>{}), Error);
  auto shared = std::make_shared<Channel>(MPI_COMM_WORLD, Channel::Options{});
  try {
    Endpoint ep(shared, {.progress_thread = true});
    ADD_FAILURE() << "a progress thread on a shared channel accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("shared channel"), std::string::npos) << e.what();
  }
}

TEST(Dyn, ProgressThreadForwardsWhileTheApplicationIsBusy) {
  int provided = 0;
  MPI_Query_thread(&provided);
  if (provided < MPI_THREAD_MULTIPLE) GTEST_SKIP() << "MPI_THREAD_MULTIPLE not provided";
  const int me = world_rank(), n = world_size();
  Endpoint ep(MPI_COMM_WORLD, {.progress_thread = true});
  ASSERT_TRUE(ep.has_progress_thread());
  const auto data = pattern(0, 6, 0, 30000);
  const std::vector<int> chain_order = others(0, n);
  std::vector<std::byte> buffer(data.size());
  if (me == 0) {
    ep.send(data, chain_order, 6, {.algorithm = "chain", .segment = 4096}).wait();
    MPI_Barrier(MPI_COMM_WORLD);
  } else if (me == n - 1) {
    // The data must come down the whole chain while the forwarders sit in MPI_Barrier below.
    ep.recv(buffer, 0, 6);
    MPI_Barrier(MPI_COMM_WORLD);
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
    ep.recv(buffer, 0, 6);
    EXPECT_EQ(ep.statistics().received_held, 1u);
  }
  if (me != 0) {
    EXPECT_EQ(buffer, data);
  }
}

// Above INT_MAX bytes: one 2 GiB + 7 byte segment (sent in pieces) by broadcast, then point-to-point.
// Needs about 2 x 2 GiB of memory; only ranks 0 and 1 take part.
TEST(DynLarge, MessageAboveIntMaxGoesInPieces) {
  const int me = world_rank();
  constexpr std::size_t bytes = std::size_t{INT_MAX} + 8;
  auto byte_at = [](std::size_t i) { return static_cast<std::byte>((i * 0x9E3779B97F4A7C15ull) >> 56); };
  Endpoint ep(MPI_COMM_WORLD);
  if (me == 0) {
    std::vector<std::byte> data(bytes);
    for (std::size_t i = 0; i < bytes; ++i) data[i] = byte_at(i);
    const std::vector<int> one{1};
    ep.send(data, one, 1, {.algorithm = "binomial"}).wait();
    ep.send_p2p(data, 1, 2).wait();
  } else if (me == 1) {
    std::vector<std::byte> buffer(bytes);
    for (int tag : {1, 2}) {
      std::fill(buffer.begin(), buffer.end(), std::byte{0});
      const Status s = ep.recv(buffer, 0, tag);
      EXPECT_EQ(s.bytes, bytes);
      std::size_t wrong = 0;
      for (std::size_t i = 0; i < bytes; ++i) wrong += buffer[i] != byte_at(i);
      EXPECT_EQ(wrong, 0u) << "tag " << tag;
    }
  }
}

}  // namespace
}  // namespace herald::dyn
