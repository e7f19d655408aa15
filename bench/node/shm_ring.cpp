// Two processes pinned to cores 0 and 1 pass 1 MiB messages through a ring of 16 slots of 64 KiB in shared
// memory, as node_shared does, with no MPI and no herald: the writer copies each piece in, the reader copies
// it out; the reader prints the rate per 200 ms window. Shows whether copies between two cores through
// shared memory change speed while a job runs (bench/node/results/shm_ring.txt).
//   g++ -O2 -std=c++20 -o /tmp/shm_ring bench/node/shm_ring.cpp && timeout 100 /tmp/shm_ring 100
// The argument N: N x 5000 messages (the run stops at the timeout first when copies are slow).
// As one launch of run-launches.sh: `shm_ring --launch [--unbound]` passes 5 + 2000 messages and prints the
// median of the last 2000 in us (the reader's time from one message's end to the next); --unbound leaves the
// two processes where the kernel puts them.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <sched.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>
constexpr size_t slot = 65536, slots = 16, msg = 1 << 20;
struct Ctl { alignas(64) std::atomic<uint64_t> written[slots]; alignas(64) std::atomic<uint64_t> released[slots]; };
int main(int argc, char** argv) {
  const bool launch = argc > 1 && strcmp(argv[1], "--launch") == 0;
  const bool bound = !(argc > 2 && strcmp(argv[2], "--unbound") == 0);
  const double thousands = launch ? 2005.0 / 5000 : argc > 1 ? atof(argv[1]) : 10;  // x 5000 messages
  std::vector<double> times;
  void* mem = mmap(nullptr, 4096 * 4 + slots * slot, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  Ctl* c = new (mem) Ctl{};
  char* data = static_cast<char*>(mem) + 4096 * 4;
  pid_t child = fork();
  cpu_set_t set; CPU_ZERO(&set); CPU_SET(child == 0 ? 1 : 0, &set);
  if (bound) sched_setaffinity(0, sizeof set, &set);
  std::vector<char> buf(msg, 1);
  auto start = std::chrono::steady_clock::now();
  uint64_t pos = 0, bytes = 0; auto window = start;
  while (true) {
    for (size_t k = 0; k < msg / slot; ++k, ++pos) {
      size_t s = pos % slots; uint64_t use = pos / slots;
      if (child != 0) {
        while (c->released[s].load(std::memory_order_acquire) != use) {}
        memcpy(data + s * slot, buf.data() + k * slot, slot);
        c->written[s].store(pos + 1, std::memory_order_release);
      } else {
        while (c->written[s].load(std::memory_order_acquire) != pos + 1) {}
        memcpy(buf.data() + k * slot, data + s * slot, slot);
        c->released[s].store(use + 1, std::memory_order_release);
      }
    }
    bytes += msg;
    auto now = std::chrono::steady_clock::now();
    if (launch) {
      times.push_back(std::chrono::duration<double>(now - window).count() * 1e6);
      window = now;
    } else if (child == 0 && now - window > std::chrono::milliseconds(200)) {
      double t = std::chrono::duration<double>(now - window).count();
      printf("%.1f s: %.2f GB/s\n", std::chrono::duration<double>(now - start).count(), bytes / t / 1e9);
      fflush(stdout); bytes = 0; window = now;
    }
    if (pos >= static_cast<uint64_t>(thousands * 5000) * (msg / slot)) break;
  }
  if (child != 0) { /* let the reader finish its last message */ waitpid(child, nullptr, 0); }
  if (launch && child == 0) {
    std::vector<double> last(times.end() - 2000, times.end());
    std::ranges::nth_element(last, last.begin() + 1000);
    printf("%.1f\n", last[1000]);
  }
  return 0;
}
