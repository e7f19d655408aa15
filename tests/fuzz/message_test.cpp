// The runtime's messages: every kind round-trips, the head's piecewise writer writes what encode() does,
// and arbitrary damage to any message (every truncation, every value of every byte) is either refused
// with herald::Error or decodes to a message that encodes back to the same bytes. The corpus in
// corpus/message seeds the libFuzzer target and is replayed here.
#include "message_check.hpp"
#include "message_samples.hpp"

#include "corpus_file.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace herald::runtime::detail::fuzz {
namespace {

std::string refusal(std::span<const std::byte> bytes) {
  try {
    msg::decode_any(bytes);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_argument);
    return e.what();
  }
  return "accepted";
}

TEST(RuntimeMessages, EveryKindRoundTrips) {
  std::vector<bool> seen(last_handler + 1, false);
  for (const msg::Message& m : message_samples()) {
    const auto bytes = msg::encode(m);
    EXPECT_EQ(msg::decode_any(bytes), m);
    EXPECT_TRUE(check_one(bytes));
    seen[std::to_integer<std::size_t>(bytes[1])] = true;
  }
  for (int kind = tasks_handler; kind <= last_handler; ++kind) EXPECT_TRUE(seen[kind]) << "no sample of kind " << kind;
}

TEST(RuntimeMessages, TheHeadsWriterWritesWhatEncodeWrites) {
  const auto tasks = std::get<msg::Tasks>(message_samples().front());
  msg::TasksWriter w;
  for (const TaskOrder& t : tasks.tasks) {
    w.task(t.task, t.kernel, t.priority, static_cast<std::uint32_t>(t.accesses.size()));
    for (const TaskAccess& a : t.accesses) w.access(a);
    w.arguments(t.arguments);
  }
  std::vector<const BroadcastOrder*> broadcasts;
  for (const BroadcastOrder& b : tasks.broadcasts) broadcasts.push_back(&b);
  EXPECT_EQ(w.finish(tasks.budgets, broadcasts), msg::encode(tasks));
}

TEST(RuntimeMessages, EveryTruncationIsRefused) {
  for (const msg::Message& m : message_samples()) {
    const auto bytes = msg::encode(m);
    for (std::size_t n = 0; n < bytes.size(); ++n)
      EXPECT_FALSE(check_one(std::span(bytes).first(n))) << "kind " << int(bytes[1]) << " cut to " << n << " bytes";
  }
}

TEST(RuntimeMessages, EveryValueOfEveryByteGetsAVerdict) {
  std::size_t refused = 0, accepted = 0;
  for (const msg::Message& m : message_samples()) {
    auto bytes = msg::encode(m);
    for (std::size_t at = 0; at < bytes.size(); ++at) {
      const std::byte kept = bytes[at];
      for (int v = 0; v < 256; ++v) {
        bytes[at] = static_cast<std::byte>(v);
        (check_one(bytes) ? accepted : refused)++;  // check_one aborts on a broken invariant
      }
      bytes[at] = kept;
    }
  }
  EXPECT_GT(refused, 0u);
  EXPECT_GT(accepted, 0u);
}

std::vector<std::byte> with(std::vector<std::byte> bytes, std::size_t at, std::uint8_t value) {
  bytes.at(at) = static_cast<std::byte>(value);
  return bytes;
}

TEST(RuntimeMessages, RefusalsNameTheProblem) {
  const auto fetch = msg::encode(msg::Fetch{{1, 2}, true});
  EXPECT_NE(refusal(with(fetch, 0, 1)).find("protocol version 1 (this herald speaks 2)"), std::string::npos);
  EXPECT_NE(refusal(with(fetch, 1, 99)).find("unknown message kind 99"), std::string::npos);
  EXPECT_NE(refusal(with(fetch, 10, 2)).find("a flag holds 2"), std::string::npos);
  auto longer = fetch;
  longer.push_back(std::byte{0});
  EXPECT_NE(refusal(longer).find("1 bytes after the last field"), std::string::npos);
  try {
    msg::decode<msg::Got>(fetch);
    ADD_FAILURE() << "a Fetch decoded as a Got";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("a message of kind 2 where kind 10 belongs"), std::string::npos) << e.what();
  }
  // A count far beyond the bytes that follow is refused before anything is allocated for it.
  auto release = msg::encode(msg::Release{{{1, 1}}});
  for (std::size_t i = 2; i < 6; ++i) release[i] = std::byte{0xff};
  EXPECT_NE(refusal(release).find("4294967295 keys of at least 8 bytes each, 8 bytes left"), std::string::npos)
      << refusal(release);
  // An access mode the runtime lowers before sending (reduce, scratch), one past commute, a broadcast
  // ordered with no carrier.
  msg::Tasks tasks;
  tasks.tasks.push_back({.task = 1, .kernel = 0, .priority = 0, .accesses = {{}}, .arguments = {}});
  auto bytes = msg::encode(tasks);
  const std::size_t mode_at = 2 + 4 + 8 + 4 + 4 + 4 + 4 + 4 + 4 + 8 + 4;
  EXPECT_NE(refusal(with(bytes, mode_at, 3)).find("access mode 3 (lowered before it is sent)"), std::string::npos);
  EXPECT_NE(refusal(with(bytes, mode_at, 4)).find("access mode 4 (lowered before it is sent)"), std::string::npos);
  EXPECT_NE(refusal(with(bytes, mode_at, 6)).find("access mode 6 is out of range"), std::string::npos);
  msg::Tasks broadcast;
  broadcast.broadcasts.push_back({.id = 1, .key = {}, .bytes = 1, .root = 0, .strategy = BroadcastStrategy::nobcast,
                                  .sync = false, .recipients = {}, .priorities = {}, .parents = {}});
  EXPECT_NE(refusal(msg::encode(broadcast)).find("a broadcast ordered with strategy nobcast"), std::string::npos);
  // A dynamic broadcast's tree whose parent is not another recipient (out of range, or itself).
  for (const std::vector<std::int32_t>& parents : {std::vector<std::int32_t>{-1, 2}, {-1, 1}, {-2, 0}}) {
    msg::Tasks tree;
    tree.broadcasts.push_back({.id = 1, .key = {}, .bytes = 1, .root = 0, .strategy = BroadcastStrategy::dynbcast,
                               .sync = false, .recipients = {1, 2}, .priorities = {0, 0}, .parents = parents});
    const std::string why = refusal(msg::encode(tree));
    EXPECT_NE(why.find("'s parent " + std::to_string(parents[0] == -2 ? -2 : parents[1])), std::string::npos) << why;
  }
  // A tree flag over no recipients: it would encode back without the flag.
  msg::Tasks none;
  none.broadcasts.push_back({.id = 1, .key = {}, .bytes = 1, .root = 0, .strategy = BroadcastStrategy::dynbcast,
                             .sync = false, .recipients = {}, .priorities = {}, .parents = {}});
  auto flagged = msg::encode(none);  // the broadcast ends the message: its tree flag, then a count of 0
  ASSERT_EQ(flagged[flagged.size() - 5], std::byte{0});
  EXPECT_NE(refusal(with(flagged, flagged.size() - 5, 1)).find("a broadcast tree over no recipients"), std::string::npos);
}

TEST(RuntimeMessages, FieldsAreLittleEndian) {
  const auto bytes = msg::encode(msg::Got{0x0102030405060708});
  ASSERT_EQ(bytes.size(), 10u);
  EXPECT_EQ(bytes[0], std::byte{protocol_version});
  EXPECT_EQ(bytes[1], std::byte{got_handler});
  for (std::size_t i = 0; i < 8; ++i) EXPECT_EQ(std::to_integer<int>(bytes[2 + i]), 8 - static_cast<int>(i));
}

using herald::fuzz::read_file;

// The fuzzer's seeds are the samples, written by this test when HERALD_WRITE_MESSAGE_CORPUS names a folder;
// otherwise the committed corpus must still hold exactly them.
TEST(RuntimeMessages, CorpusHoldsTheSamples) {
  const auto samples = message_samples();
  const std::filesystem::path dir = HERALD_MESSAGE_CORPUS;
  if (const char* out = std::getenv("HERALD_WRITE_MESSAGE_CORPUS")) {
    for (std::size_t i = 0; i < samples.size(); ++i) {
      const auto bytes = msg::encode(samples[i]);
      std::ofstream(std::filesystem::path(out) / ("ok-" + std::to_string(i)), std::ios::binary)
          .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    }
  }
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const auto path = dir / ("ok-" + std::to_string(i));
    ASSERT_TRUE(std::filesystem::exists(path)) << path;
    EXPECT_EQ(read_file(path), msg::encode(samples[i])) << path;
  }
}

}  // namespace
}  // namespace herald::runtime::detail::fuzz
