// dyn's active-message channel through its public header alone, between real MPI processes: handlers
// run for each arrival with its source and body, payloads land where the handler says (inline, in pieces,
// behind a long frame), the quick send path, and the reserved handler id. Every rank sends to every other.
#include <herald/dyn/channel.hpp>
#include <herald/error.hpp>

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <span>
#include <thread>
#include <vector>

namespace herald::dyn {
namespace {

constexpr Channel::HandlerId greeting = 7;

std::vector<std::byte> pattern(int from, int to, std::size_t n) {
  std::vector<std::byte> v(n);
  std::uint32_t x = static_cast<std::uint32_t>(from) * 2654435761u ^ static_cast<std::uint32_t>(to) * 40503u ^
                    static_cast<std::uint32_t>(n);
  for (auto& b : v) {
    x = x * 1664525u + 1013904223u;
    b = static_cast<std::byte>(x >> 24);
  }
  return v;
}

// Polls until `done` holds (false after 60 s; the ctest timeout is the backstop, this names the spot), then
// until nothing of this rank's is on the wire, then leaves with the others: a rank that stopped polling
// early could leave a peer's payload unreceived.
template <class Done>
bool settle(Channel& channel, Done done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!done() || !channel.quiet()) {
    if (!channel.progress()) std::this_thread::yield();
    if (std::chrono::steady_clock::now() > deadline) return false;
  }
  MPI_Request barrier;
  MPI_Ibarrier(channel.comm(), &barrier);
  for (int finished = 0; !finished;) {
    channel.progress();
    MPI_Test(&barrier, &finished, MPI_STATUS_IGNORE);
  }
  return true;
}

// Every rank sends each other rank a body naming itself and a payload of `bytes`; each handler receives
// the payload into a buffer of its own and checks it once there.
void exchange(const Channel::Options& options, std::size_t body_bytes, std::size_t payload_bytes) {
  Channel channel(MPI_COMM_WORLD, options);
  const int me = channel.rank();
  const int n = channel.size();
  std::map<int, std::vector<std::byte>> received;  // by source
  int arrived = 0;
  channel.on(greeting, [&](const Channel::Arrival& a) {
    ASSERT_EQ(a.body.size(), body_bytes);
    int named = -1;
    std::memcpy(&named, a.body.data(), sizeof named);
    EXPECT_EQ(named, a.source);
    EXPECT_EQ(a.payload, payload_bytes);
    auto& into = received[a.source];
    into.resize(a.payload);
    channel.receive_payload(into, [&arrived] { ++arrived; });
  });
  std::vector<std::vector<std::byte>> payloads;
  std::vector<std::byte> body(body_bytes);
  std::memcpy(body.data(), &me, sizeof me);
  int sent = 0;
  for (int r = 0; r < n; ++r) {
    if (r == me) continue;
    payloads.push_back(pattern(me, r, payload_bytes));
    channel.post(r, greeting, body, payloads.back(), 0, [&sent] { ++sent; });
  }
  ASSERT_TRUE(settle(channel, [&] { return arrived == n - 1 && sent == n - 1; }));
  for (const auto& [source, bytes] : received) EXPECT_EQ(bytes, pattern(source, me, payload_bytes)) << "from " << source;
  EXPECT_EQ(received.size(), static_cast<std::size_t>(n - 1));
}

TEST(Channel, SmallPayloadsRideInline) { exchange({}, sizeof(int), 100); }

TEST(Channel, NoPayload) { exchange({}, sizeof(int), 0); }

TEST(Channel, LargePayloadsTravelInPieces) { exchange({.max_piece = 1000, .max_inline = 0}, sizeof(int), 100000); }

TEST(Channel, FramesLongerThanASlotTakeTheStubPath) {
  exchange({.slot_bytes = 128}, 1000, 64);
}

TEST(Channel, QuickSendsLeaveOrAreTracked) {
  Channel channel(MPI_COMM_WORLD, {});
  const int me = channel.rank();
  const int n = channel.size();
  int arrived = 0;
  channel.on(greeting, [&](const Channel::Arrival& a) {
    EXPECT_EQ(a.body.size(), sizeof(int));
    channel.receive_payload({}, [&arrived] { ++arrived; });
  });
  auto owner = std::make_shared<std::vector<bool>>(static_cast<std::size_t>(n), false);
  std::vector<std::shared_ptr<bool>> flags;
  const auto body = std::as_bytes(std::span(&me, 1));
  for (int r = 0; r < n; ++r) {
    if (r == me) continue;
    auto flag = std::make_shared<bool>(false);
    if (!channel.send(r, greeting, body, {}, 0, flag)) flags.push_back(flag);  // kept until it leaves
  }
  ASSERT_TRUE(settle(channel, [&] {
    return arrived == n - 1 && std::all_of(flags.begin(), flags.end(), [](const auto& f) { return *f; });
  }));
}

TEST(Channel, TheLongFrameHandlerIdIsReserved) {
  Channel channel(MPI_COMM_WORLD, {});
  try {
    channel.on(Channel::long_frame, [](const Channel::Arrival&) {});
    ADD_FAILURE() << "handler id 65535 was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("65535 is reserved"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace herald::dyn
