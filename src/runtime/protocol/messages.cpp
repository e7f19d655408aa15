#include "messages.hpp"

#include <herald/error.hpp>

namespace herald::runtime::detail {
namespace {

// The fewest bytes an entry of each list takes on the wire, to check counts before allocating.
constexpr std::size_t task_min_bytes = 8 + 4 + 4 + 4 + 8;
constexpr std::size_t access_bytes = 4 + 4 + 4 + 8 + 4 + 1 + 1;
constexpr std::size_t budget_bytes = 8 + 4;
constexpr std::size_t broadcast_min_bytes = 8 + 8 + 8 + 4 + 4 + 1 + 4;
constexpr std::size_t recipient_bytes = 4 + 4;
constexpr std::size_t completion_bytes = 8 + 8;
constexpr std::size_t key_bytes = 8;

void put_key(codec::Buffer& b, const Key& k) { b.put(k.handle).put(k.version); }

Key get_key(codec::Reader& r) {
  Key k;
  k.handle = r.get<std::uint32_t>();
  k.version = r.get<std::uint32_t>();
  return k;
}

void put_access(codec::Buffer& b, const TaskAccess& a) {
  put_key(b, a.read);
  b.put(a.written).put(a.bytes).put(a.source).put(a.mode).put(a.in_place);
}

TaskAccess get_access(codec::Reader& r) {
  TaskAccess a;
  a.read = get_key(r);
  a.written = r.get<std::uint32_t>();
  a.bytes = r.get<std::uint64_t>();
  a.source = r.get<std::int32_t>();
  if (a.source < by_broadcast) r.malformed("access source " + std::to_string(a.source));
  a.mode = r.get_enum(Mode::commute, "access mode");
  if (a.mode == Mode::reduce || a.mode == Mode::scratch) r.malformed("access mode " + std::to_string(static_cast<int>(a.mode)) + " (lowered before it is sent)");
  a.in_place = r.get<bool>();
  return a;
}

void put_broadcast(codec::Buffer& b, const BroadcastOrder& o) {
  if (o.priorities.size() != o.recipients.size())
    throw Error(Errc::invalid_argument, "broadcast " + std::to_string(o.id) + " has " +
                                            std::to_string(o.recipients.size()) + " recipients but " +
                                            std::to_string(o.priorities.size()) + " priorities");
  if (!o.parents.empty() && o.parents.size() != o.recipients.size())
    throw Error(Errc::invalid_argument, "broadcast " + std::to_string(o.id) + " has " +
                                            std::to_string(o.recipients.size()) + " recipients but " +
                                            std::to_string(o.parents.size()) + " parents");
  b.put(o.id);
  put_key(b, o.key);
  b.put(o.bytes).put(o.root).put(o.strategy).put(o.sync).put(!o.parents.empty());
  b.put(static_cast<std::uint32_t>(o.recipients.size()));
  for (std::size_t i = 0; i < o.recipients.size(); ++i) {
    b.put(o.recipients[i]).put(o.priorities[i]);
    if (!o.parents.empty()) b.put(o.parents[i]);
  }
}

BroadcastOrder get_broadcast(codec::Reader& r) {
  BroadcastOrder o;
  o.id = r.get<std::uint64_t>();
  o.key = get_key(r);
  o.bytes = r.get<std::uint64_t>();
  o.root = r.get<std::int32_t>();
  if (o.root < 0) r.malformed("broadcast root " + std::to_string(o.root));
  o.strategy = r.get_enum(BroadcastStrategy::automatic, "broadcast strategy");
  if (o.strategy == BroadcastStrategy::nobcast || o.strategy == BroadcastStrategy::automatic)
    r.malformed("a broadcast ordered with strategy " + to_string(o.strategy));
  o.sync = r.get<bool>();
  const bool tree = r.get<bool>();
  const auto n = r.get_count(recipient_bytes, "recipients");
  if (tree && n == 0) r.malformed("a broadcast tree over no recipients");  // encoded without one
  o.recipients.resize(n);
  o.priorities.resize(n);
  if (tree) o.parents.resize(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    o.recipients[i] = r.get<std::int32_t>();
    o.priorities[i] = r.get<std::int32_t>();
    if (o.recipients[i] < 0) r.malformed("broadcast recipient " + std::to_string(o.recipients[i]));
    if (!tree) continue;
    o.parents[i] = r.get<std::int32_t>();
    if (o.parents[i] < -1 || o.parents[i] >= static_cast<std::int32_t>(n) || o.parents[i] == static_cast<std::int32_t>(i))
      r.malformed("broadcast recipient " + std::to_string(i) + "'s parent " + std::to_string(o.parents[i]));
  }
  return o;
}

}  // namespace

namespace msg {

void write_envelope(codec::Buffer& b, Handler kind) {
  b.put(protocol_version).put(static_cast<std::uint8_t>(kind));
}

void read_envelope(codec::Reader& r, Handler kind) {
  const auto version = r.get<std::uint8_t>();
  if (version != protocol_version)
    r.malformed("protocol version " + std::to_string(version) + " (this herald speaks " +
                std::to_string(protocol_version) + ")");
  const auto got = r.get<std::uint8_t>();
  if (got != kind) r.malformed("a message of kind " + std::to_string(got) + " where kind " + std::to_string(kind) + " belongs");
}

TasksWriter::TasksWriter() {
  write_envelope(b_, Tasks::kind);
  count_at_ = b_.size();
  b_.put(std::uint32_t{0});
}

void TasksWriter::task(std::uint64_t task, std::uint32_t kernel, std::int32_t priority, std::uint32_t accesses) {
  b_.put(task).put(kernel).put(priority).put(accesses);
  ++tasks_;
}

void TasksWriter::access(const TaskAccess& a) { put_access(b_, a); }

void TasksWriter::arguments(std::span<const std::byte> bytes) { b_.put_bytes(bytes); }

std::vector<std::byte>& TasksWriter::finish(std::span<const Budget> budgets,
                                            std::span<const BroadcastOrder* const> broadcasts) {
  b_.put_at(count_at_, tasks_);
  b_.put(static_cast<std::uint32_t>(budgets.size()));
  for (const Budget& budget : budgets) {
    put_key(b_, budget.key);
    b_.put(budget.uses);
  }
  b_.put(static_cast<std::uint32_t>(broadcasts.size()));
  for (const BroadcastOrder* o : broadcasts) put_broadcast(b_, *o);
  return b_.bytes();
}

void write(codec::Buffer& b, const Tasks& m) {
  b.put(static_cast<std::uint32_t>(m.tasks.size()));
  for (const TaskOrder& t : m.tasks) {
    b.put(t.task).put(t.kernel).put(t.priority).put(static_cast<std::uint32_t>(t.accesses.size()));
    for (const TaskAccess& a : t.accesses) put_access(b, a);
    b.put_bytes(t.arguments);
  }
  b.put(static_cast<std::uint32_t>(m.budgets.size()));
  for (const Budget& budget : m.budgets) {
    put_key(b, budget.key);
    b.put(budget.uses);
  }
  b.put(static_cast<std::uint32_t>(m.broadcasts.size()));
  for (const BroadcastOrder& o : m.broadcasts) put_broadcast(b, o);
}

void read(codec::Reader& r, Tasks& m) {
  m.tasks.resize(r.get_count(task_min_bytes, "tasks"));
  for (TaskOrder& t : m.tasks) {
    t.task = r.get<std::uint64_t>();
    t.kernel = r.get<std::uint32_t>();
    t.priority = r.get<std::int32_t>();
    t.accesses.resize(r.get_count(access_bytes, "accesses"));
    for (TaskAccess& a : t.accesses) a = get_access(r);
    const auto args = r.get_bytes();
    t.arguments.assign(args.begin(), args.end());
  }
  m.budgets.resize(r.get_count(budget_bytes, "budgets"));
  for (Budget& budget : m.budgets) {
    budget.key = get_key(r);
    budget.uses = r.get<std::uint32_t>();
  }
  m.broadcasts.resize(r.get_count(broadcast_min_bytes, "broadcasts"));
  for (BroadcastOrder& o : m.broadcasts) o = get_broadcast(r);
}

void write(codec::Buffer& b, const Fetch& m) {
  put_key(b, m.key);
  b.put(m.readback);
}

void read(codec::Reader& r, Fetch& m) {
  m.key = get_key(r);
  m.readback = r.get<bool>();
}

void write(codec::Buffer& b, const Data& m) {
  put_key(b, m.key);
  b.put(m.broadcast).put(m.sync);
}

void read(codec::Reader& r, Data& m) {
  m.key = get_key(r);
  m.broadcast = r.get<std::uint64_t>();
  m.sync = r.get<bool>();
}

void write(codec::Buffer& b, const Readback& m) { put_key(b, m.key); }
void read(codec::Reader& r, Readback& m) { m.key = get_key(r); }

void write(codec::Buffer& b, const Done& m) {
  b.put(static_cast<std::uint32_t>(m.completions.size()));
  for (const Completion& c : m.completions) b.put(c.task).put(c.seconds);
  b.put(m.fetches).put(m.bytes).put(m.peak);
}

void read(codec::Reader& r, Done& m) {
  m.completions.resize(r.get_count(completion_bytes, "completions"));
  for (Completion& c : m.completions) {
    c.task = r.get<std::uint64_t>();
    c.seconds = r.get<double>();
  }
  m.fetches = r.get<std::uint64_t>();
  m.bytes = r.get<std::uint64_t>();
  m.peak = r.get<std::uint64_t>();
}

void write(codec::Buffer& b, const Failure& m) {
  b.put(m.task);
  b.put_string(m.what);
}

void read(codec::Reader& r, Failure& m) {
  m.task = r.get<std::uint64_t>();
  m.what = r.get_string();
}

void write(codec::Buffer& b, const Release& m) {
  b.put(static_cast<std::uint32_t>(m.keys.size()));
  for (const Key& k : m.keys) put_key(b, k);
}

void read(codec::Reader& r, Release& m) {
  m.keys.resize(r.get_count(key_bytes, "keys"));
  for (Key& k : m.keys) k = get_key(r);
}

void write(codec::Buffer&, const Heartbeat&) {}
void read(codec::Reader&, Heartbeat&) {}
void write(codec::Buffer&, const Stop&) {}
void read(codec::Reader&, Stop&) {}

void write(codec::Buffer& b, const Got& m) { b.put(m.broadcast); }
void read(codec::Reader& r, Got& m) { m.broadcast = r.get<std::uint64_t>(); }

void write(codec::Buffer& b, const Go& m) {
  b.put(static_cast<std::uint32_t>(m.broadcasts.size()));
  for (std::uint64_t id : m.broadcasts) b.put(id);
}

void read(codec::Reader& r, Go& m) {
  m.broadcasts.resize(r.get_count(8, "broadcasts"));
  for (std::uint64_t& id : m.broadcasts) id = r.get<std::uint64_t>();
}

void write(codec::Buffer& b, const Lost& m) { b.put_string(m.why); }
void read(codec::Reader& r, Lost& m) { m.why = r.get_string(); }

void write(codec::Buffer& b, const Turn& m) {
  put_key(b, m.run);
  b.put(m.task).put(m.closes);
}

void read(codec::Reader& r, Turn& m) {
  m.run = get_key(r);
  m.task = r.get<std::uint64_t>();
  m.closes = r.get<std::uint32_t>();
}

void write(codec::Buffer& b, const Grant& m) {
  put_key(b, m.run);
  b.put(m.task);
}

void read(codec::Reader& r, Grant& m) {
  m.run = get_key(r);
  m.task = r.get<std::uint64_t>();
}

void write(codec::Buffer& b, const Back& m) { put_key(b, m.run); }
void read(codec::Reader& r, Back& m) { m.run = get_key(r); }

void write(codec::Buffer& b, const KernelNames& m) {
  b.put(static_cast<std::uint32_t>(m.names.size()));
  for (const std::string& name : m.names) b.put_string(name);
}

void read(codec::Reader& r, KernelNames& m) {
  m.names.resize(r.get_count(8, "kernel names"));
  for (std::string& name : m.names) name = r.get_string();
}

namespace {

template <std::size_t I = 0>
Message decode_kind(std::uint8_t kind, std::span<const std::byte> body) {
  if constexpr (I == std::variant_size_v<Message>) {
    codec::Reader(body, "runtime message").malformed("unknown message kind " + std::to_string(kind));
  } else {
    using M = std::variant_alternative_t<I, Message>;
    if (kind == M::kind) return decode<M>(body);
    return decode_kind<I + 1>(kind, body);
  }
}

}  // namespace

Message decode_any(std::span<const std::byte> body) {
  if (body.size() < 2) codec::Reader(body, "runtime message").malformed("no envelope");
  return decode_kind(std::to_integer<std::uint8_t>(body[1]), body);
}

std::vector<std::byte> encode(const Message& m) {
  return std::visit([](const auto& message) { return encode(message); }, m);
}

}  // namespace msg
}  // namespace herald::runtime::detail
