// The recorder: a buffer per thread, spilled as blocks appended to one file per process. A block carries
// the strings and thread names added since the last one, so every whole block of a torn file still decodes.
#include <herald/error.hpp>
#include <herald/trace.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <thread>

namespace herald::trace {

std::string_view to_string(Kind kind) noexcept {
  static constexpr std::array<std::string_view, kind_count> names{
      "task", "submit", "transfer", "broadcast", "recipient", "schedule",
      "bcast", "send", "recv", "dyn_send", "dyn_land", "producer", "version", "data_name"};
  const auto i = static_cast<std::size_t>(kind);
  return i < names.size() ? names[i] : "unknown";
}

namespace {

constexpr std::uint32_t block_magic = 0x42525448;  // "HTRB"
constexpr std::uint32_t format_version = 1;

struct BlockHeader {
  std::uint32_t magic = block_magic;
  std::uint32_t version = format_version;
  std::uint32_t strings = 0;  // new strings, each a u32 length and its bytes
  std::uint32_t threads = 0;  // new thread names, likewise
  std::uint64_t events = 0;   // then this many Events
};

void append_text(std::vector<std::byte>& out, std::string_view text) {
  const auto length = static_cast<std::uint32_t>(text.size());
  const auto* l = reinterpret_cast<const std::byte*>(&length);
  out.insert(out.end(), l, l + sizeof length);
  const auto* t = reinterpret_cast<const std::byte*>(text.data());
  out.insert(out.end(), t, t + text.size());
}

std::atomic<std::uint64_t> next_serial{1};

// The calling thread's buffer of the recorder it last used: most events take this path.
struct Cache {
  std::uint64_t serial = 0;
  void* buffer = nullptr;
};
thread_local Cache cache;

}  // namespace

Recorder::Recorder(Clock clock, std::filesystem::path spill, int rank, std::size_t capacity)
    : clock_(std::move(clock)), spill_(std::move(spill)), rank_(rank), capacity_(capacity ? capacity : 1),
      serial_(next_serial.fetch_add(1)) {
  file_ = ::open(spill_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (file_ < 0)
    throw Error(Errc::invalid_argument,
                "cannot write the trace's spill file " + spill_.string() + ": " + std::strerror(errno));
}

Recorder::~Recorder() {
  if (file_ >= 0) ::close(file_);
}

Recorder::Buffer& Recorder::buffer(std::string_view name) {
  if (cache.serial == serial_) return *static_cast<Buffer*>(cache.buffer);
  const std::size_t id = std::hash<std::thread::id>{}(std::this_thread::get_id());
  const std::lock_guard lock(mutex_);
  Buffer*& b = by_thread_[id];
  if (!b) {
    buffers_.push_back(std::make_unique<Buffer>());
    b = buffers_.back().get();
    b->events.reserve(capacity_);
    b->thread = static_cast<std::uint16_t>(threads_.size());
    // Threads given one name (a pool's) are told apart by their numbers.
    std::string full = name.empty() ? "thread" : std::string(name);
    if (name.empty() || std::find(threads_.begin(), threads_.end(), full) != threads_.end()) {
      full += ' ';
      full += std::to_string(threads_.size());
    }
    threads_.push_back(std::move(full));
  }
  cache = {serial_, b};
  return *b;
}

std::uint16_t Recorder::thread(std::string_view name) { return buffer(name).thread; }

std::uint16_t Recorder::lane(std::string_view name) {
  const std::lock_guard lock(mutex_);
  const auto [at, added] = lanes_.try_emplace(std::string(name), static_cast<std::uint16_t>(threads_.size()));
  if (added) threads_.emplace_back(name);
  return at->second;
}

std::uint32_t Recorder::string(std::string_view text) {
  const std::lock_guard lock(mutex_);
  const auto [at, added] = string_index_.try_emplace(std::string(text), static_cast<std::uint32_t>(strings_.size()));
  if (added) strings_.emplace_back(text);
  return at->second;
}

void Recorder::record(Event event) { record_on(buffer().thread, event); }

void Recorder::record_on(std::uint16_t thread, Event event) {
  Buffer& b = buffer();
  event.thread = thread;
  if (b.events.size() == capacity_) {
    const std::lock_guard lock(mutex_);
    spill(b);
  }
  b.events.push_back(event);
}

void Recorder::span(Kind kind, double begin, std::int64_t a, std::int64_t b, std::int64_t c, std::int64_t d,
                    std::int64_t e, std::uint32_t name, std::uint32_t detail) {
  record({.begin = begin, .end = now(), .a = a, .b = b, .c = c, .d = d, .e = e, .name = name, .detail = detail,
          .kind = kind});
}

void Recorder::spill(Buffer& buffer) {
  std::vector<std::byte> out;
  BlockHeader header;
  header.strings = static_cast<std::uint32_t>(strings_.size() - strings_spilled_);
  header.threads = static_cast<std::uint32_t>(threads_.size() - threads_spilled_);
  header.events = buffer.events.size();
  const auto* h = reinterpret_cast<const std::byte*>(&header);
  out.insert(out.end(), h, h + sizeof header);
  for (std::size_t i = strings_spilled_; i < strings_.size(); ++i) append_text(out, strings_[i]);
  for (std::size_t i = threads_spilled_; i < threads_.size(); ++i) append_text(out, threads_[i]);
  const auto* e = reinterpret_cast<const std::byte*>(buffer.events.data());
  out.insert(out.end(), e, e + buffer.events.size() * sizeof(Event));
  for (std::size_t done = 0; done < out.size();) {
    const ssize_t n = ::write(file_, out.data() + done, out.size() - done);
    if (n < 0 && errno == EINTR) continue;
    // A full disk must not end the program being traced: the block is lost, the run goes on.
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  strings_spilled_ = strings_.size();
  threads_spilled_ = threads_.size();
  buffer.events.clear();
  ++spills_;
}

void Recorder::flush() {
  const std::lock_guard lock(mutex_);
  for (auto& b : buffers_)
    if (!b->events.empty()) spill(*b);
  // Strings or threads added after the last events still need a block.
  if (strings_spilled_ < strings_.size() || threads_spilled_ < threads_.size()) {
    Buffer empty;
    spill(empty);
  }
}

Log Recorder::read() const { return decode_spill(read_file(spill_), rank_); }

std::vector<std::byte> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(Errc::invalid_argument, "cannot read " + path.string());
  std::vector<std::byte> bytes;
  in.seekg(0, std::ios::end);
  bytes.resize(static_cast<std::size_t>(in.tellg()));
  in.seekg(0);
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return bytes;
}

Log decode_spill(std::span<const std::byte> bytes, int rank) {
  Log log;
  log.rank = rank;
  log.strings.emplace_back();
  std::size_t at = 0;
  auto take = [&](void* into, std::size_t n) {
    if (bytes.size() - at < n) return false;
    if (n == 0) return true;  // `into` may be an empty vector's null data()
    std::memcpy(into, bytes.data() + at, n);
    at += n;
    return true;
  };
  auto take_text = [&](std::string& text) {
    std::uint32_t length = 0;
    if (!take(&length, sizeof length) || bytes.size() - at < length) return false;
    text.assign(reinterpret_cast<const char*>(bytes.data() + at), length);
    at += length;
    return true;
  };
  while (at < bytes.size()) {
    const std::size_t block_start = at;
    BlockHeader header;
    if (!take(&header, sizeof header)) break;
    if (header.magic != block_magic || header.version != format_version)
      throw Error(Errc::invalid_argument, "not a herald trace spill file (block at byte " +
                                              std::to_string(block_start) + ")");
    std::vector<std::string> strings(header.strings), threads(header.threads);
    bool whole = true;
    for (auto& s : strings) whole = whole && take_text(s);
    for (auto& t : threads) whole = whole && take_text(t);
    if (!whole || (bytes.size() - at) / sizeof(Event) < header.events) break;  // torn: a crash's last block
    const std::size_t first = log.events.size();
    log.events.resize(first + header.events);
    take(log.events.data() + first, header.events * sizeof(Event));
    log.strings.insert(log.strings.end(), strings.begin(), strings.end());
    log.threads.insert(log.threads.end(), threads.begin(), threads.end());
  }
  return log;
}

}  // namespace herald::trace
