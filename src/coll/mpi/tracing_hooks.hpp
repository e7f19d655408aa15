// The open trace as coll keeps it, and all that trace/mpi (the one maker of traces over MPI) reaches of coll.
//
// Why coll keeps it, and the dependency goes from trace/mpi to coll and never back: every broadcast tests
// the recorder on its way under the context's lock, the pass-through must skip itself while a trace records
// (Context::repeat_passthrough()) and tests it there without a call, and the context's hook at MPI_Finalize
// finishes a trace still open. So the slot lives in the context, and coll knows an open trace only as an
// OpenTrace: coll includes nothing of trace/mpi, and trace/mpi includes this header and nothing else of coll.
#pragma once

#include <herald/trace.hpp>

#include <cstdint>
#include <memory>
#include <mutex>

namespace herald::trace {

class OpenTrace {
 public:
  virtual ~OpenTrace() = default;
  virtual Recorder& recorder() noexcept = 0;
  // Collective over the trace's communicator: gathers the events and writes the files.
  virtual void finish() = 0;
};

}  // namespace herald::trace

namespace herald::mpi {

class TracingHooks {
 public:
  trace::OpenTrace* open_trace() const noexcept { return open_.get(); }
  // The open trace's recorder, which every layer tests before recording; nullptr when none is open.
  trace::Recorder* recorder() const noexcept { return recorder_; }
  void open(std::unique_ptr<trace::OpenTrace> trace) {
    open_ = std::move(trace);
    recorder_ = open_ ? &open_->recorder() : nullptr;
  }
  std::unique_ptr<trace::OpenTrace> close() noexcept {
    recorder_ = nullptr;
    return std::move(open_);
  }

 private:
  std::unique_ptr<trace::OpenTrace> open_;
  trace::Recorder* recorder_ = nullptr;
};

// For trace/mpi. The context's lock: hold it to open, close or look at the open trace.
[[nodiscard]] std::unique_lock<std::recursive_mutex> lock_context();
// The process's hooks, in the context (which the first call of any of these makes).
TracingHooks& tracing_hooks();
// This process's node as coll's layouts see it (HERALD_EMULATE_NODES applied): ranks of one node read one
// clock.
std::uint64_t this_node();

}  // namespace herald::mpi
