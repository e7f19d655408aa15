// HERALD_AUTO_LEARN: auto measures its nearest candidates on a communicator's own blocking calls, one size class
// at a time, and keeps the fastest. MPI-free: the executor (mpi/comm_state) counts calls, times them and runs
// the agreement; this says which candidate each call runs and what the ranks' figures decide.
//
// Every rank of a correct program makes the same calls on a communicator in the same order, with the same
// sizes, so a size class's blocking calls are numbered alike on every rank. Which candidate a call runs is a
// function of that number and of what every rank agreed, never of a rank's own clock: learning cannot make
// ranks run different schedules on one call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace herald {

// A size class: the bit width of the byte count (1 B, 2-3 B, 4-7 B, ...).
int size_class(std::size_t bytes) noexcept;

// The trial's shape. First `warmup` calls run auto's pick untimed: a program's first calls pay for what
// is made once (the MPI's connections, page faults on buffers and on node memory), which no candidate
// should be charged. Then `rounds` calls of each candidate, in blocks of `block` calls taken in turn
// (the first block candidate 0, the next candidate 1, ...), so drift in the machine's speed falls alike
// on each. A block's first call is not timed: it pays for the switch from the candidate before (a root
// that left a call early waits in the next for the ranks still in it), and a candidate whose calls
// overlap one another (node memory's root runs ahead by its ring) shows that only from its second call
// on, as a program's loop sees it. Then the agreement: the next call asks for it and the `lag`-th call
// after that (at least 1) awaits it; they run candidate 0. Everything here counts calls, never samples: a
// rank whose call failed stays in step.
struct TrialShape {
  int warmup = 16;
  int rounds = 16;
  int block = 4;
  int lag = 8;
};

class Learner {
 public:
  explicit Learner(int candidates, TrialShape shape = {});

  enum class Phase : std::uint8_t { trial, agreeing, learned };
  Phase phase() const noexcept { return phase_; }
  int candidates() const noexcept { return candidates_; }

  // The candidate the class's next blocking call runs (0: auto's own pick), counting the call.
  int next() noexcept;
  // This rank's time for the call next() last numbered, during the trial.
  void record(double seconds);
  // The trial's calls are all numbered: the next call asks for the agreement (figures(), before next()).
  bool trial_done() const noexcept { return phase_ == Phase::trial && calls_ == calls_in_trial(); }
  // Per candidate, this rank's median time over its timed calls: what the ranks reduce by their maximum.
  // Moves to agreeing.
  std::vector<double> figures();
  // The call next() just numbered is the one that must wait for the agreement.
  bool agreement_due() const noexcept { return phase_ == Phase::agreeing && since_ == shape_.lag; }
  // Per candidate, the slowest rank's median: the fastest of them wins, ties to the lower candidate (auto's
  // own pick first). Returns the winner.
  int agreed(std::span<const double> slowest);
  // The winner once learned.
  int winner() const noexcept { return winner_; }

 private:
  int calls_in_trial() const noexcept { return shape_.warmup + candidates_ * shape_.rounds; }

  int candidates_;
  TrialShape shape_;
  Phase phase_ = Phase::trial;
  int calls_ = 0;       // numbered in the trial, its warm-up included
  int since_ = 0;       // calls since the agreement was asked for
  int last_ = 0;        // the candidate of the call last numbered
  bool timed_ = false;  // whether that call is timed (not its block's first)
  int winner_ = 0;
  std::vector<std::vector<double>> times_;  // per candidate, this rank's
};

}  // namespace herald
