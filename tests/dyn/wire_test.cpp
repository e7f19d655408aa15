// The wire format: round trips, a fixed byte layout, and a clear error for every kind of damage.
#include "../../src/dyn/wire.hpp"
#include <herald/error.hpp>

#include <gtest/gtest.h>

#include <random>
#include <stdexcept>

namespace herald::dyn {
namespace {

Header sample() {
  // Origin 9 sends to a receiver serving two children: 5 (with a sub-tree {6}) and 3.
  return {.origin = 9,
          .tag = 77,
          .priority = -4,
          .seq = 12,
          .total = 1000,
          .segment = {200, 300},
          .has_route = true,
          .route = {{5, 2, 40, 2}, {6, 1, 41, 1}, {3, 0, 7, 1}}};
}

std::vector<std::byte> with_byte(std::vector<std::byte> bytes, std::size_t at, std::uint8_t value) {
  bytes.at(at) = static_cast<std::byte>(value);
  return bytes;
}

void put32(std::vector<std::byte>& bytes, std::size_t at, std::uint32_t value) {
  for (int i = 0; i < 4; ++i) bytes.at(at + i) = static_cast<std::byte>((value >> (8 * i)) & 0xff);
}

void expect_refused(std::span<const std::byte> bytes, const std::string& words) {
  try {
    decode_header(bytes);
    FAIL() << "accepted a header that should be refused for: " << words;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(Wire, HeaderRoundTrips) {
  const Header h = sample();
  const auto bytes = encode_header(h);
  EXPECT_EQ(bytes.size(), header_fixed_bytes + 3 * route_entry_bytes);
  EXPECT_EQ(decode_header(bytes), h);
}

TEST(Wire, RandomHeadersRoundTrip) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 500; ++trial) {
    Header h;
    h.origin = static_cast<int>(rng() % 100000);
    h.tag = static_cast<int>(rng() % 0x7fffffff);
    h.priority = static_cast<int>(rng());
    h.seq = rng();
    h.total = rng() % (std::uint64_t{1} << 40);
    h.segment.offset = h.total ? rng() % h.total : 0;
    h.segment.length = h.total - h.segment.offset ? rng() % (h.total - h.segment.offset) : 0;
    h.has_route = rng() % 2;
    if (h.has_route) {
      // A chain: each entry's sub-tree holds all the later ones.
      const int n = static_cast<int>(rng() % 20);
      for (int i = 0; i < n; ++i)
        h.route.push_back({h.origin + 1 + i, static_cast<int>(rng()), rng(), static_cast<std::uint32_t>(n - i)});
    }
    EXPECT_EQ(decode_header(encode_header(h)), h);
  }
}

TEST(Wire, LayoutIsLittleEndianAndFixed) {
  Header h = sample();
  h.origin = 0x01020304;
  const auto b = encode_header(h);
  EXPECT_EQ(b[0], std::byte{header_version});
  EXPECT_EQ(b[1], std::byte{1});  // route flag
  EXPECT_EQ(b[4], std::byte{0x04});
  EXPECT_EQ(b[7], std::byte{0x01});
  EXPECT_EQ(b[8], std::byte{77});  // tag follows the origin
}

TEST(Wire, EveryTruncationIsRefused) {
  const auto bytes = encode_header(sample());
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_THROW(decode_header(std::span(bytes).first(n)), Error) << "prefix of " << n << " bytes";
  }
}

TEST(Wire, TrailingBytesAreRefused) {
  auto bytes = encode_header(sample());
  bytes.push_back(std::byte{0});
  expect_refused(bytes, "route of 3 entries");
}

TEST(Wire, DamagedFieldsAreNamed) {
  const auto good = encode_header(sample());
  expect_refused(with_byte(good, 0, 2), "version 2");
  expect_refused(with_byte(good, 1, 3), "flags");
  expect_refused(with_byte(good, 2, 1), "reserved");
  expect_refused(with_byte(good, 7, 0x80), "negative origin");
  expect_refused(with_byte(good, 11, 0x80), "negative tag");

  auto outside = good;
  put32(outside, 32, 900);  // offset 900 + length 300 > total 1000
  expect_refused(outside, "outside");

  auto huge = good;
  put32(huge, 48, 0xffffffffu);
  expect_refused(huge, "route of 4294967295 entries");

  auto unflagged = with_byte(good, 1, 0);
  expect_refused(unflagged, "without the route flag");
}

TEST(Wire, BrokenRoutesAreRefused) {
  Header h = sample();
  h.route[0].subtree = 0;
  expect_refused(encode_header(h), "empty sub-tree");

  h = sample();
  h.route[0].subtree = 4;  // more than the three entries there are
  expect_refused(encode_header(h), "only 3 fit");

  h = sample();
  h.route = {{5, 0, 0, 2}, {6, 0, 0, 2}, {3, 0, 0, 1}};  // 6's sub-tree pokes out of 5's
  expect_refused(encode_header(h), "only 1 fit");

  h = sample();
  h.route[2].rank = 5;
  expect_refused(encode_header(h), "rank 5 appears twice");

  h = sample();
  h.route[1].rank = h.origin;
  expect_refused(encode_header(h), "own route");

  h = sample();
  h.route[1].rank = -3;
  expect_refused(encode_header(h), "negative rank");
}

TEST(Wire, FramesRoundTripAndRefuseDamage) {
  const std::vector<std::byte> body{std::byte{1}, std::byte{2}, std::byte{3}};
  const auto frame = encode_frame(7, 123456789012ull, body);
  const Frame f = decode_frame(frame);
  EXPECT_EQ(f.handler, 7);
  EXPECT_EQ(f.payload, 123456789012ull);
  EXPECT_EQ(std::vector<std::byte>(f.body.begin(), f.body.end()), body);

  EXPECT_FALSE(f.inline_payload);
  EXPECT_TRUE(f.carried.empty());

  for (std::size_t n = 0; n < frame_bytes; ++n) EXPECT_THROW(decode_frame(std::span(frame).first(n)), Error);
  EXPECT_THROW(decode_frame(with_byte(frame, 0, 0)), Error);
  EXPECT_THROW(decode_frame(with_byte(frame, 5, 1)), Error);
}

TEST(Wire, InlinePayloadRidesAfterTheBody) {
  const std::vector<std::byte> body{std::byte{1}, std::byte{2}};
  const std::vector<std::byte> payload{std::byte{7}, std::byte{8}, std::byte{9}};
  const auto bytes = encode_frame(3, 0, body, payload);
  EXPECT_EQ(bytes.size(), frame_bytes + 5);
  const Frame f = decode_frame(bytes);
  EXPECT_TRUE(f.inline_payload);
  EXPECT_EQ(f.payload, 3u);
  EXPECT_EQ(std::vector<std::byte>(f.body.begin(), f.body.end()), body);
  EXPECT_EQ(std::vector<std::byte>(f.carried.begin(), f.carried.end()), payload);
  // An inline payload longer than what the frame holds is refused, not read past the end.
  auto lying = bytes;
  lying[8] = std::byte{6};
  EXPECT_THROW(decode_frame(lying), Error);
}

TEST(Wire, WritingIntoExactRoomOverwritesWhatWasThere) {
  // A reused buffer keeps old bytes: every one of them must be overwritten.
  const Header h = sample();
  ASSERT_EQ(header_bytes(h), 52u + 3 * 20);
  std::vector<std::byte> room(header_bytes(h), std::byte{0xAA});
  write_header(room, h);
  EXPECT_EQ(decode_header(room), h);

  const std::vector<std::byte> body{std::byte{1}, std::byte{2}};
  const std::vector<std::byte> payload{std::byte{7}, std::byte{8}, std::byte{9}};
  std::vector<std::byte> frame(frame_bytes + 5, std::byte{0xAA});
  write_frame(frame, 4, 0, body, payload);
  const Frame f = decode_frame(frame);
  EXPECT_EQ(f.handler, 4);
  EXPECT_TRUE(f.inline_payload);
  EXPECT_EQ(std::vector<std::byte>(f.body.begin(), f.body.end()), body);
  EXPECT_EQ(std::vector<std::byte>(f.carried.begin(), f.carried.end()), payload);

  // Room of the wrong size is a bug in the caller, refused before anything is read past it.
  std::vector<std::byte> short_room(header_bytes(h) - 1), long_room(header_bytes(h) + 1);
  EXPECT_THROW(write_header(short_room, h), std::logic_error);
  EXPECT_THROW(write_header(long_room, h), std::logic_error);
  std::vector<std::byte> short_frame(frame_bytes + 4);
  EXPECT_THROW(write_frame(short_frame, 4, 0, body, payload), std::logic_error);
}

}  // namespace
}  // namespace herald::dyn
