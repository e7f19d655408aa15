// herald's per-process state: the configuration read once from HERALD_* variables, and for each user
// communicator a private duplicate, a tag sequence and a cache of compiled plans (kept as an MPI attribute, so it
// goes away with the communicator).
#pragma once

#include "../../core/mpi/check.hpp"
#include "plan.hpp"

#include <herald/simulator.hpp>

#include <cstdint>
#include <string_view>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace herald::mpi {

struct PlanKey {
  const AlgorithmInfo* algorithm;  // nullptr: "auto"
  int root;
  std::size_t bytes;
  Parameters parameters;
  friend bool operator==(const PlanKey&, const PlanKey&) = default;
};

struct PlanKeyHash {
  std::size_t operator()(const PlanKey& k) const noexcept;
};

class CommState {
 public:
  explicit CommState(MPI_Comm user);
  MPI_Comm comm() const noexcept { return dup_.get(); }
  int rank() const noexcept { return rank_; }
  int size() const noexcept { return size_; }
  // A tag no earlier call on this communicator still uses; every rank draws the same sequence.
  int next_tag() noexcept;
  // The compiled plan for this shape ("auto" resolved), built on first use. The reference stays valid
  // until the next call of plan() on this communicator.
  const std::shared_ptr<Plan>& plan(const PlanKey& key);

 private:
  Communicator dup_;
  int rank_ = 0, size_ = 1;
  int tag_limit_ = 32767;
  std::uint32_t sequence_ = 0;
  std::unordered_map<PlanKey, std::shared_ptr<Plan>, PlanKeyHash> plans_;
  // Most programs repeat one shape: the last plan is checked before hashing.
  PlanKey last_key_{};
  std::shared_ptr<Plan> last_plan_;
};

// A broadcast in flight whose sends herald itself must post as data arrives.
class Forwarder {
 public:
  virtual ~Forwarder() = default;
  // Posts the sends whose data has arrived, without blocking; true once all are posted.
  virtual bool forward() = 0;
};

// The one process-wide object.
class Context {
 public:
  static Context& get();
  CommState& state(MPI_Comm user);  // creates and caches on first use; refuses intercommunicators
  // A name from the table, nullptr for "auto" or "native" (`native` says which); throws on unknown names.
  const AlgorithmInfo* algorithm(std::string_view name, bool& native);

  // Broadcasts with sends still to post. While a rank waits for one of them it keeps the others moving, as
  // MPI's progress rule asks: another rank may need this one's forwarding to finish what it waits for.
  void enroll(Forwarder* forwarder) { forwarders_.push_back(forwarder); }
  void withdraw(Forwarder* forwarder) { std::erase(forwarders_, forwarder); }
  bool others_in_flight(const Forwarder* self) const {
    return forwarders_.size() > 1 || (forwarders_.size() == 1 && forwarders_.front() != self);
  }
  bool forwarding() const noexcept { return !forwarders_.empty(); }
  void forward_all();
  // Polls until every broadcast in flight has posted all its sends. Called before a blocking MPI call:
  // a peer may wait for one of those broadcasts before it joins the call. Cannot deadlock: a forwarder's
  // data comes from the root through forwarders that all finish forwarding before they block.
  void finish_forwarding() {
    while (forwarding()) forward_all();
  }

  const std::string& default_algorithm() const noexcept { return default_algorithm_; }
  const Parameters& parameters() const noexcept { return parameters_; }
  const CostModel& cost_model() const noexcept { return model_; }
  std::size_t message_limit() const noexcept { return message_limit_; }

 private:
  Context();
  int keyval_ = MPI_KEYVAL_INVALID;
  std::string default_algorithm_;
  Parameters parameters_;
  CostModel model_;
  std::size_t message_limit_;
  std::vector<Forwarder*> forwarders_;  // not owned: each withdraws itself when done or destroyed
  // The last communicator asked for and the last name resolved, checked before the slower look-ups.
  MPI_Comm last_comm_ = MPI_COMM_NULL;
  CommState* last_state_ = nullptr;
  std::string last_name_;
  const AlgorithmInfo* last_algorithm_ = nullptr;
  bool last_native_ = false;
  std::vector<MPI_Comm> users_;       // communicators holding herald state, freed at MPI_Finalize at the latest
  int finalize_keyval_ = MPI_KEYVAL_INVALID;
  friend int forget_state(MPI_Comm, int, void*, void*);
  friend int release_all(MPI_Comm, int, void*, void*);
};

}  // namespace herald::mpi
