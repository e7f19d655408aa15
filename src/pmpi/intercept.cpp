// MPI_Bcast and MPI_Ibcast on herald, through the MPI profiling interface.
//
// MPI_Ibcast returns a generalized request (MPI_Grequest_start). MPI gives generalized requests no progress
// hook, so the completion calls (MPI_Wait, MPI_Test and their all/any/some forms) are intercepted too: they
// advance herald's broadcasts in flight, mark the finished ones complete, then hand over to the MPI library.
// Herald's own traffic uses the PMPI entry points and never comes back here.
// Assumes the MPI_THREAD_SINGLE/FUNNELED/SERIALIZED models: one thread in MPI at a time.
#include "../coll/mpi/typed.hpp"

#include <herald/bcast.hpp>
#include <herald/config.hpp>

#include <mpi.h>

#include <cstdio>
#include <memory>
#include <unordered_map>

namespace {

struct Pending {
  herald::mpi::TypedBuffer data;
  herald::Request request;
};

int query(void*, MPI_Status* status) {
  MPI_Status_set_elements(status, MPI_BYTE, 0);
  MPI_Status_set_cancelled(status, 0);
  status->MPI_SOURCE = MPI_UNDEFINED;
  status->MPI_TAG = MPI_UNDEFINED;
  return MPI_SUCCESS;
}
int release(void*) { return MPI_SUCCESS; }
int cancel(void*, int complete) { return complete ? MPI_SUCCESS : MPI_ERR_OTHER; }

// The library's one object: broadcasts in flight by their generalized request, and counters.
class Interceptor {
 public:
  static Interceptor& get() {
    static Interceptor interceptor;
    return interceptor;
  }

  bool log() const noexcept { return log_; }
  long long calls() const noexcept { return calls_; }
  void count() noexcept { ++calls_; }

  void add(MPI_Request request, std::unique_ptr<Pending> pending) { pending_.emplace(request, std::move(pending)); }
  bool idle() const noexcept { return pending_.empty(); }

  // Advances every broadcast in flight without blocking; completes the finished ones.
  void progress() {
    for (auto it = pending_.begin(); it != pending_.end();) {
      if (it->second->request.test()) {
        it->second->data.finish();
        const MPI_Request request = it->first;
        it = pending_.erase(it);
        PMPI_Grequest_complete(request);
      } else {
        ++it;
      }
    }
  }

 private:
  Interceptor() : log_(herald::environment("HERALD_PMPI_LOG").value_or("0") != "0") {}
  bool log_;
  long long calls_ = 0;
  std::unordered_map<MPI_Request, std::unique_ptr<Pending>> pending_;
};

void note(const char* call, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  Interceptor& self = Interceptor::get();
  self.count();
  if (!self.log()) return;
  int rank = 0, type_size = 0, size = 0;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  PMPI_Type_size(type, &type_size);
  if (rank == root) {
    const std::size_t bytes = static_cast<std::size_t>(count) * static_cast<std::size_t>(type_size);
    std::fprintf(stderr, "herald: %s of %zu bytes from root %d on %d ranks via %s\n", call, bytes, root, size,
                 herald::resolve_algorithm({}, size, bytes).c_str());
  }
}

bool intercommunicator(MPI_Comm comm) {
  int inter = 0;
  return comm != MPI_COMM_NULL && PMPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && inter;
}

}  // namespace

extern "C" {

// Exported so a program (or a test) can tell whether herald is in the path: broadcasts intercepted so far.
long long herald_pmpi_calls(void) { return Interceptor::get().calls(); }

int MPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  if (intercommunicator(comm)) return PMPI_Bcast(buffer, count, datatype, root, comm);
  try {
    herald::mpi::TypedBuffer data(buffer, count, datatype, root, comm);
    note("MPI_Bcast", count, datatype, root, comm);
    herald::bcast(data.bytes(), root, comm);
    data.finish();
    return MPI_SUCCESS;
  } catch (const herald::Error& e) {
    return herald::mpi::report(comm, e);
  }
}

int MPI_Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request* request) {
  if (intercommunicator(comm)) return PMPI_Ibcast(buffer, count, datatype, root, comm, request);
  if (request == nullptr) return herald::mpi::report(comm, herald::Error(herald::Errc::invalid_argument,
                                                                         "MPI_Ibcast: the request pointer is null"));
  try {
    auto pending = std::make_unique<Pending>(Pending{{buffer, count, datatype, root, comm}, {}});
    note("MPI_Ibcast", count, datatype, root, comm);
    pending->request = herald::ibcast(pending->data.bytes(), root, comm);
    int rc = PMPI_Grequest_start(query, release, cancel, nullptr, request);
    if (rc != MPI_SUCCESS) return rc;
    Interceptor::get().add(*request, std::move(pending));
    Interceptor::get().progress();
    return MPI_SUCCESS;
  } catch (const herald::Error& e) {
    return herald::mpi::report(comm, e);
  }
}

// While herald broadcasts are in flight, every wait polls: it must keep forwarding them (another rank may
// wait for one before it sends what this wait needs), and a herald request completes only through progress().
int MPI_Wait(MPI_Request* request, MPI_Status* status) {
  Interceptor& self = Interceptor::get();
  if (self.idle()) return PMPI_Wait(request, status);
  for (;;) {
    self.progress();
    int flag = 0;
    const int rc = PMPI_Test(request, &flag, status);
    if (rc != MPI_SUCCESS || flag) return rc;
  }
}

int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  Interceptor::get().progress();
  return PMPI_Test(request, flag, status);
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  Interceptor& self = Interceptor::get();
  if (self.idle()) return PMPI_Waitall(count, requests, statuses);
  for (;;) {
    self.progress();
    int flag = 0;
    const int rc = PMPI_Testall(count, requests, &flag, statuses);
    if (rc != MPI_SUCCESS || flag) return rc;
  }
}

int MPI_Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  Interceptor::get().progress();
  return PMPI_Testall(count, requests, flag, statuses);
}

int MPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  Interceptor& self = Interceptor::get();
  if (self.idle()) return PMPI_Waitany(count, requests, index, status);
  for (;;) {
    self.progress();
    int flag = 0;
    const int rc = PMPI_Testany(count, requests, index, &flag, status);
    if (rc != MPI_SUCCESS || flag) return rc;
  }
}

int MPI_Testany(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status) {
  Interceptor::get().progress();
  return PMPI_Testany(count, requests, index, flag, status);
}

int MPI_Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]) {
  Interceptor& self = Interceptor::get();
  if (self.idle()) return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
  for (;;) {
    self.progress();
    const int rc = PMPI_Testsome(incount, requests, outcount, indices, statuses);
    if (rc != MPI_SUCCESS || *outcount != 0) return rc;
  }
}

int MPI_Testsome(int incount, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]) {
  Interceptor::get().progress();
  return PMPI_Testsome(incount, requests, outcount, indices, statuses);
}

}  // extern "C"
