// The balancer inside the OpenMP runtime: measures each thread's work in parallel regions through OMPT
// callbacks, and at the end of a phase gathers the node's loads, decides and applies.
#pragma once

#include "node_comm.hpp"
#include "openmp_api.hpp"

#include <herald/balance/decision.hpp>
#include <herald/balance/settings.hpp>
#include <herald/balance/status.hpp>
#include <herald/balance/topology.hpp>

#include <omp-tools.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <vector>

namespace herald::balance {

// What one OpenMP thread is doing, owned by the Tool and reached through the thread's OMPT thread data.
struct ThreadState {
  bool in_task = false;        // inside an implicit task of an outermost parallel region
  std::int64_t started = -1;   // clock reading when the current stretch of work began; -1 while waiting
  std::uint64_t bound_epoch = 0;  // the binding this thread last applied
};

class Tool {
 public:
  Tool(Settings settings, OpenMpApi api, ompt_get_thread_data_t get_thread_data);

  // OMPT callbacks, forwarded.
  void thread_begin(ompt_data_t* thread_data);
  void parallel_begin(ompt_data_t* encountering_task, ompt_data_t* parallel);
  void parallel_end(ompt_data_t* encountering_task);
  void implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t* parallel, ompt_data_t* task,
                     unsigned int index, int flags);
  void sync_wait(ompt_scope_endpoint_t endpoint);

  // End of a computation phase: an explicit herald_balanced(), or (implicit mode) an outermost region.
  void phase_end(bool implicit_call);

  Status status() const;

 private:
  ThreadState* current_thread();
  void exchange();
  void apply(const Decision& decision, int me);
  void bind_if_stale(ThreadState& thread, unsigned int index);
  void report(const char* message) const;

  const Settings settings_;
  const OpenMpApi api_;
  const ompt_get_thread_data_t get_thread_data_;

  std::mutex threads_mutex_;
  std::deque<ThreadState> threads_;  // a deque never moves its elements: threads keep pointers to theirs

  std::atomic<std::int64_t> busy_ns_{0};  // work of all threads since the last exchange

  // Binding chosen by the last applied decision; threads pick it up when they next start an implicit task.
  std::atomic<std::uint64_t> epoch_{0};
  std::mutex binding_mutex_;
  std::vector<int> binding_cpus_;

  // Touched only by the thread that ends phases.
  long calls_ = 0, exchanges_ = 0, actions_ = 0;
  bool disabled_ = false;
  std::optional<NodeComm> node_;
  std::optional<Topology> topology_;
  std::optional<Decision> last_;
};

}  // namespace herald::balance
