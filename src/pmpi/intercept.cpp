// MPI_Bcast and MPI_Ibcast on herald, through the MPI profiling interface.
//
// herald's messages travel on its private duplicate of each communicator, which MPI makes only inside a
// blocking call every member makes: MPI_Init (MPI_COMM_WORLD), the call that makes a communicator
// (MPI_Comm_dup, MPI_Comm_split and the rest), or the communicator's first MPI_Bcast. The duplicate is complete
// before that call returns, so it never runs beside the program's own nonblocking collectives. An MPI_Ibcast
// on a communicator herald has no duplicate of yet (one made by MPI_Comm_idup, say) is the MPI's own: it must
// stay local, and a duplicate made there could not.
//
// MPI_Ibcast returns a generalized request (MPI_Grequest_start). MPI gives generalized requests no progress
// hook, so every call that can complete a request (MPI_Wait, MPI_Test and their all/any/some forms,
// MPI_Request_get_status) is intercepted too, and every intercepted call advances herald's broadcasts in
// flight and marks the finished ones complete before it hands over to the MPI library. A broadcast whose
// request the program freed (MPI_Request_free) thus completes at a later intercepted call, and at the latest
// in MPI_Finalize, which completes everything still in flight so that nothing of herald's reaches MPI after
// it. Herald's own traffic uses the PMPI entry points and never comes back here.
//
// Threads: the table of broadcasts in flight has a mutex. Under MPI_THREAD_MULTIPLE a wait that finds herald
// work in flight polls instead of blocking, so each waiting thread keeps every broadcast moving.
//
// HERALD_STATS=1: at MPI_Finalize, world rank 0 prints how many broadcasts herald ran (each counted once, by
// the communicator's rank 0), how many it passed through to MPI (intercommunicators, counted by the root),
// and the algorithms they ran.
//
// MPI_Error_string is answered for herald's own error codes, so its messages show whatever the MPI library
// does with strings added to its predefined error classes.
//
// The first intercepted call stops the process, with a message naming both libraries, when it holds an MPI of
// another family than the one this library was built for (library_check.cpp; so may loading the library):
// MPI_Init and MPI_Init_thread check before PMPI_Init, and every other call reaches the check through the
// Interceptor's constructor.
#include "progress.hpp"

#include "../coll/mpi/call.hpp"
#include "../coll/mpi/errors.hpp"
#include "../core/mpi/check.hpp"
#include "../coll/mpi/typed.hpp"

#include <herald/algorithms.hpp>
#include <herald/bcast.hpp>
#include <herald/config.hpp>
#include <herald/tracing.hpp>

#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

// What a generalized request reports when it completes; owned by MPI's request (freed by release()).
struct RequestOutcome {
  int error = MPI_SUCCESS;
};

int query(void* extra, MPI_Status* status) {
  MPI_Status_set_elements(status, MPI_BYTE, 0);
  MPI_Status_set_cancelled(status, 0);
  status->MPI_SOURCE = MPI_UNDEFINED;
  status->MPI_TAG = MPI_UNDEFINED;
  return static_cast<RequestOutcome*>(extra)->error;
}
int release(void* extra) {
  delete static_cast<RequestOutcome*>(extra);
  return MPI_SUCCESS;
}
// MPI calls cancelling a nonblocking collective erroneous, and MPI libraries refuse it: so does herald (MPI_Cancel
// returns the code), and the broadcast goes on.
int cancel(void*, int) {
  return herald::mpi::error_code(
      herald::Error(herald::Errc::invalid_request, "MPI_Cancel: a nonblocking broadcast cannot be cancelled"));
}

struct Pending {
  herald::mpi::TypedRequest typed;
  RequestOutcome* outcome;  // owned by the generalized request
};

// The library's one object: broadcasts in flight by their generalized request, and counters.
class Interceptor {
 public:
  static Interceptor& get() {
    static Interceptor interceptor;
    return interceptor;
  }

  bool log() const noexcept { return log_; }
  long long calls() const noexcept { return calls_.load(std::memory_order_relaxed); }
  // A locked increment costs as much as a small broadcast: only threads that may race pay for one.
  // Throws what the library's settings refused, from a call that reports errors to its caller.
  void count() {
    if (multithreaded_) calls_.fetch_add(1, std::memory_order_relaxed);
    else calls_.store(calls_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    if (setting_error_) throw *setting_error_;
  }

  // HERALD_STATS: a broadcast herald ran (`nonblocking`: MPI_Ibcast), counted on the communicator's rank 0.
  void ran(bool nonblocking, int count, MPI_Datatype type, int root, MPI_Comm comm) {
    if (!stats_) return;
    int rank = 0, type_size = 0;
    PMPI_Comm_rank(comm, &rank);
    if (rank != 0) return;
    PMPI_Type_size(type, &type_size);
    const std::size_t bytes = static_cast<std::size_t>(count) * static_cast<std::size_t>(type_size);
    const std::string name = herald::resolve_algorithm(comm, {}, bytes, root);
    const std::lock_guard lock(mutex_);
    ++stats_counts_[nonblocking ? ibcast_slot : bcast_slot];
    for (std::size_t i = 0; i < herald::algorithms().size(); ++i)
      if (herald::algorithms()[i].name == name) ++stats_counts_[first_algorithm_slot + i];
    if (name == "native") ++stats_counts_[native_slot];
  }
  // HERALD_STATS: a broadcast passed to MPI untouched, counted by an intercommunicator's root or an
  // intracommunicator's rank 0.
  void passed_through(int root, MPI_Comm comm, bool inter) {
    if (!stats_) return;
    int rank = 0;
    if (!inter) PMPI_Comm_rank(comm, &rank);
    if (inter ? root != MPI_ROOT : rank != 0) return;
    const std::lock_guard lock(mutex_);
    ++stats_counts_[passed_slot];
  }
  // At MPI_Finalize (collective over MPI_COMM_WORLD): the totals, printed by world rank 0.
  void report() {
    if (!stats_) return;
    std::vector<long long> totals(stats_counts_.size());
    PMPI_Reduce(stats_counts_.data(), totals.data(), static_cast<int>(totals.size()), MPI_LONG_LONG, MPI_SUM, 0,
                MPI_COMM_WORLD);
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != 0) return;
    std::string used;
    const auto add = [&](std::string_view name, long long n) {
      if (n > 0) used += (used.empty() ? " " : ", ") + std::string(name) + " " + std::to_string(n);
    };
    for (std::size_t i = 0; i < herald::algorithms().size(); ++i)
      add(herald::algorithms()[i].name, totals[first_algorithm_slot + i]);
    add("native", totals[native_slot]);
    // The MPI's own broadcast reached through herald (auto's or the caller's `native`) apart from herald's
    // algorithms: a run that never left native shows it.
    const long long through = totals[bcast_slot] + totals[ibcast_slot];
    std::fprintf(stderr,
                 "herald stats: %lld broadcasts through herald (%lld MPI_Bcast, %lld MPI_Ibcast), %lld on herald's "
                 "algorithms, %lld on the MPI's own (native); %lld passed through to MPI untouched; algorithms:%s\n",
                 through, totals[bcast_slot], totals[ibcast_slot], through - totals[native_slot], totals[native_slot],
                 totals[passed_slot], used.empty() ? " none" : used.c_str());
  }

  void add(MPI_Request request, std::unique_ptr<Pending> pending) {
    const std::lock_guard lock(mutex_);
    pending_.emplace(request, std::move(pending));
    in_flight_.store(pending_.size(), std::memory_order_relaxed);
  }
  bool idle() {
    const std::lock_guard lock(mutex_);
    return pending_.empty();
  }

  // Advances every broadcast in flight without blocking; completes the finished ones (with the error a
  // failed one met, which MPI_Wait or MPI_Test then returns). Every intercepted call starts here, so with
  // nothing in flight it returns before taking the lock. A thread that reads a stale zero skips one round
  // of progress for another thread's broadcast, which that thread's own wait or test still drives.
  void progress() {
    if (in_flight_.load(std::memory_order_relaxed) == 0) return;
    const std::lock_guard lock(mutex_);
    for (auto it = pending_.begin(); it != pending_.end();) {
      Pending& p = *it->second;
      bool done = false;
      try {
        done = p.typed.test();
      } catch (const herald::Error& e) {
        p.outcome->error = herald::mpi::error_code(e);
        done = true;
      } catch (const std::exception& e) {
        p.outcome->error = herald::mpi::error_code(herald::Error(herald::Errc::mpi, e.what()));
        done = true;
      }
      if (!done) {
        ++it;
        continue;
      }
      MPI_Request request = it->first;
      it = pending_.erase(it);
      in_flight_.store(pending_.size(), std::memory_order_relaxed);
      PMPI_Grequest_complete(request);
    }
  }

  // Polls `done` while herald has broadcasts in flight; blocks in `wait` otherwise. Either returns MPI's code.
  template <class Done, class Wait>
  int wait_for(Done&& done, Wait&& wait) {
    for (;;) {
      if (idle()) return wait();
      progress();
      int finished = 0;
      const int rc = done(finished);
      if (rc != MPI_SUCCESS || finished) return rc;
      if (multithreaded_) std::this_thread::yield();
    }
  }

 private:
  // Slots of stats_counts_: the calls, the pass-throughs, native, then one per algorithm of the table.
  static constexpr std::size_t bcast_slot = 0, ibcast_slot = 1, passed_slot = 2, native_slot = 3,
                               first_algorithm_slot = 4;

  Interceptor() : stats_counts_(first_algorithm_slot + herald::algorithms().size(), 0) {
    herald::pmpi::check_library();  // before the first MPI call or constant: a no-op after MPI_Init's
    // Constructed from any intercepted call, some of which cannot report an error: keep it for count().
    try {
      herald::require_known_settings();
      log_ = herald::environment_switch("HERALD_PMPI_LOG");
      stats_ = herald::environment_switch("HERALD_STATS");
    } catch (const herald::Error& e) {
      setting_error_ = e;
    }
    int level = MPI_THREAD_SINGLE;
    PMPI_Query_thread(&level);
    multithreaded_ = level == MPI_THREAD_MULTIPLE;
    herald::mpi::error_strings_intercepted();
  }
  std::mutex mutex_;
  bool log_ = false;
  bool stats_ = false;
  std::optional<herald::Error> setting_error_;
  std::vector<long long> stats_counts_;
  bool multithreaded_ = false;
  std::atomic<long long> calls_ = 0;
  std::atomic<std::size_t> in_flight_ = 0;  // pending_.size(), read without the lock
  std::unordered_map<MPI_Request, std::unique_ptr<Pending>> pending_;
};

void note(const char* call, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  if (!Interceptor::get().log()) return;
  int rank = 0, type_size = 0, size = 0;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  PMPI_Type_size(type, &type_size);
  if (rank == root) {
    const std::size_t bytes = static_cast<std::size_t>(count) * static_cast<std::size_t>(type_size);
    std::fprintf(stderr, "herald: %s of %zu bytes from root %d on %d ranks via %s\n", call, bytes, root, size,
                 herald::resolve_algorithm(comm, {}, bytes, root).c_str());
  }
}

bool intercommunicator(MPI_Comm comm) {
  int inter = 0;
  return comm != MPI_COMM_NULL && PMPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && inter;
}

// After a call that made `*made` (rc its result), inside that call, where every member is: herald's duplicate
// of it, so that its first MPI_Ibcast runs on herald and stays local.
int attach_made(int rc, const MPI_Comm* made) {
  if (rc != MPI_SUCCESS) return rc;
  Interceptor::get().progress();
  if (made == nullptr || *made == MPI_COMM_NULL || intercommunicator(*made)) return rc;
  int size = 0;
  if (PMPI_Comm_size(*made, &size) != MPI_SUCCESS || size < 2) return rc;
  try {
    herald::attach(*made);
    return rc;
  } catch (...) {
    return herald::mpi::report_exception(*made);
  }
}

// HERALD_TRACE=<directory>: the run is traced from MPI_Init to MPI_Finalize (docs/tracing.md). A directory
// that cannot be written is MPI_COMM_WORLD's error, as any refusal of herald's is its communicator's.
int start_trace(int rc) {
  if (rc != MPI_SUCCESS) return rc;
  try {
    herald::trace::start_from_environment(MPI_COMM_WORLD);
    return rc;
  } catch (...) {
    return herald::mpi::report_exception(MPI_COMM_WORLD);
  }
}

}  // namespace

namespace herald::pmpi {

void progress() { Interceptor::get().progress(); }
bool busy() { return !Interceptor::get().idle(); }
void settle() {
  progress();
  herald::mpi::finish_forwarding();
}

}  // namespace herald::pmpi

extern "C" {

// Exported so a program (or a test) can tell whether herald is in the path: broadcasts intercepted so far.
long long herald_pmpi_calls(void) { return Interceptor::get().calls(); }

int MPI_Init(int* argc, char*** argv) {
  herald::pmpi::check_library();
  const int rc = PMPI_Init(argc, argv);
  const MPI_Comm world = MPI_COMM_WORLD;
  return start_trace(attach_made(rc, &world));
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  herald::pmpi::check_library();
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  const MPI_Comm world = MPI_COMM_WORLD;
  return start_trace(attach_made(rc, &world));
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* made) { return attach_made(PMPI_Comm_dup(comm, made), made); }

int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* made) {
  return attach_made(PMPI_Comm_dup_with_info(comm, info, made), made);
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* made) {
  return attach_made(PMPI_Comm_split(comm, color, key, made), made);
}

int MPI_Comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm* made) {
  return attach_made(PMPI_Comm_split_type(comm, type, key, info, made), made);
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* made) {
  return attach_made(PMPI_Comm_create(comm, group, made), made);
}

int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* made) {
  return attach_made(PMPI_Comm_create_group(comm, group, tag, made), made);
}

int MPI_Intercomm_merge(MPI_Comm inter, int high, MPI_Comm* made) {
  return attach_made(PMPI_Intercomm_merge(inter, high, made), made);
}

int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder, MPI_Comm* made) {
  return attach_made(PMPI_Cart_create(comm, ndims, dims, periods, reorder, made), made);
}

int MPI_Cart_sub(MPI_Comm comm, const int remain[], MPI_Comm* made) {
  return attach_made(PMPI_Cart_sub(comm, remain, made), made);
}

int MPI_Graph_create(MPI_Comm comm, int nodes, const int index[], const int edges[], int reorder, MPI_Comm* made) {
  return attach_made(PMPI_Graph_create(comm, nodes, index, edges, reorder, made), made);
}

int MPI_Dist_graph_create(MPI_Comm comm, int n, const int sources[], const int degrees[], const int targets[],
                          const int weights[], MPI_Info info, int reorder, MPI_Comm* made) {
  return attach_made(PMPI_Dist_graph_create(comm, n, sources, degrees, targets, weights, info, reorder, made), made);
}

int MPI_Dist_graph_create_adjacent(MPI_Comm comm, int indegree, const int sources[], const int source_weights[],
                                   int outdegree, const int targets[], const int target_weights[], MPI_Info info,
                                   int reorder, MPI_Comm* made) {
  return attach_made(PMPI_Dist_graph_create_adjacent(comm, indegree, sources, source_weights, outdegree, targets,
                                                     target_weights, info, reorder, made),
                     made);
}

int MPI_Request_free(MPI_Request* request) {
  Interceptor::get().progress();
  return PMPI_Request_free(request);
}

int MPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  Interceptor::get().progress();
  if (intercommunicator(comm)) {
    Interceptor::get().passed_through(root, comm, true);
    return PMPI_Bcast(buffer, count, datatype, root, comm);
  }
  try {
    Interceptor::get().count();
    herald::mpi::typed_bcast(buffer, count, datatype, root, comm, std::nullopt);
    note("MPI_Bcast", count, datatype, root, comm);
    Interceptor::get().ran(false, count, datatype, root, comm);
    return MPI_SUCCESS;
  } catch (...) {
    return herald::mpi::report_exception(comm);
  }
}

int MPI_Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request* request) {
  Interceptor::get().progress();
  const bool inter = intercommunicator(comm);
  bool mine = !inter;
  try {
    mine = mine && comm != MPI_COMM_NULL && herald::mpi::attached(comm);
  } catch (...) {
    return herald::mpi::report_exception(comm);
  }
  if (!mine && comm != MPI_COMM_NULL) {
    Interceptor::get().passed_through(root, comm, inter);
    return PMPI_Ibcast(buffer, count, datatype, root, comm, request);
  }
  try {
    Interceptor& self = Interceptor::get();
    self.count();
    if (request == nullptr)
      throw herald::Error(herald::Errc::invalid_argument, "MPI_Ibcast: the request pointer is null");
    auto outcome = std::make_unique<RequestOutcome>();
    auto pending = std::make_unique<Pending>(
        Pending{herald::mpi::typed_ibcast(buffer, count, datatype, root, comm), outcome.get()});
    note("MPI_Ibcast", count, datatype, root, comm);
    self.ran(true, count, datatype, root, comm);
    herald::mpi::check(PMPI_Grequest_start(query, release, cancel, outcome.get(), request), "MPI_Grequest_start");
    outcome.release();  // the generalized request owns it now
    self.add(*request, std::move(pending));
    self.progress();
    return MPI_SUCCESS;
  } catch (...) {
    return herald::mpi::report_exception(comm);
  }
}

int MPI_Wait(MPI_Request* request, MPI_Status* status) {
  return Interceptor::get().wait_for([&](int& done) { return PMPI_Test(request, &done, status); },
                                     [&] { return PMPI_Wait(request, status); });
}

int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  Interceptor::get().progress();
  return PMPI_Test(request, flag, status);
}

int MPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
  Interceptor::get().progress();
  return PMPI_Request_get_status(request, flag, status);
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  return Interceptor::get().wait_for([&](int& done) { return PMPI_Testall(count, requests, &done, statuses); },
                                     [&] { return PMPI_Waitall(count, requests, statuses); });
}

int MPI_Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  Interceptor::get().progress();
  return PMPI_Testall(count, requests, flag, statuses);
}

int MPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  return Interceptor::get().wait_for([&](int& done) { return PMPI_Testany(count, requests, index, &done, status); },
                                     [&] { return PMPI_Waitany(count, requests, index, status); });
}

int MPI_Testany(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status) {
  Interceptor::get().progress();
  return PMPI_Testany(count, requests, index, flag, status);
}

int MPI_Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]) {
  return Interceptor::get().wait_for(
      [&](int& done) {
        const int rc = PMPI_Testsome(incount, requests, outcount, indices, statuses);
        done = *outcount != 0;  // MPI_UNDEFINED (no active request) ends the wait too
        return rc;
      },
      [&] { return PMPI_Waitsome(incount, requests, outcount, indices, statuses); });
}

int MPI_Testsome(int incount, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]) {
  Interceptor::get().progress();
  return PMPI_Testsome(incount, requests, outcount, indices, statuses);
}

int MPI_Finalize(void) {
  Interceptor& self = Interceptor::get();
  while (!self.idle()) self.progress();
  self.report();
  try {
    herald::trace::finish();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "herald: the trace could not be written: %s\n", e.what());
  }
  return PMPI_Finalize();
}

int MPI_Error_string(int code, char* text, int* length) {
  herald::pmpi::check_library();
  int initialized = 0, finalized = 0;
  PMPI_Initialized(&initialized);
  PMPI_Finalized(&finalized);
  if (initialized && !finalized && text != nullptr && length != nullptr) {
    try {
      if (const auto message = herald::mpi::message_of(code)) {
        const std::size_t n = std::min(message->size(), static_cast<std::size_t>(MPI_MAX_ERROR_STRING - 1));
        std::memcpy(text, message->data(), n);
        text[n] = '\0';
        *length = static_cast<int>(n);
        return MPI_SUCCESS;
      }
    } catch (...) {
    }
  }
  return PMPI_Error_string(code, text, length);
}

}  // extern "C"
