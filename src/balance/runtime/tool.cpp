#include "tool.hpp"

#include "clock.hpp"
#include "hwloc_topology.hpp"

#include <cstdio>
#include <exception>
#include <string>

namespace herald::balance {
namespace {

// Marks in the runtime's per-region and per-task tool data.
constexpr std::uint64_t outermost_region = 1;
constexpr std::uint64_t measured_task = 1;

}  // namespace

Tool::Tool(Settings settings, OpenMpApi api, ompt_get_thread_data_t get_thread_data)
    : settings_(std::move(settings)), api_(api), get_thread_data_(get_thread_data) {}

ThreadState* Tool::current_thread() {
  ompt_data_t* data = get_thread_data_ ? get_thread_data_() : nullptr;
  if (data == nullptr) return nullptr;
  if (data->ptr == nullptr) thread_begin(data);  // a thread that began before the tool did
  return static_cast<ThreadState*>(data->ptr);
}

void Tool::thread_begin(ompt_data_t* thread_data) {
  std::lock_guard lock(threads_mutex_);
  thread_data->ptr = &threads_.emplace_back();
}

void Tool::parallel_begin(ompt_data_t*, ompt_data_t* parallel) {
  // Only regions entered from outside any region are measured: a nested region's work is already inside
  // the implicit task of the outer thread that runs it.
  const ThreadState* thread = current_thread();
  parallel->value = (thread != nullptr && thread->in_task) ? 0 : outermost_region;
}

void Tool::parallel_end(ompt_data_t* parallel) {
  if (settings_.implicit && parallel != nullptr && parallel->value == outermost_region) phase_end(true);
}

void Tool::implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t* parallel, ompt_data_t* task,
                         unsigned int index, int flags) {
  ThreadState* thread = current_thread();
  if (thread == nullptr) return;
  if (endpoint == ompt_scope_begin) {
    if (!(flags & ompt_task_implicit) || parallel == nullptr || parallel->value != outermost_region) return;
    task->value = measured_task;
    thread->in_task = true;
    if (settings_.bind) bind_if_stale(*thread, index);
    thread->started = now_ns(settings_.clock);
    return;
  }
  if (!thread->in_task || (task != nullptr && task->value != measured_task)) return;
  if (thread->started >= 0) busy_ns_.fetch_add(now_ns(settings_.clock) - thread->started, std::memory_order_relaxed);
  thread->started = -1;
  thread->in_task = false;
}

void Tool::sync_wait(ompt_scope_endpoint_t endpoint) {
  // Waiting in a barrier (or taskwait, taskgroup...) is not work: the clock stops while it lasts. A thread
  // adds its work when it starts to wait at the region's closing barrier, before the primary thread can
  // leave it, so the phase's total is complete when the phase ends.
  ThreadState* thread = current_thread();
  if (thread == nullptr || !thread->in_task) return;
  if (endpoint == ompt_scope_begin) {
    if (thread->started >= 0)
      busy_ns_.fetch_add(now_ns(settings_.clock) - thread->started, std::memory_order_relaxed);
    thread->started = -1;
  } else {
    thread->started = now_ns(settings_.clock);
  }
}

void Tool::bind_if_stale(ThreadState& thread, unsigned int index) {
  const std::uint64_t epoch = epoch_.load(std::memory_order_acquire);
  if (epoch == thread.bound_epoch) return;
  int cpu = -1;
  {
    std::lock_guard lock(binding_mutex_);
    if (binding_cpus_.empty()) return;
    cpu = binding_cpus_[index % binding_cpus_.size()];
  }
  thread.bound_epoch = epoch;
  if (!bind_calling_thread(cpu) && settings_.log)
    std::fprintf(stderr, "herald balance: could not bind a thread to CPU %d\n", cpu);
}

void Tool::phase_end(bool implicit_call) {
  if (disabled_ || implicit_call != settings_.implicit) return;
  if (const ThreadState* thread = current_thread(); thread != nullptr && thread->in_task) return;
  ++calls_;
  if (!settings_.trigger.fires(calls_)) return;
  try {
    exchange();
  } catch (const std::exception& e) {
    // Every process of the node decides from the same data, so all of them stop here together.
    disabled_ = true;
    report((std::string("disabled: ") + e.what()).c_str());
  }
}

void Tool::exchange() {
  if (!mpi_running()) return;
  if (!node_) node_.emplace();
  if (!topology_) {
    topology_ = settings_.cores ? pretend(*settings_.cores, all_cpus(detect_topology())) : detect_topology();
    if (settings_.log && node_->rank() == 0)
      std::fprintf(stderr, "herald balance: node of %s, %d processes\n", describe(*topology_).c_str(),
                   node_->size());
  }

  const double busy = static_cast<double>(busy_ns_.exchange(0, std::memory_order_acq_rel)) * 1e-9;
  const auto all = node_->allgather({busy, static_cast<double>(api_.get_max_threads())});
  std::vector<double> loads;
  std::vector<int> threads;
  for (const auto& [load, count] : all) {
    loads.push_back(load);
    threads.push_back(static_cast<int>(count));
  }
  Decision decision = decide(loads, threads, topology_->socket_cores());
  ++exchanges_;
  if (settings_.log && node_->rank() == 0)
    std::fprintf(stderr, "herald balance: call %ld: %s\n", calls_, describe(decision).c_str());
  if (decision.act) {
    apply(decision, node_->rank());
    ++actions_;
  }
  last_ = std::move(decision);
}

void Tool::apply(const Decision& decision, int me) {
  const int count = decision.placement.threads[me];
  api_.set_num_threads(count);
  if (!settings_.bind) return;
  std::vector<int> cpus;
  for (int core = decision.placement.first_core[me]; core < decision.placement.first_core[me] + count; ++core)
    cpus.push_back(topology_->cpu(core));
  {
    std::lock_guard lock(binding_mutex_);
    binding_cpus_ = std::move(cpus);
  }
  epoch_.fetch_add(1, std::memory_order_release);
}

void Tool::report(const char* message) const {
  if (!node_ || node_->rank() == 0) std::fprintf(stderr, "herald balance: %s\n", message);
}

Status Tool::status() const {
  Status s;
  s.active = true;
  s.calls = calls_;
  s.exchanges = exchanges_;
  s.actions = actions_;
  s.last = last_;
  return s;
}

}  // namespace herald::balance
