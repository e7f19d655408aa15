// The trace's records of a task as a control plans it (both controls alike): its submission, the task whose
// output each of its reads takes, and the version each of its writes makes, which a trace's critical path
// follows. Without a recorder it records nothing.
#pragma once

#include "graph.hpp"

#include <herald/trace.hpp>

#include <cstdint>
#include <string_view>

namespace herald::runtime::detail {

class TaskTrace {
 public:
  TaskTrace(trace::Recorder* recorder, std::uint64_t task, std::string_view kernel)
      : recorder_(recorder), now_(recorder ? recorder->now() : 0), task_(static_cast<std::int64_t>(task)) {
    if (recorder_)
      recorder_->record({.begin = now_, .end = now_, .a = task_, .name = recorder_->string(kernel), .kind = trace::Kind::submit});
  }
  void reads(std::uint64_t maker) const {
    if (recorder_)
      recorder_->record({.begin = now_, .end = now_, .a = task_, .b = static_cast<std::int64_t>(maker), .kind = trace::Kind::producer});
  }
  void writes(const Key& version) const {
    if (recorder_)
      recorder_->record({.begin = now_, .end = now_, .a = task_, .e = static_cast<std::int64_t>(version.packed()),
                         .kind = trace::Kind::version});
  }

 private:
  trace::Recorder* recorder_;
  double now_;
  std::int64_t task_;
};

}  // namespace herald::runtime::detail
