#include "message.hpp"

#include <herald/error.hpp>

namespace herald::runtime::detail {

std::span<const std::byte> Decoder::take(std::size_t n) {
  if (n > bytes_.size() - at_)
    throw Error(Errc::invalid_argument, "malformed runtime message: " + std::to_string(n) + " bytes wanted, " +
                                            std::to_string(bytes_.size() - at_) + " left");
  const auto out = bytes_.subspan(at_, n);
  at_ += n;
  return out;
}

void encode_task_header(Encoder& e, const TaskHeader& h) { e.put(h.task).put(h.kernel).put(h.priority).put(h.accesses); }

void encode(Encoder& e, const TaskAccess& a) {
  e.put(a.read.handle).put(a.read.version).put(a.written).put(a.bytes).put(a.source).put(a.mode).put(a.in_place);
}

void encode(Encoder& e, const TaskOrder& t) {
  encode_task_header(e, {t.task, t.kernel, t.priority, static_cast<std::uint32_t>(t.accesses.size())});
  for (const TaskAccess& a : t.accesses) encode(e, a);
  e.put_bytes(t.arguments);
}

TaskOrder decode_task(Decoder& d) {
  TaskOrder t;
  t.task = d.get<std::uint64_t>();
  t.kernel = d.get<std::uint32_t>();
  t.priority = d.get<std::int32_t>();
  const auto n = d.get<std::uint32_t>();
  t.accesses.resize(n);
  for (TaskAccess& a : t.accesses) {
    a.read.handle = d.get<std::uint32_t>();
    a.read.version = d.get<std::uint32_t>();
    a.written = d.get<std::uint32_t>();
    a.bytes = d.get<std::uint64_t>();
    a.source = d.get<std::int32_t>();
    a.mode = d.get<Mode>();
    a.in_place = d.get<bool>();
  }
  const auto args = d.get_bytes();
  t.arguments.assign(args.begin(), args.end());
  return t;
}

void encode(Encoder& e, const BroadcastOrder& b) {
  e.put(b.id).put(b.key.handle).put(b.key.version).put(b.bytes).put(b.root).put(b.strategy).put(b.sync);
  e.put(static_cast<std::uint32_t>(b.recipients.size()));
  for (std::size_t i = 0; i < b.recipients.size(); ++i) e.put(b.recipients[i]).put(b.priorities[i]);
}

BroadcastOrder decode_broadcast(Decoder& d) {
  BroadcastOrder b;
  b.id = d.get<std::uint64_t>();
  b.key.handle = d.get<std::uint32_t>();
  b.key.version = d.get<std::uint32_t>();
  b.bytes = d.get<std::uint64_t>();
  b.root = d.get<std::int32_t>();
  b.strategy = d.get<BroadcastStrategy>();
  b.sync = d.get<bool>();
  const auto n = d.get<std::uint32_t>();
  for (std::uint32_t i = 0; i < n; ++i) {
    b.recipients.push_back(d.get<std::int32_t>());
    b.priorities.push_back(d.get<std::int32_t>());
  }
  return b;
}

}  // namespace herald::runtime::detail
