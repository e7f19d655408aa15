// What each send of a program waits for, derived once from the program itself.
//
// The executor waits exactly on these receives before posting a send; the simulator uses the same
// analysis to time schedules and to reject a send of bytes the rank does not have yet.
#pragma once

#include <herald/error.hpp>
#include <herald/schedule.hpp>

#include <cstdint>
#include <span>
#include <vector>

namespace herald {

class Dataflow {
 public:
  // Throws Error(invalid_schedule) if a step leaves the buffer, a send covers bytes that no earlier receive
  // brought (and the rank is not the root), or a receive only partly overlaps bytes the rank already has.
  Dataflow(const Program& program, bool is_root, std::size_t bytes, int rank = -1);

  // Indices (into the program) of the receives that the send at `step` must wait for.
  std::span<const std::uint32_t> waits_for(std::size_t step) const {
    return {deps_.data() + begin_[step], deps_.data() + begin_[step + 1]};
  }
  // A receive of bytes the rank already has (as in MPICH's enclosed ring): it must land elsewhere, since
  // the rank may be sending from those bytes at the same time.
  bool redundant(std::size_t step) const { return redundant_[step]; }
  // Largest redundant receive, the scratch an executor needs.
  std::size_t scratch_bytes() const { return scratch_; }

 private:
  std::vector<std::uint32_t> begin_;  // per step, into deps_; size = steps + 1
  std::vector<std::uint32_t> deps_;
  std::vector<bool> redundant_;
  std::size_t scratch_ = 0;
};

}  // namespace herald
