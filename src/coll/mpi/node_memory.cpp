#include "node_memory.hpp"

#include "../../core/mpi/check.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <new>
#include <string>
#include <vector>

namespace herald::mpi {
namespace {

// A name no other live segment has: this process and the state it is made for.
std::string segment_name(const void* owner) {
  return "/herald." + std::to_string(::getpid()) + "." + std::to_string(reinterpret_cast<std::uintptr_t>(owner));
}

// Maps `name` (made, with `create`), its pages reserved: a full /dev/shm refuses here rather than killing
// the process with SIGBUS at the first write. nullptr where the system refuses.
void* map(const std::string& name, std::size_t bytes, bool create) {
  const int fd =
      create ? ::shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600) : ::shm_open(name.c_str(), O_RDWR, 0);
  if (fd < 0) return nullptr;
  bool ok = true;
  if (create)
    ok = ::ftruncate(fd, static_cast<off_t>(bytes)) == 0 && ::posix_fallocate(fd, 0, static_cast<off_t>(bytes)) == 0;
  // Its page tables filled now (MAP_POPULATE), once a process: the ring's first pass would otherwise take a
  // page fault every 4 KiB on every rank of the node, inside the program's first broadcasts.
  void* base = ok ? ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0) : MAP_FAILED;
  ::close(fd);
  if (base == MAP_FAILED) {
    if (create) ::shm_unlink(name.c_str());
    return nullptr;
  }
  return base;
}

}  // namespace

NodeMemory::NodeMemory(void* base, int readers) noexcept
    : base_(base), controls_(static_cast<Slot*>(base)), readers_(readers) {
  static_assert(sizeof(Slot) <= 128 && sizeof(Slot) * slots <= data_offset,
                "the slots' control words fit before their bytes");
}

NodeMemory::~NodeMemory() { ::munmap(base_, mapped_bytes()); }

std::unique_ptr<NodeMemory> NodeMemory::open(MPI_Comm comm, const NodeLayout& layout, int rank, std::uint64_t host,
                                             const std::function<void(MPI_Request&)>& wait, bool allowed,
                                             bool& everywhere) {
  const int size = layout.ranks();
  const std::span<const int> members = layout.members(layout.node_of(rank));
  const int creator = members.front();
  const bool alone = members.size() == 1;

  // 1. The node's lowest rank makes the segment; every rank says where it runs and what it made.
  struct Record {
    std::uint64_t host, pid, owner, made;
  };
  Record mine{.host = host, .pid = static_cast<std::uint64_t>(::getpid()), .owner = 0, .made = 0};
  void* base = nullptr;
  const std::string name = segment_name(&mine);
  if (rank == creator && !alone && allowed) {
    base = map(name, mapped_bytes(), true);
    if (base) {
      for (std::size_t i = 0; i < slots; ++i) new (static_cast<Slot*>(base) + i) Slot{};
      mine.owner = reinterpret_cast<std::uintptr_t>(&mine);
      mine.made = 1;
    }
  }
  std::vector<Record> records(static_cast<std::size_t>(size));
  MPI_Request request = MPI_REQUEST_NULL;
  HERALD_MPI(PMPI_Iallgather(&mine, 4, MPI_UINT64_T, records.data(), 4, MPI_UINT64_T, comm, &request));
  wait(request);

  // 2. The others map it, where the whole node is one host.
  int mapped = 1;
  if (!alone) {
    const Record& made = records[static_cast<std::size_t>(creator)];
    bool one_host = made.made == 1;
    for (int r : members) one_host = one_host && records[static_cast<std::size_t>(r)].host == made.host;
    const std::string name_made = "/herald." + std::to_string(made.pid) + "." + std::to_string(made.owner);
    if (rank != creator) base = one_host && allowed ? map(name_made, mapped_bytes(), false) : nullptr;
    mapped = base != nullptr && one_host;
  }
  std::vector<int> everyone(static_cast<std::size_t>(size));
  HERALD_MPI(PMPI_Iallgather(&mapped, 1, MPI_INT, everyone.data(), 1, MPI_INT, comm, &request));
  wait(request);

  // 3. Every rank has mapped its node's segment (or none will use one): the names can go.
  if (rank == creator && mine.made) ::shm_unlink(name.c_str());
  everywhere = layout.largest_node() >= 2;
  for (int r = 0; r < size; ++r) everywhere = everywhere && everyone[static_cast<std::size_t>(r)] == 1;
  if (alone || !everywhere) {
    if (base) ::munmap(base, mapped_bytes());
    return nullptr;
  }
  return std::unique_ptr<NodeMemory>(new NodeMemory(base, static_cast<int>(members.size()) - 1));
}

bool NodeMemory::put(std::uint64_t position, const std::byte* from, ByteRange range, const Place& place,
                     bool good) noexcept {
  Slot& s = slot(position);
  const std::uint64_t reads_before = position / slots * static_cast<std::uint64_t>(readers_);
  if (s.released.load(std::memory_order_acquire) < reads_before) return false;
  if (good) std::memcpy(bytes(position), from + range.offset, range.length);
  s.call_bytes = place.bytes;
  s.call_first = place.first;
  s.call_count = place.count;
  s.offset = range.offset;
  s.length = good ? range.length : refused_length;
  s.written.store(position + 1, std::memory_order_release);
  return true;
}

NodeMemory::Got NodeMemory::get(std::uint64_t position, std::byte* into, ByteRange range, const Place& place,
                                Place& writer) noexcept {
  Slot& s = slot(position);
  if (s.written.load(std::memory_order_acquire) != position + 1) return Got::not_yet;
  writer = {.first = s.call_first, .count = s.call_count, .bytes = s.call_bytes};
  Got got = Got::good;
  if (writer != place)
    got = Got::mismatch;
  else if (s.length == refused_length)
    got = Got::refused;
  else if (s.offset != range.offset || s.length != range.length)
    got = Got::mismatch;
  else
    std::memcpy(into + range.offset, bytes(position), range.length);
  s.released.fetch_add(1, std::memory_order_acq_rel);
  return got;
}

bool NodeMemory::discard(std::uint64_t position) noexcept {
  Slot& s = slot(position);
  if (s.written.load(std::memory_order_acquire) != position + 1) return false;
  s.released.fetch_add(1, std::memory_order_acq_rel);
  return true;
}

}  // namespace herald::mpi
