// Head control's record of the tasks it sent and has not heard done, of when each worker was last heard,
// and of what each last reported of its transfers.
// A wait() returns once every task of its batch is done, so one batch's tasks are kept at a time, by task
// number from the batch's first: no lookup by hash, and no allocation once the vectors have grown to a
// batch's size.
#pragma once

#include "idle.hpp"
#include "protocol/messages.hpp"

#include <herald/error.hpp>
#include <herald/runtime/task.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace herald::runtime::detail {

class InFlight {
 public:
  explicit InFlight(int ranks);

  // A new batch, of task numbers [first, next): the last batch's records make way.
  void start_batch(std::uint64_t first, std::uint64_t next);
  // Task `task` was sent to `rank` with these accesses.
  void sent(std::uint64_t task, int rank, std::uint32_t kernel, std::span<const TaskAccess> accesses);

  // A task `rank` reports done: its kernel, the bytes it accessed, and the versions it read and wrote.
  struct Done {
    std::uint32_t kernel;
    std::size_t bytes;
    std::span<const Key> reads;
    std::span<const Key> writes;
  };
  // Throws invalid_argument when `rank` was not running `task`.
  Done done(std::uint64_t task, int rank);
  // The kernel of a task still running, if it is.
  std::optional<std::uint32_t> kernel(std::uint64_t task) const;
  std::size_t left() const noexcept { return left_; }

  // Worker `rank` was heard from; restart(): every worker's clock starts again (none is late at a wait()).
  void heard(int rank) { last_heard_.at(static_cast<std::size_t>(rank)) = LoopClock::now(); }
  void restart();
  // The first worker silent for more than `timeout` seconds, as the error that reports it.
  std::optional<Error> silent(double timeout) const;

  // Worker `rank`'s counts so far, from its last report of tasks done.
  void reported(int rank, const msg::Done& done) {
    Report& r = reports_.at(static_cast<std::size_t>(rank));
    r = {done.fetches, done.bytes, done.peak};
  }
  // The workers' counts in `s`: fetches and bytes summed, each one's peak.
  void add_reports(Statistics& s) const;

 private:
  struct Running {
    int rank = -1;  // -1: no task of this batch by this number (an enter, a read, or done)
    std::uint32_t kernel = 0;
    std::size_t bytes = 0;
    std::uint32_t keys = 0;  // its versions in keys_: from here, `reads` read, then `writes` written
    std::uint32_t reads = 0;
    std::uint32_t writes = 0;
  };
  const Running* find(std::uint64_t task) const;  // a task of this batch not done, or nullptr

  std::vector<Running> running_;  // this batch's, by task number - first_
  std::vector<Key> keys_;
  std::uint64_t first_ = 0;
  std::size_t left_ = 0;
  std::vector<std::size_t> outstanding_;  // per rank: tasks sent, not done
  std::vector<LoopClock::time_point> last_heard_;
  struct Report {
    std::uint64_t fetches = 0;
    std::uint64_t bytes = 0;
    std::uint64_t peak = 0;
  };
  std::vector<Report> reports_;
};

}  // namespace herald::runtime::detail
