// The runtime's protocol: every message its processes exchange, each a type with its encoding, over
// herald's one codec (<herald/codec.hpp>). They travel as active messages on dyn's channel
// (<herald/dyn/channel.hpp>), the message's kind naming its handler.
//
// A body starts with the protocol version and the message's kind, then the kind's fields. A decoder
// refuses, with Error(invalid_argument) naming the problem, another version, another kind than the
// handler's, a field out of its range (a mode, a strategy, a flag that is not 0 or 1), a count larger than
// the bytes that follow and bytes after the last field; whatever it accepts encodes back to the same
// bytes (tests/fuzz checks both on arbitrary input).
#pragma once

#include "../graph.hpp"

#include <herald/codec.hpp>
#include <herald/runtime/broadcast.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace herald::runtime::detail {

// 2: commute accesses and the turns of their runs (Turn, Grant, Back).
inline constexpr std::uint8_t protocol_version = 2;

// A message's kind, which is also the channel handler it is posted to.
enum Handler : std::uint16_t {
  tasks_handler = 1,  // Tasks
  fetch_handler,      // Fetch
  data_handler,       // Data, with the version as the payload
  readback_handler,   // Readback, with the version as the payload
  done_handler,       // Done
  failure_handler,    // Failure
  release_handler,    // Release
  heartbeat_handler,  // Heartbeat
  stop_handler,       // Stop
  got_handler,        // Got
  go_handler,         // Go
  lost_handler,       // Lost
  kernel_names_kind,  // KernelNames: not an active message, but gathered by MPI_Allgatherv when run() starts
  turn_handler,       // Turn
  grant_handler,      // Grant, with the run's value as the payload
  back_handler,       // Back, with the run's value as the payload
  last_handler = back_handler,
};

// TaskAccess::source of a version that reaches the worker by a broadcast: nothing to fetch.
constexpr std::int32_t by_broadcast = -2;
// A Failure's task when a worker failed outside any kernel (a handler, its loop).
constexpr std::uint64_t no_task = UINT64_MAX;

// One access of a task sent to a worker.
struct TaskAccess {
  Key read{};                 // the version read (reads(mode))
  std::uint32_t written = 0;  // the version written (writes(mode))
  std::uint64_t bytes = 0;
  std::int32_t source = -1;   // the rank to fetch `read` from; the worker's own rank: produced there;
                              // by_broadcast; -1: nothing read
  // A commute access (lowering.hpp) has no version of its own: `read` names its run of updates, `source` is
  // the rank granting the run's turns, and `written`, when not 0, makes it the use closing the run, which
  // takes the value once that many updates are done.
  Mode mode = Mode::in;
  bool in_place = false;      // inout: no one else reads `read`, so its replica may become the output
  friend bool operator==(const TaskAccess&, const TaskAccess&) = default;
};

struct TaskOrder {
  std::uint64_t task = 0;
  std::uint32_t kernel = 0;  // the worker's own index of the kernel
  std::int32_t priority = 0;
  std::vector<TaskAccess> accesses;
  std::vector<std::byte> arguments;
  friend bool operator==(const TaskOrder&, const TaskOrder&) = default;
};

// A broadcast, as the head (or, under replicated control, every process's own plan) tells its root and
// each of its recipients.
struct BroadcastOrder {
  std::uint64_t id = 0;  // from 1, in the order the plan found them
  Key key;
  std::uint64_t bytes = 0;
  std::int32_t root = 0;
  BroadcastStrategy strategy = BroadcastStrategy::p2p;  // never nobcast or automatic
  bool sync = false;      // recipients hold the data from their tasks until the head says go
  std::vector<std::int32_t> recipients;
  std::vector<std::int32_t> priorities;  // one per recipient
  // dynbcast: one per recipient, the index of the recipient it gets the data from, -1 for the root (the
  // forwarding spread over the ranks, runtime.md); empty: dyn's own tree.
  std::vector<std::int32_t> parents;
  friend bool operator==(const BroadcastOrder&, const BroadcastOrder&) = default;
};

// How many of this batch's reads and transfers a superseded version still serves on the receiving rank.
struct Budget {
  Key key;
  std::uint32_t uses = 0;
  friend bool operator==(const Budget&, const Budget&) = default;
};

struct Completion {
  std::uint64_t task = 0;
  double seconds = 0;
  friend bool operator==(const Completion&, const Completion&) = default;
};

namespace msg {

// head -> worker: a batch's tasks for that worker in schedule order, its budgets, and the broadcasts it
// roots or receives in the order of their ids.
struct Tasks {
  static constexpr Handler kind = tasks_handler;
  std::vector<TaskOrder> tasks;
  std::vector<Budget> budgets;
  std::vector<BroadcastOrder> broadcasts;
  friend bool operator==(const Tasks&, const Tasks&) = default;
};

// any -> holder: send me this version (to the head's read(), when `readback`).
struct Fetch {
  static constexpr Handler kind = fetch_handler;
  Key key;
  bool readback = false;
  friend bool operator==(const Fetch&, const Fetch&) = default;
};

// holder -> reader: a version, as the payload; `broadcast` (0: none) is the broadcast it is a copy of.
struct Data {
  static constexpr Handler kind = data_handler;
  Key key;
  std::uint64_t broadcast = 0;
  bool sync = false;
  friend bool operator==(const Data&, const Data&) = default;
};

// holder -> head: a version for the head's read(), as the payload.
struct Readback {
  static constexpr Handler kind = readback_handler;
  Key key;
  friend bool operator==(const Readback&, const Readback&) = default;
};

// worker -> head: tasks finished, with their run times, and the worker's running totals.
struct Done {
  static constexpr Handler kind = done_handler;
  std::vector<Completion> completions;
  std::uint64_t fetches = 0;
  std::uint64_t bytes = 0;
  std::uint64_t peak = 0;
  friend bool operator==(const Done&, const Done&) = default;
};

// worker -> head (replicated control: -> every process): a task failed, or the worker itself (no_task).
struct Failure {
  static constexpr Handler kind = failure_handler;
  std::uint64_t task = no_task;
  std::string what;
  friend bool operator==(const Failure&, const Failure&) = default;
};

// head -> holder: these versions are no longer needed.
struct Release {
  static constexpr Handler kind = release_handler;
  std::vector<Key> keys;
  friend bool operator==(const Release&, const Release&) = default;
};

// worker -> head (replicated control: -> the next process on the ring): still alive.
struct Heartbeat {
  static constexpr Handler kind = heartbeat_handler;
  friend bool operator==(const Heartbeat&, const Heartbeat&) = default;
};

// head -> worker: leave the worker loop.
struct Stop {
  static constexpr Handler kind = stop_handler;
  friend bool operator==(const Stop&, const Stop&) = default;
};

// recipient -> head: a synchronised broadcast's data is here.
struct Got {
  static constexpr Handler kind = got_handler;
  std::uint64_t broadcast = 0;
  friend bool operator==(const Got&, const Got&) = default;
};

// head -> recipient: every recipient has these broadcasts' data; tasks may read it now.
struct Go {
  static constexpr Handler kind = go_handler;
  std::vector<std::uint64_t> broadcasts;
  friend bool operator==(const Go&, const Go&) = default;
};

// any -> all (replicated control): a process is lost, and why.
struct Lost {
  static constexpr Handler kind = lost_handler;
  std::string why;
  friend bool operator==(const Lost&, const Lost&) = default;
};

// updater -> the run's granting rank: task `task` here has every other input and wants the run's value
// (docs/runtime.md, "Commutative updates").
struct Turn {
  static constexpr Handler kind = turn_handler;
  Key run;
  std::uint64_t task = 0;
  std::uint32_t closes = 0;  // TaskAccess::written: 0 for an update
  friend bool operator==(const Turn&, const Turn&) = default;
};

// granting rank -> updater: the run's value, as the payload, is task `task`'s until it gives it Back.
struct Grant {
  static constexpr Handler kind = grant_handler;
  Key run;
  std::uint64_t task = 0;
  friend bool operator==(const Grant&, const Grant&) = default;
};

// updater -> granting rank: the run's value after its update, as the payload; the turn is over.
struct Back {
  static constexpr Handler kind = back_handler;
  Key run;
  friend bool operator==(const Back&, const Back&) = default;
};

// every rank -> every rank, when run() starts: the names of the kernels it registered, in its own order (a
// task order names a kernel by the receiving worker's index).
struct KernelNames {
  static constexpr Handler kind = kernel_names_kind;
  std::vector<std::string> names;
  friend bool operator==(const KernelNames&, const KernelNames&) = default;
};

using Message =
    std::variant<Tasks, Fetch, Data, Readback, Done, Failure, Release, Heartbeat, Stop, Got, Go, Lost, KernelNames, Turn,
                 Grant, Back>;

// The fields of each kind, after the envelope.
void write(codec::Buffer& b, const Tasks& m);
void write(codec::Buffer& b, const Fetch& m);
void write(codec::Buffer& b, const Data& m);
void write(codec::Buffer& b, const Readback& m);
void write(codec::Buffer& b, const Done& m);
void write(codec::Buffer& b, const Failure& m);
void write(codec::Buffer& b, const Release& m);
void write(codec::Buffer& b, const Heartbeat& m);
void write(codec::Buffer& b, const Stop& m);
void write(codec::Buffer& b, const Got& m);
void write(codec::Buffer& b, const Go& m);
void write(codec::Buffer& b, const Lost& m);
void write(codec::Buffer& b, const KernelNames& m);
void write(codec::Buffer& b, const Turn& m);
void write(codec::Buffer& b, const Grant& m);
void write(codec::Buffer& b, const Back& m);
void read(codec::Reader& r, Tasks& m);
void read(codec::Reader& r, Fetch& m);
void read(codec::Reader& r, Data& m);
void read(codec::Reader& r, Readback& m);
void read(codec::Reader& r, Done& m);
void read(codec::Reader& r, Failure& m);
void read(codec::Reader& r, Release& m);
void read(codec::Reader& r, Heartbeat& m);
void read(codec::Reader& r, Stop& m);
void read(codec::Reader& r, Got& m);
void read(codec::Reader& r, Go& m);
void read(codec::Reader& r, Lost& m);
void read(codec::Reader& r, KernelNames& m);
void read(codec::Reader& r, Turn& m);
void read(codec::Reader& r, Grant& m);
void read(codec::Reader& r, Back& m);

// The version and kind every body starts with.
void write_envelope(codec::Buffer& b, Handler kind);
// Checks the version, and that the kind is `kind`.
void read_envelope(codec::Reader& r, Handler kind);

// Room most messages fit in (a Data or Fetch message is a few tens of bytes), so encoding one allocates once.
inline constexpr std::size_t typical_message_bytes = 64;

template <class M>
std::vector<std::byte> encode(const M& m) {
  codec::Buffer b(typical_message_bytes);
  write_envelope(b, M::kind);
  write(b, m);
  return std::move(b.bytes());
}

// Encodes into `out` (emptied), keeping its room: a reused buffer makes encoding allocate nothing.
template <class M>
void encode_into(std::vector<std::byte>& out, const M& m) {
  codec::Buffer b(std::move(out));
  write_envelope(b, M::kind);
  write(b, m);
  out = std::move(b.bytes());
}

// Decodes into `m`, every field overwritten: its vectors keep their room (no allocation for a message
// no larger than the last one decoded into it).
template <class M>
void decode_into(std::span<const std::byte> body, M& m) {
  codec::Reader r(body, "runtime message");
  read_envelope(r, M::kind);
  read(r, m);
  r.expect_end();
}

template <class M>
M decode(std::span<const std::byte> body) {
  M m;
  decode_into(body, m);
  return m;
}

// Any kind, by the kind its envelope names (for tools and the fuzzer; handlers know their kind).
Message decode_any(std::span<const std::byte> body);
std::vector<std::byte> encode(const Message& m);

// The parts of a Tasks message one at a time, for the head, which resolves each access as it writes
// it: begin(), then per task its header and accesses, then finish(). The same bytes as encode(Tasks).
class TasksWriter {
 public:
  TasksWriter();
  void task(std::uint64_t task, std::uint32_t kernel, std::int32_t priority, std::uint32_t accesses);
  void access(const TaskAccess& a);
  void arguments(std::span<const std::byte> bytes);
  // Writes the count of tasks, the budgets and the broadcasts; the message is complete.
  std::vector<std::byte>& finish(std::span<const Budget> budgets, std::span<const BroadcastOrder* const> broadcasts);
  std::uint32_t tasks() const noexcept { return tasks_; }

 private:
  codec::Buffer b_;
  std::size_t count_at_ = 0;
  std::uint32_t tasks_ = 0;
};

}  // namespace msg
}  // namespace herald::runtime::detail
