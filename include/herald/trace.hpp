// Traces of herald's work: what the task runtime, the broadcasts of coll and the drop-in, and dyn's
// messages did and when, written as a Chrome trace event file (trace.json, for Perfetto and
// chrome://tracing) and an OTF2 archive (trace.otf2, for otf2-print and Vampir-class tools).
//
//   HERALD_TRACE=run1 mpiexec -n 4 ./program     # every layer records; the files are written at MPI_Finalize
//
// or from a program, collective over `comm`:
//
//   herald::trace::start(MPI_COMM_WORLD, "run1");
//   ...
//   herald::trace::finish();                        // writes run1/trace.json and run1/trace.otf2
//
// Recording is per process, into a buffer per thread; a full buffer is appended to a spill file in the
// trace's directory (run1/raw/rank-<r>.events), so memory stays bounded and a crash loses at most what the
// buffers held. finish() gathers every process's events on the communicator's rank 0, puts them on rank
// 0's clock (offsets measured by ping-pong when recording starts and again at the end; under SimGrid's
// SMPI every rank reads the one simulated clock), and writes the files. With no trace recording, a
// layer's cost is one test of a pointer (recorder() returns nullptr).
#pragma once

#include <herald/error.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace herald::trace {

// What an event records. Spans run from `begin` to `end` (seconds on the recording process's clock);
// instants have begin == end. The fields a..e mean, per kind:
enum class Kind : std::uint16_t {
  task,       // a runtime task ran: a task, b priority; mark: when its inputs were all here
  submit,     // the program submitted a task: a task
  transfer,   // a version moved here: a from, b to, c bytes, d needing task, e (data << 32 | version)
  broadcast,  // a runtime broadcast: a id, b root, c bytes, d 1 if root else 0, e (data << 32 | version)
  recipient,  // one recipient of a runtime broadcast (recorded by its root): a id, b recipient
  schedule,   // the head scheduled: a tasks
  bcast,      // a coll broadcast: a id, b comm, c root, d bytes
  send,       // a message of a coll broadcast: a id, b comm, c peer's world rank, d bytes, e (step << 40 | offset)
  recv,       //   the same, received
  dyn_send,   // a dyn broadcast's piece left: a message id, b peer, c bytes, d offset
  dyn_land,   // a dyn piece landed here: a message id, b peer (sender), c bytes, d offset
  producer,   // a runtime task reads what another wrote: a task, b producer
  version,    // a runtime task writes a version: a task, e (data << 32 | version)
  data_name,  // the program (or the runtime, for its own) registered a datum: a data handle, name its name
};
inline constexpr int kind_count = 14;
std::string_view to_string(Kind kind) noexcept;

struct Event {
  double begin = 0;
  double end = 0;
  double mark = 0;  // a third instant, where a kind has one
  std::int64_t a = 0, b = 0, c = 0, d = 0, e = 0;
  std::uint32_t name = 0;    // an interned string (Recorder::string): a kernel, algorithm, strategy
  std::uint32_t detail = 0;  // another: why an algorithm was chosen
  Kind kind = Kind::task;
  std::uint16_t thread = 0;  // the recording thread's number in its process (Recorder::thread)
};

// One process's events as read back: its strings and threads by number, its events in no particular order.
struct Log {
  int rank = 0;
  std::vector<std::string> strings;  // [0] is ""
  std::vector<std::string> threads;  // thread number -> name
  std::vector<Event> events;
};

// Records one process's events. Thread-safe: each thread writes its own buffer; a full buffer is spilled
// under a lock.
class Recorder {
 public:
  using Clock = std::function<double()>;
  // Spills to `spill` (created or truncated; its directory must exist), `capacity` events a buffer.
  Recorder(Clock clock, std::filesystem::path spill, int rank, std::size_t capacity = 16384);
  ~Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  double now() const { return clock_(); }
  int rank() const noexcept { return rank_; }
  // The calling thread's number. A thread is registered by its first call here or its first record, under
  // `name` (numbered where another thread has that name) or "thread <number>"; later names are ignored.
  std::uint16_t thread(std::string_view name = {});
  // A row of the trace that is no thread of the process (a modelled core, say), registered under `name`
  // on first use; its number, for record_on().
  std::uint16_t lane(std::string_view name);
  // The number of `text` in this recorder's string table, added on first use.
  std::uint32_t string(std::string_view text);
  // Appends to the calling thread's buffer (setting its thread), spilling the buffer first when full.
  void record(Event event);
  // Appends to the calling thread's buffer, as from thread (or lane) `thread`.
  void record_on(std::uint16_t thread, Event event);
  // A span from `begin` to now.
  void span(Kind kind, double begin, std::int64_t a = 0, std::int64_t b = 0, std::int64_t c = 0,
            std::int64_t d = 0, std::int64_t e = 0, std::uint32_t name = 0, std::uint32_t detail = 0);

  // Spills every buffer. Call once no thread records any more.
  void flush();
  // Everything recorded, read back from the spill file (after flush()).
  Log read() const;
  std::size_t spills() const noexcept { return spills_; }
  const std::filesystem::path& spill_path() const noexcept { return spill_; }

 private:
  struct Buffer {
    std::vector<Event> events;
    std::uint16_t thread = 0;
  };
  Buffer& buffer(std::string_view name = {});  // registers the calling thread under `name` if new
  void spill(Buffer& buffer);  // under mutex_

  Clock clock_;
  std::filesystem::path spill_;
  int rank_;
  std::size_t capacity_;
  std::uint64_t serial_;  // tells this recorder from an earlier one at the same address (thread caches)
  std::mutex mutex_;
  std::vector<std::unique_ptr<Buffer>> buffers_;
  std::unordered_map<std::size_t, Buffer*> by_thread_;  // std::thread::id's hash -> buffer
  std::vector<std::string> strings_{""};
  std::unordered_map<std::string, std::uint32_t> string_index_;
  std::size_t strings_spilled_ = 1;  // strings_ already in the spill file
  std::vector<std::string> threads_;
  std::unordered_map<std::string, std::uint16_t> lanes_;
  std::size_t threads_spilled_ = 0;
  std::size_t spills_ = 0;
  int file_ = -1;
};

// Decodes a spill file's bytes (every whole block; a torn last block, as a crash leaves, is dropped).
Log decode_spill(std::span<const std::byte> bytes, int rank);
std::vector<std::byte> read_file(const std::filesystem::path& path);

// A process's clock against the reference (rank 0's): reference = local - offset, with the offset
// measured at two instants and taken as moving linearly between them (a clock's drift).
struct ClockFit {
  double local_start = 0, offset_start = 0;
  double local_end = 0, offset_end = 0;
  bool has_end = false;
  // How far off the offsets may be: half the round trip of the ping-pong taken (0 where exact: the same
  // host, or one clock), the larger of the two measurements.
  double error = 0;
  double to_reference(double local) const noexcept;
  // Takes a measurement: `offset` at `local` (on the measured process's clock), the start's or the end's.
  void measured(bool at_end, double local, double offset) noexcept;
};
// One ping-pong's estimate: the other process read `remote` while ours went from `sent` to `received`.
// Of several, the one with the shortest round trip is the best (offset_from picks it).
struct Probe {
  double sent, remote, received;
};
double offset_from(std::span<const Probe> probes);  // remote - local, from the shortest round trip

// The whole run: every process's log and clock.
struct Recording {
  std::vector<Log> logs;       // by rank
  std::vector<ClockFit> clocks;  // by rank
  bool simulated = false;      // SMPI: one clock, no offsets
};

// The clocks as measured when the trace started, kept beside the spill files (<dir>/raw/clocks.json) so
// that a run which never finished its trace can still be put on one clock.
void write_clocks(const Recording& run, const std::filesystem::path& file);
// A run's trace from what it left in `directory`/raw: every rank's spill file and the clocks of the start.
// For a run that ended before finishing its trace (a crash, an abort): each rank's events up to its last
// whole block. Throws Error(invalid_argument) naming what is missing.
Recording recover(const std::filesystem::path& directory);

// Writes Chrome's trace event format (docs/tracing.md lists the fields).
void write_chrome_json(const Recording& run, const std::filesystem::path& file);
// Writes the OTF2 archive `directory`/`name`.otf2 (and its `name`/ folder). Throws Error(invalid_argument)
// where herald was built without libotf2.
void write_otf2(const Recording& run, const std::filesystem::path& directory, const std::string& name);
bool otf2_available() noexcept;

}  // namespace herald::trace
