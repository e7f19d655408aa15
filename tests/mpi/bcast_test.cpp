// Every algorithm, byte-exact on patterned data, on the ranks of this launch: blocking and nonblocking,
// every root of interest, sizes that catch chunking bugs.
#include <herald/algorithms.hpp>
#include <herald/bcast.hpp>
#include <herald/config.hpp>
#include <herald/error.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <mpi.h>

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace herald {
namespace {

int rank_of(MPI_Comm comm = MPI_COMM_WORLD) {
  int r = 0;
  MPI_Comm_rank(comm, &r);
  return r;
}
int size_of(MPI_Comm comm = MPI_COMM_WORLD) {
  int n = 0;
  MPI_Comm_size(comm, &n);
  return n;
}

std::byte pattern(std::size_t i, int root, std::uint64_t salt) {
  return static_cast<std::byte>((i * 131 + static_cast<std::size_t>(root) * 7 + salt) % 251);
}

void fill(std::vector<std::byte>& data, int root, std::uint64_t salt) {
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = pattern(i, root, salt);
}

// Index of the first wrong byte, or -1.
long long first_wrong(const std::vector<std::byte>& data, int root, std::uint64_t salt) {
  for (std::size_t i = 0; i < data.size(); ++i)
    if (data[i] != pattern(i, root, salt)) return static_cast<long long>(i);
  return -1;
}

// True on every rank iff `ok` holds on every rank, so all ranks agree on the verdict.
bool everywhere(bool ok) {
  int mine = ok ? 1 : 0, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all == 1;
}

std::vector<std::size_t> sizes() {
  std::vector<std::size_t> s{0, 1, 7, 4093, 65539, (std::size_t{4} << 20) + 1};
  if (auto v = environment("HERALD_TEST_MAX_BYTES")) {  // a reduced matrix for slow MPI set-ups
    const std::size_t limit = parse_bytes(*v);
    std::erase_if(s, [&](std::size_t n) { return n > limit; });
  }
  return s;
}

std::vector<int> roots() {
  const int P = size_of();
  std::set<int> r{0, P / 2, P - 1};
  return {r.begin(), r.end()};
}

std::vector<std::string> names() {
  std::vector<std::string> n{"native", "auto"};
  for (const AlgorithmInfo& a : algorithms()) n.emplace_back(a.name);
  return n;
}

TEST(Bcast, EveryAlgorithmRootAndSizeIsByteExact) {
  const int me = rank_of();
  std::uint64_t salt = 0;
  for (const std::string& name : names())
    for (int root : roots())
      for (std::size_t bytes : sizes()) {
        ++salt;
        std::vector<std::byte> data(bytes, std::byte{0xEE});
        if (me == root) fill(data, root, salt);
        // A segment that does not divide the sizes, so segmented algorithms cut many odd pieces.
        Options options{.algorithm = name, .parameters = {.segment = bytes > 100000 ? 300001u : 1000u}};
        bcast(data, root, MPI_COMM_WORLD, options);
        const long long wrong = first_wrong(data, root, salt);
        ASSERT_TRUE(everywhere(wrong < 0)) << name << " root=" << root << " bytes=" << bytes << ": rank " << me
                                           << " first wrong byte " << wrong;
      }
}

TEST(Ibcast, EveryAlgorithmNonblocking) {
  const int me = rank_of();
  std::uint64_t salt = 1000;
  for (const std::string& name : names())
    for (std::size_t bytes : {std::size_t{1}, std::size_t{65539}}) {
      const int root = size_of() - 1;
      ++salt;
      std::vector<std::byte> data(bytes);
      if (me == root) fill(data, root, salt);
      Request request = ibcast(data, root, MPI_COMM_WORLD, {.algorithm = name});
      while (!request.test()) {
      }
      EXPECT_FALSE(request.active());
      ASSERT_TRUE(everywhere(first_wrong(data, root, salt) < 0)) << name << " bytes=" << bytes;
    }
}

// Several broadcasts from different roots in flight on one communicator complete in MPI's collective order.
TEST(Ibcast, OverlappingFromEveryRoot) {
  const int P = size_of(), me = rank_of();
  for (const std::string& name : {std::string("binomial"), std::string("scatter_ring"), std::string("chain"),
                                  std::string("two_tree"), std::string("node_shared"), std::string("native")}) {
    if (name != "native" && name != "binomial") {
      bool known = false;
      for (const AlgorithmInfo& a : algorithms()) known |= a.name == name;
      if (!known) continue;
    }
    std::vector<std::vector<std::byte>> data(2 * P);
    std::vector<Request> requests;
    for (int k = 0; k < 2 * P; ++k) {
      const int root = (P - 1 - k % P + P) % P;
      data[k].assign(10007 + k * 3, std::byte{0});
      if (me == root) fill(data[k], root, 5000 + k);
      requests.push_back(ibcast(data[k], root, MPI_COMM_WORLD, {.algorithm = name, .parameters = {.segment = 1024}}));
    }
    // Complete in reverse order: progress must not depend on the order of waits.
    for (auto it = requests.rbegin(); it != requests.rend(); ++it) it->wait();
    bool ok = true;
    for (int k = 0; k < 2 * P; ++k) ok &= first_wrong(data[k], (P - 1 - k % P + P) % P, 5000 + k) < 0;
    ASSERT_TRUE(everywhere(ok)) << name;
  }
}

// Ranks wait for the same broadcasts in different orders: a rank blocked on one must keep forwarding the
// others (MPI's progress rule). With one chain per root and rank r waiting first for the broadcast rooted at
// r+1, every rank would otherwise block on data its left neighbour never forwards.
TEST(Ibcast, WaitOrderDiffersBetweenRanks) {
  const int P = size_of(), me = rank_of();
  std::vector<std::vector<std::byte>> data(P);
  std::vector<Request> requests;
  for (int k = 0; k < P; ++k) {
    data[k].assign(20003, std::byte{0});
    if (me == k) fill(data[k], k, 7000 + k);
    requests.push_back(ibcast(data[k], k, MPI_COMM_WORLD, {.algorithm = "chain", .parameters = {.segment = 4096}}));
  }
  for (int i = 1; i <= P; ++i) requests[(me + i) % P].wait();
  bool ok = true;
  for (int k = 0; k < P; ++k) ok &= first_wrong(data[k], k, 7000 + k) < 0;
  ASSERT_TRUE(everywhere(ok));
}

// Polled broadcasts (Options::polled, Request::poll) keep their sends under the window between calls; every
// rank polls all of them in a loop, as a task runtime's worker does, and every delivery is complete.
TEST(Ibcast, PolledBroadcastsCompleteWhenEveryRankPolls) {
  const int P = size_of(), me = rank_of();
  std::vector<std::vector<std::byte>> data(P);
  std::vector<Request> requests;
  for (int k = 0; k < P; ++k) {
    data[k].assign(70001, std::byte{0});
    if (me == k) fill(data[k], k, 9000 + k);
    requests.push_back(ibcast(data[k], k, MPI_COMM_WORLD,
                              {.algorithm = "chain", .parameters = {.segment = 8192}, .polled = true}));
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (bool all = false; !all && std::chrono::steady_clock::now() < deadline;) {
    all = true;
    for (Request& r : requests) all = r.poll() && all;
  }
  bool ok = true;
  for (int k = 0; k < P; ++k) ok &= first_wrong(data[k], k, 9000 + k) < 0;
  for (Request& r : requests) ok &= !r.active();
  ASSERT_TRUE(everywhere(ok));
}

// A blocking broadcast must keep earlier broadcasts in flight moving: rank 0 waits for X before it joins Y,
// and X reaches rank 0 last, through every rank that is already blocked in Y.
TEST(Bcast, KeepsForwardingBroadcastsInFlight) {
  const int P = size_of(), me = rank_of();
  if (P < 3) GTEST_SKIP() << "needs three ranks";
  for (const char* blocking : {"chain", "native", "node_shared"}) {
    std::vector<std::byte> x(20003), y(101);
    if (me == 1) fill(x, 1, 31);
    if (me == 0) fill(y, 0, 32);
    Request in_flight = ibcast(x, 1, MPI_COMM_WORLD, {.algorithm = "chain", .parameters = {.segment = 4096}});
    if (me == 0) in_flight.wait();
    bcast(y, 0, MPI_COMM_WORLD, {.algorithm = blocking});
    in_flight.wait();
    ASSERT_TRUE(everywhere(first_wrong(x, 1, 31) < 0 && first_wrong(y, 0, 32) < 0)) << blocking;
  }
}

// Mixing herald calls with the user's own traffic on the same communicator and tag space.
TEST(Bcast, NeverMatchesTheUsersMessages) {
  const int P = size_of(), me = rank_of();
  if (P < 2) GTEST_SKIP() << "needs two ranks";
  int token = me == 0 ? 42 : -1;
  MPI_Request user = MPI_REQUEST_NULL;
  if (me == 1) MPI_Irecv(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &user);  // any tag herald might pick: 0
  std::vector<std::byte> data(999);
  if (me == 0) fill(data, 0, 77);
  bcast(data, 0, MPI_COMM_WORLD, {.algorithm = "binomial"});
  if (me == 0) MPI_Send(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
  if (me == 1) MPI_Wait(&user, MPI_STATUS_IGNORE);
  EXPECT_TRUE(everywhere(first_wrong(data, 0, 77) < 0));
  if (me == 1) {
    EXPECT_EQ(token, 42);
  }
}

TEST(Bcast, WorksOnSubCommunicators) {
  const int me = rank_of();
  MPI_Comm half = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half);
  const int root = size_of(half) - 1;
  for (const std::string& name : names()) {
    std::vector<std::byte> data(3001);
    if (rank_of(half) == root) fill(data, root, 900 + me % 2);
    bcast(data, root, half, {.algorithm = name});
    EXPECT_TRUE(everywhere(first_wrong(data, root, 900 + me % 2) < 0)) << name;
  }
  MPI_Comm_free(&half);
}

// herald's node layout: every rank of a communicator finds the same one, with every rank in it once, and
// ranks share a node exactly when their hosts (or emulated nodes) are the same.
TEST(Bcast, FindsTheSameNodeLayoutOnEveryRank) {
  const int me = rank_of();
  MPI_Comm half = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, me % 2, -me, &half);
  for (MPI_Comm comm : {MPI_COMM_WORLD, half}) {
    const NodeLayout layout = node_layout(comm);
    ASSERT_EQ(layout.ranks(), size_of(comm));
    int seen = 0;
    for (int n = 0; n < layout.nodes(); ++n) seen += static_cast<int>(layout.members(n).size());
    EXPECT_EQ(seen, size_of(comm));
    unsigned long long mine = layout.hash(), lowest = 0, highest = 0;
    MPI_Allreduce(&mine, &lowest, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, comm);
    MPI_Allreduce(&mine, &highest, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm);
    EXPECT_EQ(lowest, highest) << "ranks found different layouts";
    // Two ranks share a node exactly when their hosts have the same name, or under HERALD_EMULATE_NODES
    // (k consecutive ranks of MPI_COMM_WORLD a node, or world rank i on node i mod k), the same emulated node.
    std::string host(MPI_MAX_PROCESSOR_NAME, '\0');
    int length = 0;
    MPI_Get_processor_name(host.data(), &length);
    if (auto emulated = environment("HERALD_EMULATE_NODES")) {
      const int k = std::stoi(*emulated);
      host = std::to_string(emulated->find("cyclic") != std::string::npos ? me % k : me / k);
      host.resize(MPI_MAX_PROCESSOR_NAME, '\0');
    }
    std::vector<char> hosts(static_cast<std::size_t>(size_of(comm)) * MPI_MAX_PROCESSOR_NAME, 0);
    MPI_Allgather(host.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, hosts.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, comm);
    auto name = [&](int r) { return std::string(hosts.data() + static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME); };
    for (int a = 0; a < size_of(comm); ++a)
      for (int b = 0; b < size_of(comm); ++b)
        EXPECT_EQ(layout.node_of(a) == layout.node_of(b), name(a) == name(b)) << a << " and " << b;
  }
  MPI_Comm_free(&half);
}

template <class F>
Errc error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.code();
  }
  ADD_FAILURE() << "no error";
  return Errc::mpi;
}

// A repeated pass-through to the MPI's broadcast skips herald's checks (Context::repeat_passthrough). It
// must still draw the communicator's tag, as the long way does: here ranks 0 and 1 break their repeat on
// MPI_COMM_WORLD with a call on a communicator of their own, so they take the long way where the others
// repeat. Tags that fell out of step would leave the nonblocking broadcasts after it unmatched (a timeout).
TEST(Bcast, RepeatedPassThroughKeepsTheTagSequence) {
  const int me = rank_of();
  MPI_Comm pair = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, me < 2 ? 0 : MPI_UNDEFINED, me, &pair);
  std::vector<std::byte> data(100);
  for (int round = 0; round < 3; ++round) {
    if (me == 0) fill(data, 0, 300 + round);
    bcast(data, 0, MPI_COMM_WORLD, {.algorithm = "native"});
    EXPECT_TRUE(everywhere(first_wrong(data, 0, 300 + round) < 0)) << "round " << round;
    if (pair != MPI_COMM_NULL && round == 1) {
      std::vector<std::byte> other(100);
      if (me == 0) fill(other, 0, 400);
      bcast(other, 0, pair, {.algorithm = "native"});
      EXPECT_EQ(first_wrong(other, 0, 400), -1);
    }
  }
  const int last = size_of() - 1;
  std::vector<std::byte> a(5000), b(7000);
  if (me == last) {
    fill(a, last, 500);
    fill(b, last, 501);
  }
  Request first = ibcast(a, last, MPI_COMM_WORLD, {.algorithm = "binomial"});
  Request second = ibcast(b, last, MPI_COMM_WORLD, {.algorithm = "chain", .parameters = {.segment = 1024}});
  second.wait();
  first.wait();
  EXPECT_TRUE(everywhere(first_wrong(a, last, 500) < 0 && first_wrong(b, last, 501) < 0));
  if (pair != MPI_COMM_NULL) MPI_Comm_free(&pair);
}

// The repeat is forgotten with its communicator (a new one may reuse the handle), and it checks the buffer.
TEST(Bcast, RepeatedPassThroughChecksTheBufferAndForgetsFreedCommunicators) {
  for (int round = 0; round < 3; ++round) {
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    for (int repeat = 0; repeat < 3; ++repeat) {
      std::vector<std::byte> data(64);
      if (rank_of(comm) == 0) fill(data, 0, 600 + repeat);
      bcast(data, 0, comm, {.algorithm = "native"});
      EXPECT_TRUE(everywhere(first_wrong(data, 0, 600 + repeat) < 0));
    }
    EXPECT_EQ(error_of([&] { bcast({static_cast<std::byte*>(nullptr), 64}, 0, comm, {.algorithm = "native"}); }),
              Errc::invalid_buffer);
    MPI_Comm_free(&comm);
  }
}

// Every stage among node leaders, for both node-aware algorithms, blocking and nonblocking, roots on
// different nodes, sizes that leave the stages' cuts (segments, halves, a scatter's chunks) unaligned. The
// stage carries the message between nodes: emulated ones (HERALD_EMULATE_NODES), at least three.
TEST(NodeAware, EveryLeaderStage) {
  const int P = size_of(), me = rank_of();
  if (node_layout(MPI_COMM_WORLD).nodes() < 3) GTEST_SKIP() << "fewer than three nodes: no stage among leaders";
  for (const char* name : {"node_pipeline", "node_shared"})
    for (LeaderStage stage : leader_stages())
      for (int root : std::set<int>{0, P / 2, P - 1})
        for (std::size_t bytes : {std::size_t{1}, std::size_t{4093}, std::size_t{200003}}) {
          const Options options{.algorithm = name, .parameters = {.segment = 8192, .leaders = stage}};
          const std::uint64_t salt = 900 + bytes % 7 + static_cast<std::uint64_t>(stage);
          std::vector<std::byte> data(bytes);
          if (me == root) fill(data, root, salt);
          if (bytes % 2) bcast(data, root, MPI_COMM_WORLD, options);
          else ibcast(data, root, MPI_COMM_WORLD, options).wait();
          ASSERT_TRUE(everywhere(first_wrong(data, root, salt) < 0))
              << name << " among leaders " << leader_stage_name(stage) << ", root " << root << ", " << bytes;
        }
}

// node_shared carries the stage within a node through node memory, made with the communicator's state.
// Nonblocking and blocking calls share it; broadcasts larger than the ring wrap it; several in flight from
// different roots, with another algorithm among them, take it in turn whatever order ranks wait in. A
// freed communicator's memory goes with it, leaving no name behind. (Under HERALD_EMULATE_NODES each
// emulated node has a ring of its own.)
TEST(NodeShared, NonblockingAndBlockingAcrossTheRingsEnd) {
  const int P = size_of(), me = rank_of(), last = P - 1;
  const Options shared{.algorithm = "node_shared"};
  for (int round = 0; round < 2; ++round) {
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    std::vector<std::byte> early(100003);
    if (me == last) fill(early, last, 800 + round);
    ibcast(early, last, comm, shared).wait();
    EXPECT_TRUE(everywhere(first_wrong(early, last, 800 + round) < 0)) << "nonblocking, the first call";

    std::vector<std::byte> wide((std::size_t{5} << 20) + 3);  // more than the ring holds
    if (me == 0) fill(wide, 0, 810 + round);
    bcast(wide, 0, comm, shared);
    EXPECT_TRUE(everywhere(first_wrong(wide, 0, 810 + round) < 0)) << "blocking, across the ring's end";

    const std::vector<std::pair<int, std::size_t>> calls{
        {0, std::size_t{3} << 20}, {last, (std::size_t{1} << 20) + 5}, {P / 2, 70001}, {last, std::size_t{6} << 20}};
    std::vector<std::vector<std::byte>> data(calls.size());
    std::vector<Request> requests;
    for (std::size_t k = 0; k < calls.size(); ++k) {
      const auto [root, bytes] = calls[k];
      data[k].assign(bytes, std::byte{0});
      if (me == root) fill(data[k], root, 820 + k);
      const Options options = k == 2 ? Options{.algorithm = "binomial"} : shared;
      requests.push_back(ibcast(data[k], root, comm, options));
    }
    if (me % 2 == 0) {
      for (auto it = requests.rbegin(); it != requests.rend(); ++it) it->wait();
    } else {
      for (Request& r : requests) r.wait();
    }
    bool ok = true;
    for (std::size_t k = 0; k < calls.size(); ++k) ok &= first_wrong(data[k], calls[k].first, 820 + k) < 0;
    EXPECT_TRUE(everywhere(ok)) << "in flight together, round " << round;
    MPI_Comm_free(&comm);
  }
  // Each segment's name is removed once every rank of its node has it open.
  const std::string prefix = "herald." + std::to_string(::getpid()) + ".";
  std::error_code none;  // no /dev/shm: no segment was made, and none can be left
  for (const auto& entry : std::filesystem::directory_iterator("/dev/shm", none))
    EXPECT_NE(entry.path().filename().string().rfind(prefix, 0), 0u) << entry.path() << " left behind";
}

// A rank that refuses the first node_shared call on a communicator (a null buffer) plays its part in the
// ring without data, and the next call works everywhere.
TEST(NodeShared, ARefusalOnOneRankLeavesTheRingInStep) {
  const int P = size_of(), me = rank_of();
  if (P < 2) GTEST_SKIP() << "needs two ranks";
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  for (int refusing : {0, 1}) {
    std::vector<std::byte> data(300001);
    if (me == 0) fill(data, 0, 900 + refusing);
    std::span<std::byte> buffer = data;
    if (me == refusing) buffer = {static_cast<std::byte*>(nullptr), data.size()};
    std::optional<Errc> error;
    try {
      bcast(buffer, 0, comm, {.algorithm = "node_shared"});
    } catch (const Error& e) {
      error = e.code();
    }
    if (me == refusing) {
      EXPECT_EQ(error, Errc::invalid_buffer);
    } else if (error) {
      EXPECT_EQ(*error, Errc::truncated) << "a rank downstream of the refusal reports it";
    } else {
      EXPECT_EQ(first_wrong(data, 0, 900 + refusing), -1);
    }
    std::vector<std::byte> after(400003);
    if (me == P - 1) fill(after, P - 1, 950 + refusing);
    bcast(after, P - 1, comm, {.algorithm = "node_shared"});
    EXPECT_TRUE(everywhere(first_wrong(after, P - 1, 950 + refusing) < 0));
  }
  MPI_Comm_free(&comm);
}

// A process maps a bounded number of rings (Context::max_rings): communicators beyond it carry node_shared's
// steps within a node as messages, correctly, and a ring freed with its communicator is there for the next.
TEST(NodeShared, CommunicatorsBeyondTheRingsAProcessMaps) {
  const int me = rank_of(), last = size_of() - 1;
  std::vector<MPI_Comm> comms(20, MPI_COMM_NULL);
  for (MPI_Comm& c : comms) MPI_Comm_dup(MPI_COMM_WORLD, &c);
  for (std::size_t k = 0; k < comms.size(); ++k) {
    std::vector<std::byte> data(200003);
    if (me == last) fill(data, last, 1100 + k);
    bcast(data, last, comms[k], {.algorithm = "node_shared"});
    EXPECT_TRUE(everywhere(first_wrong(data, last, 1100 + k) < 0)) << "communicator " << k;
  }
  for (MPI_Comm& c : comms) MPI_Comm_free(&c);
  MPI_Comm again = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &again);
  std::vector<std::byte> data(300007);
  if (me == 0) fill(data, 0, 1200);
  ibcast(data, 0, again, {.algorithm = "node_shared"}).wait();
  EXPECT_TRUE(everywhere(first_wrong(data, 0, 1200) < 0));
  MPI_Comm_free(&again);
}

// Under MPI_THREAD_MULTIPLE, threads broadcast on communicators of their own at once, each opening its
// ring while the others' broadcasts run.
TEST(NodeShared, ThreadsOnTheirOwnCommunicators) {
  int level = MPI_THREAD_SINGLE;
  MPI_Query_thread(&level);
  if (level != MPI_THREAD_MULTIPLE) GTEST_SKIP() << "needs MPI_THREAD_MULTIPLE";
  const int P = size_of(), me = rank_of();
  constexpr int threads = 3;
  std::vector<MPI_Comm> comms(threads);
  for (MPI_Comm& c : comms) MPI_Comm_dup(MPI_COMM_WORLD, &c);
  std::vector<int> wrong(threads, 0);
  std::vector<std::thread> running;
  for (int t = 0; t < threads; ++t)
    running.emplace_back([&, t] {
      for (int round = 0; round < 4; ++round) {
        const int root = (t + round) % P;
        std::vector<std::byte> data(std::size_t{600000} + static_cast<std::size_t>(t) * 1001);
        if (me == root) fill(data, root, 1000 + t * 10 + round);
        if (round % 2 == 0)
          bcast(data, root, comms[t], {.algorithm = "node_shared"});
        else
          ibcast(data, root, comms[t], {.algorithm = "node_shared"}).wait();
        wrong[t] += first_wrong(data, root, 1000 + t * 10 + round) >= 0;
      }
    });
  for (std::thread& t : running) t.join();
  for (int t = 0; t < threads; ++t) EXPECT_TRUE(everywhere(wrong[t] == 0)) << "thread " << t;
  for (MPI_Comm& c : comms) MPI_Comm_free(&c);
}

TEST(Bcast, BadInputIsRefusedBeforeAnyByteMoves) {
  std::vector<std::byte> data(16, std::byte{3});
  const int P = size_of();
  EXPECT_EQ(error_of([&] { bcast(data, P, MPI_COMM_WORLD); }), Errc::invalid_root);
  EXPECT_EQ(error_of([&] { bcast(data, -1, MPI_COMM_WORLD); }), Errc::invalid_root);
  EXPECT_EQ(error_of([&] { bcast(data, 0, MPI_COMM_NULL); }), Errc::invalid_comm);
  EXPECT_EQ(error_of([&] { bcast(data, 0, MPI_COMM_WORLD, {.algorithm = "bogus"}); }), Errc::unknown_algorithm);
  EXPECT_EQ(error_of([&] { bcast(data, 0, MPI_COMM_WORLD, {.algorithm = "knomial", .parameters = {.radix = 1}}); }),
            Errc::invalid_argument);
  EXPECT_EQ(error_of([&] { bcast({static_cast<std::byte*>(nullptr), 4}, 0, MPI_COMM_WORLD); }),
            Errc::invalid_buffer);
  for (std::byte b : data) EXPECT_EQ(b, std::byte{3});
  // The communicator is still usable: nothing was left half-sent.
  std::vector<std::byte> after(5);
  if (rank_of() == 0) fill(after, 0, 11);
  bcast(after, 0, MPI_COMM_WORLD);
  EXPECT_TRUE(everywhere(first_wrong(after, 0, 11) < 0));
}

}  // namespace
}  // namespace herald
