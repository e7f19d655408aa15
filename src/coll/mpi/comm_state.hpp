// herald's side of one user communicator: its private duplicate, its tag sequence, its node layout and
// rings, and its cache of compiled plans.
#pragma once

#include "../../core/mpi/check.hpp"
#include "../learning.hpp"
#include "node_memory.hpp"
#include "plan.hpp"
#include "settings.hpp"

#include <herald/algorithms.hpp>
#include <herald/decision.hpp>
#include <herald/selector.hpp>

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <memory>
#include <unordered_map>
#include <vector>

namespace herald::mpi {

struct PlanKey {
  const AlgorithmInfo* algorithm;  // nullptr: "auto" (CommState::decide())
  int root;
  std::size_t bytes;
  Parameters parameters;
  // Priced and planned with node memory: every node's ring is open (CommState::node_memory_open()).
  bool node_memory = false;
  friend bool operator==(const PlanKey&, const PlanKey&) = default;
};

struct PlanKeyHash {
  std::size_t operator()(const PlanKey& k) const noexcept;
};

// One thing "auto" may run for a call: MPI_Bcast, or an algorithm's plan.
struct Candidate {
  bool native = false;
  const AlgorithmInfo* algorithm = nullptr;
  Parameters parameters{};
  std::shared_ptr<Plan> plan;
};

// What "auto" decided for one call's shape on a communicator: the decision's own pick first, then, where
// HERALD_AUTO_LEARN is on, what a trial measures beside it (the model's runner-up, MPI_Bcast).
struct Decided {
  Decision decision;
  std::vector<Candidate> candidates;
};

// The private duplicate is made when the state is, so that herald's messages never meet the program's.
//
// The duplicate is made only where every member is inside a blocking call on the communicator, and it is
// complete before that call returns (Context::state): no other collective on the communicator can start
// while MPI duplicates it. An MPI_Comm_idup left running behind the program's back could interleave its own
// collectives with the program's nonblocking ones in a different order on different ranks (Open MPI starts
// them from its progress engine), and their messages would cross.
class CommState {
 public:
  // Starts the duplication; Context::state() completes it before anyone uses the state.
  explicit CommState(MPI_Comm user);
  ~CommState();
  CommState(const CommState&) = delete;
  CommState& operator=(const CommState&) = delete;

  int rank() const noexcept { return rank_; }
  int size() const noexcept { return size_; }
  // The program's communicator this state belongs to.
  MPI_Comm user() const noexcept { return user_; }
  // True once the duplication, then the exchange of node names, have completed; tests without blocking.
  bool ready();
  // Which ranks share a node, found once when the state is made (see ready()).
  const NodeLayout& layout() const noexcept { return layout_; }
  // The private communicator.
  MPI_Comm comm() const noexcept { return dup_.get(); }
  // A tag no earlier call on this communicator still uses; every rank draws the same sequence.
  int next_tag() noexcept { return static_cast<int>(sequence_++ % static_cast<std::uint32_t>(tag_limit_)); }
  // Calls reserved so far: the next call's number, the same on every rank.
  std::uint32_t calls() const noexcept { return sequence_; }
  // For traces: the members' ranks in MPI_COMM_WORLD, and a number naming this communicator alike on every
  // member (from its members and how many communicators of the same members this process had before).
  // Worked out on first use, without communicating.
  int world_rank(int rank);
  std::int64_t trace_id();
  // The compiled plan for a named algorithm's shape, built on first use.
  std::shared_ptr<Plan> plan(const PlanKey& key);
  // "auto"'s decision (decide(): the tuning file's cell, MPI_Bcast, or the cost model with this
  // communicator's link loads) for a key without an algorithm, and its plans; made on first use.
  std::shared_ptr<const Decided> decide(const PlanKey& key);
  // HERALD_AUTO_LEARN: the candidate (of `candidates`) a call of `bytes` runs. A blocking call counts in its
  // size class's trial (`counted`: its time is wanted) and may start or await the agreement; a nonblocking
  // one takes what was learned, or 0.
  int learn(std::size_t bytes, bool blocking, std::span<const Candidate> candidates, bool& counted);
  bool learning() const;
  // A counted call's time on this rank, for the trial.
  void learned_time(std::size_t bytes, double seconds);
  // This rank's node ring; nullptr where this rank is alone on its node or the rings could not be made.
  NodeMemory* node_memory() const noexcept { return memory_.get(); }
  // Every node of two ranks or more has its ring open: the same on every rank.
  bool node_memory_open() const noexcept { return memory_everywhere_; }
  // Makes the rings, once ready(): collective, as the state's making is (Context::state()). `wait`
  // completes a request while other broadcasts move.
  void open_node_memory(const std::function<void(MPI_Request&)>& wait);

 private:
  MPI_Comm user_;
  Communicator dup_;
  // Setting up: the MPI_Comm_idup, then the MPI_Iallgather of node names, in flight in setup_.
  enum class Phase { duplicating, gathering, spreading, done } phase_ = Phase::duplicating;
  MPI_Request setup_ = MPI_REQUEST_NULL;
  std::uint64_t own_node_ = 0;
  std::vector<std::uint64_t> node_names_;
  NodeLayout layout_;
  int rank_ = 0, size_ = 1;
  int tag_limit_ = 32767;
  std::uint32_t sequence_ = 0;
  std::unordered_map<PlanKey, std::shared_ptr<Plan>, PlanKeyHash> plans_;
  LinkLoads loads_;  // "auto"'s link loads under this communicator's layout
  // Most programs repeat one shape: the last plan is checked before hashing.
  PlanKey last_key_{};
  std::shared_ptr<Plan> last_plan_;
  std::unordered_map<PlanKey, std::shared_ptr<const Decided>, PlanKeyHash> decided_;
  PlanKey last_auto_key_{};
  std::shared_ptr<const Decided> last_decided_;
  // HERALD_AUTO_LEARN's trials, by size class, and each agreement in flight.
  struct Trial {
    Learner learner;
    std::vector<TuningCell> described;  // per candidate, as a tuning file's cell names it (the first call's size)
    std::vector<double> mine, slowest;
    MPI_Request agreement = MPI_REQUEST_NULL;
  };
  std::map<int, Trial> trials_;
  std::unique_ptr<NodeMemory> memory_;
  bool memory_everywhere_ = false;
  std::vector<int> world_ranks_;  // trace_id() fills it
  std::int64_t trace_id_ = -1;
};

// This process's node, hashed: what MPI_Get_processor_name gives, which names the host on every MPI we know
// of (SMPI: the simulated host). 64 bits make two hosts of one job sharing a hash a practical impossibility.
// Under HERALD_EMULATE_NODES, the node of this rank of MPI_COMM_WORLD instead.
std::uint64_t node_name(EmulatedNodes emulated);

}  // namespace herald::mpi
