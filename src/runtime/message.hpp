// The runtime's messages between its processes, as active messages on its own communicator.
//
// Every process runs the same program on the same machine type, so fields travel in native byte order;
// a decoder still checks every length, so a malformed message is an error, never a read past its end.
#pragma once

#include "graph.hpp"

#include <herald/runtime/broadcast.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace herald::runtime::detail {

// Active-message handlers.
enum Handler : std::uint16_t {
  tasks_handler = 1,  // head -> worker: tasks to run, in schedule order
  fetch_handler,      // any -> holder: send me this version
  data_handler,       // holder -> worker: a version, as the payload
  readback_handler,   // holder -> head: a version for a read(), as the payload
  done_handler,       // worker -> head: tasks finished, with their run times
  failure_handler,    // worker -> head: a task failed, or the worker itself (no_task)
  release_handler,    // head -> holder: these versions are no longer needed
  heartbeat_handler,  // worker -> head: still alive
  stop_handler,       // head -> worker: leave the worker loop
  got_handler,        // recipient -> head: a broadcast's data is here (synchronised broadcasts)
  go_handler,         // head -> recipient: every recipient has it, tasks may read it now
  lost_handler,       // any -> all (replicated control): a process is lost, with the reason
};

// TaskAccess::source of a version that reaches the worker by a broadcast: nothing to fetch.
constexpr std::int32_t by_broadcast = -2;
// A failure_handler message's task when a worker failed outside any kernel (a handler, its loop).
constexpr std::uint64_t no_task = UINT64_MAX;

class Encoder {
 public:
  template <class T>
  Encoder& put(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto* p = reinterpret_cast<const std::byte*>(&value);
    bytes_.insert(bytes_.end(), p, p + sizeof(T));
    return *this;
  }
  Encoder& put_bytes(std::span<const std::byte> bytes) {
    put(static_cast<std::uint64_t>(bytes.size()));
    bytes_.insert(bytes_.end(), bytes.begin(), bytes.end());
    return *this;
  }
  Encoder& put_string(const std::string& s) { return put_bytes(std::as_bytes(std::span(s.data(), s.size()))); }
  // Overwrites what an earlier put() wrote at `offset` (a count known only once what follows is written).
  template <class T>
  void put_at(std::size_t offset, const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    std::memcpy(bytes_.data() + offset, &value, sizeof(T));
  }
  std::vector<std::byte>& bytes() noexcept { return bytes_; }

 private:
  std::vector<std::byte> bytes_;
};

class Decoder {
 public:
  explicit Decoder(std::span<const std::byte> bytes) : bytes_(bytes) {}
  template <class T>
  T get() {
    static_assert(std::is_trivially_copyable_v<T>);
    T value;
    std::memcpy(&value, take(sizeof(T)).data(), sizeof(T));
    return value;
  }
  std::span<const std::byte> get_bytes() { return take(get<std::uint64_t>()); }
  std::string get_string() {
    const auto b = get_bytes();
    return {reinterpret_cast<const char*>(b.data()), b.size()};
  }
  bool done() const noexcept { return at_ == bytes_.size(); }

 private:
  std::span<const std::byte> take(std::size_t n);
  std::span<const std::byte> bytes_;
  std::size_t at_ = 0;
};

// One access of a task sent to a worker.
struct TaskAccess {
  Key read{};                 // the version read (reads(mode))
  std::uint32_t written = 0;  // the version written (writes(mode))
  std::uint64_t bytes = 0;
  std::int32_t source = -1;   // the rank to fetch `read` from; the worker's own rank: produced there
  Mode mode = Mode::in;
  bool in_place = false;      // inout: no one else reads `read`, so its replica may become the output
};

struct TaskOrder {
  std::uint64_t task = 0;
  std::uint32_t kernel = 0;  // the worker's own index of the kernel
  std::int32_t priority = 0;
  std::vector<TaskAccess> accesses;
  std::vector<std::byte> arguments;
};

void encode(Encoder& e, const TaskOrder& t);
TaskOrder decode_task(Decoder& d);

// A task order piece by piece, for the head, which writes each access as it resolves it: the header,
// then `accesses` accesses, then the arguments with put_bytes. The same bytes as encode(TaskOrder).
struct TaskHeader {
  std::uint64_t task = 0;
  std::uint32_t kernel = 0;
  std::int32_t priority = 0;
  std::uint32_t accesses = 0;
};
void encode_task_header(Encoder& e, const TaskHeader& h);
void encode(Encoder& e, const TaskAccess& a);

// A broadcast, as the head tells its root and each of its recipients.
struct BroadcastOrder {
  std::uint64_t id = 0;  // from 1, in the order the head found them
  Key key;
  std::uint64_t bytes = 0;
  std::int32_t root = 0;
  BroadcastStrategy strategy = BroadcastStrategy::p2p;  // never nobcast or automatic
  bool sync = false;      // recipients hold the data from their tasks until the head says go
  std::vector<std::int32_t> recipients;
  std::vector<std::int32_t> priorities;
};

void encode(Encoder& e, const BroadcastOrder& b);
BroadcastOrder decode_broadcast(Decoder& d);

struct Completion {
  std::uint64_t task = 0;
  double seconds = 0;
};

}  // namespace herald::runtime::detail
