// herald's per-process state: the configuration read once from HERALD_* variables, and for each user
// communicator a private duplicate, a tag sequence and a cache of compiled plans (kept as an MPI attribute, so it
// goes away with the communicator).
//
// Threads: every piece of state here is guarded by the context's one mutex, held only across non-blocking
// work. Under MPI_THREAD_MULTIPLE herald never blocks inside MPI at all (it polls, releasing the mutex between
// polls), so any thread inside herald keeps every broadcast in flight moving and no thread waits on another.
#pragma once

#include "../../core/mpi/check.hpp"
#include "node_memory.hpp"
#include "plan.hpp"

#include <herald/bcast.hpp>
#include <herald/selector.hpp>
#include <herald/simulator.hpp>
#include <herald/trace.hpp>
#include <herald/tuning.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace herald::trace {
class Tracing;
}

namespace herald::mpi {

struct PlanKey {
  const AlgorithmInfo* algorithm;  // nullptr: "auto"
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

// herald's side of one user communicator: its private duplicate, made when the state is, so that herald's
// messages never meet the program's.
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
  // The communicator holds every process in MPI_COMM_WORLD's order, so the launcher's ranks per node apply.
  bool world_shaped() const noexcept { return world_shaped_; }
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
  // The compiled plan for this shape ("auto" resolved), built on first use.
  std::shared_ptr<Plan> plan(const PlanKey& key);
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
  enum class Phase { duplicating, gathering, done } phase_ = Phase::duplicating;
  MPI_Request setup_ = MPI_REQUEST_NULL;
  std::uint64_t own_node_ = 0;
  std::vector<std::uint64_t> node_names_;
  NodeLayout layout_;
  int rank_ = 0, size_ = 1;
  bool world_shaped_ = false;
  int tag_limit_ = 32767;
  std::uint32_t sequence_ = 0;
  std::unordered_map<PlanKey, std::shared_ptr<Plan>, PlanKeyHash> plans_;
  LinkLoads loads_;  // "auto"'s link loads under this communicator's layout
  // Most programs repeat one shape: the last plan is checked before hashing.
  PlanKey last_key_{};
  std::shared_ptr<Plan> last_plan_;
  std::unique_ptr<NodeMemory> memory_;
  bool memory_everywhere_ = false;
  std::vector<int> world_ranks_;  // trace_id() fills it
  std::int64_t trace_id_ = -1;
};

// MPI error codes made for herald's messages (errors.hpp): one per distinct message, up to a cap.
class ErrorCodes {
 public:
  int code(int error_class, const std::string& message);
  std::optional<std::string> message(int code) const;
  void intercepted() noexcept { intercepted_ = true; }

 private:
  static constexpr std::size_t max_codes = 256;
  bool usable();
  bool probed_ = false, kept_ = false, intercepted_ = false;
  std::unordered_map<std::string, int> codes_;
  std::unordered_map<int, int> overflow_;  // class -> its shared code, past the cap
  std::unordered_map<int, std::string> messages_;
};

// A broadcast in flight whose messages herald itself must post as data arrives.
class Forwarder {
 public:
  virtual ~Forwarder() = default;
  // Posts what can be posted without blocking; true once everything is posted.
  virtual bool forward() = 0;
};

// The one process-wide object.
class Context {
 public:
  // Constructed at the first call, after MPI_Init; never throws for a bad setting (check_settings()).
  static Context& get();
  // Guards everything below and every broadcast in flight. Never held across a blocking MPI call that
  // another thread's progress could be needed for.
  [[nodiscard]] std::unique_lock<std::recursive_mutex> lock() { return std::unique_lock(mutex_); }
  // MPI_THREAD_MULTIPLE was granted: herald polls instead of blocking (see above).
  bool multithreaded() const noexcept { return multithreaded_; }
  // Throws the error a malformed HERALD_* setting caused, at every call until the program fixes it.
  void check_settings() const {
    if (settings_error_) throw *settings_error_;
  }
  ErrorCodes& error_codes() noexcept { return error_codes_; }

  // Creates and caches on first use; refuses MPI_COMM_NULL and intercommunicators. Creating is collective
  // over the communicator and returns once every member has joined: call it only where every member makes
  // a blocking call on the communicator in the same place (its first herald call, or attach()). The other
  // broadcasts in flight keep moving meanwhile. The state lives as long as the communicator or the last
  // broadcast that uses it, whichever is longer.
  std::shared_ptr<CommState> state(MPI_Comm user);
  // The state if herald already has one for `user`, else nullptr; never communicates.
  std::shared_ptr<CommState> existing_state(MPI_Comm user);
  // A name from the table, nullptr for "auto" or "native" (`native` says which); throws on unknown names.
  const AlgorithmInfo* algorithm(std::string_view name, bool& native);

  // Broadcasts with messages still to post. While a rank waits for one of them it keeps the others moving,
  // as MPI's progress rule asks: another rank may need this one's forwarding to finish what it waits for.
  void enroll(Forwarder* forwarder) { forwarders_.push_back(forwarder); }
  void withdraw(Forwarder* forwarder) { std::erase(forwarders_, forwarder); }
  bool others_in_flight(const Forwarder* self) const {
    return forwarders_.size() > 1 || (forwarders_.size() == 1 && forwarders_.front() != self);
  }
  bool forwarding() const noexcept { return !forwarders_.empty(); }
  void forward_all();
  // Polls until every broadcast in flight has posted all its messages. Called before a blocking MPI call in
  // a single-threaded process: a peer may wait for one of those broadcasts before it joins the call. Cannot
  // deadlock: a forwarder's data comes from the root through forwarders that all finish before they block.
  void finish_forwarding() {
    while (forwarding()) forward_all();
  }

  // A communicator of this process alone whose errors return: for local checks such as whether a datatype
  // is committed.
  MPI_Comm self() const noexcept { return self_.get(); }
  const std::string& default_algorithm() const noexcept { return default_algorithm_; }
  const Parameters& parameters() const noexcept { return parameters_; }
  const CostModel& cost_model() const noexcept { return model_; }
  // Ranks per node for communicators shaped like MPI_COMM_WORLD: the tuning file's, when the job spans
  // nodes (0: one node). The same on every rank, as every rank's schedule must be.
  int job_node_size() const noexcept { return job_node_size_; }
  // HERALD_EMULATE_NODES=<k>[,cyclic]: nodes made up from MPI_COMM_WORLD ranks instead of host names, for
  // tests and simulation; 0 when unset.
  struct EmulatedNodes {
    int size = 0;
    bool cyclic = false;
  };
  EmulatedNodes emulated_nodes() const noexcept { return emulated_nodes_; }
  // The measured cell of the tuning file (HERALD_TUNING_FILE) "auto" takes for `ranks` and `bytes`, or
  // nullptr where the file has none (or there is no file): the cost model decides there.
  // Remembered per shape: a broadcast's own cost must not grow with the file.
  const TuningCell* measured(int ranks, std::size_t bytes);
  // HERALD_VERBOSE=1: prints to stderr, once per (ranks, bytes), what "auto" runs and why: the measured
  // cell, or the cost model's prediction and runners-up. Called on the communicator's rank 0 only.
  void explain(const Problem& problem, const TuningCell* cell);
  std::size_t message_limit() const noexcept { return message_limit_; }
  // Node rings this process may map at once: each is 1 MiB of /dev/shm per node, which a program making
  // many communicators would otherwise fill, to its MPI library's cost. Past it, broadcasts on new
  // communicators carry their steps within a node as messages.
  static constexpr int max_rings = 16;
  bool take_ring() noexcept { return rings_ < max_rings ? (++rings_, true) : false; }
  void give_ring() noexcept { --rings_; }
  const SendWindow& send_window() const noexcept { return window_; }

  // The pass-through: where a call goes to the MPI's own broadcast ("native", named or the tuning file's
  // choice), herald's whole cost is its checks and look-ups, which cost as much as a small MPI_Bcast. So
  // the last such call is remembered once every check has passed, and an identical repeat (communicator,
  // bytes, root, options) skips them: no lock, no look-up, no string built. Only where calls are serialized
  // (below MPI_THREAD_MULTIPLE), with no broadcast of herald's in flight (they would need forwarding) and
  // no trace open (it records every call).
  // Returns the private communicator to broadcast the bytes on, or MPI_COMM_NULL to take the long way.
  MPI_Comm repeat_passthrough(MPI_Comm user, std::size_t bytes, int root, const Options& options) noexcept {
    const Passthrough& p = passthrough_;
    if (user != p.user || user == MPI_COMM_NULL || bytes != p.bytes || root != p.root || multithreaded_ ||
        !forwarders_.empty() || recorder_ || options.parameters != p.parameters || options.algorithm.size() != p.algorithm.size())
      return MPI_COMM_NULL;
    // Names are a few characters: compared here rather than by a call to memcmp.
    for (std::size_t i = 0; i < p.algorithm.size(); ++i)
      if (options.algorithm[i] != p.algorithm[i]) return MPI_COMM_NULL;
    p.state->next_tag();  // in step with ranks that took the long way, which drew a tag
    return p.state->comm();
  }
  // The size of `type` if it is the predefined, contiguous type last remembered, else 0.
  std::size_t plain_size(MPI_Datatype type) const noexcept {
    return type == plain_type_ && !multithreaded_ ? plain_type_size_ : 0;
  }
  void remember_plain(MPI_Datatype type, std::size_t size) noexcept {
    if (multithreaded_) return;
    plain_type_ = type;
    plain_type_size_ = size;
  }
  // Called by a call that passed every check and went to MPI's broadcast as one message.
  void remember_passthrough(CommState& state, std::size_t bytes, int root, const Options& options);

  // The open trace (herald/tracing.hpp), if any, and its recorder, which every layer tests before recording.
  trace::Tracing* tracing() const noexcept { return tracing_.get(); }
  trace::Recorder* recorder() const noexcept { return recorder_; }
  void open_tracing(std::unique_ptr<trace::Tracing> tracing);
  // How many communicators of these members (a hash of their world ranks) had trace ids before: the same
  // on every member where they make communicators in the same order, as MPI asks.
  std::int64_t communicators_like(std::uint64_t members) { return same_members_[members]++; }
  std::unique_ptr<trace::Tracing> close_tracing() noexcept;

 private:
  Context();
  std::recursive_mutex mutex_;  // recursive: MPI may call back into herald (attribute deletion) under it
  bool multithreaded_ = false;
  int keyval_ = MPI_KEYVAL_INVALID;
  std::string default_algorithm_;
  Parameters parameters_;
  CostModel model_;
  std::optional<Tuning> tuning_;
  TuningFit fit_;  // how this job uses tuning_
  std::unordered_map<std::uint64_t, const TuningCell*> measured_;  // (ranks, bytes) -> cell or nullptr
  std::uint64_t last_measured_key_ = ~std::uint64_t{0};
  const TuningCell* last_measured_ = nullptr;
  int job_node_size_ = 0;
  EmulatedNodes emulated_nodes_{};
  bool verbose_ = false;
  std::set<std::pair<int, std::size_t>> explained_;  // (ranks, bytes) explain() has printed
  SendWindow window_;
  std::size_t message_limit_;
  int rings_ = 0;  // node rings mapped (CommState::open_node_memory)
  std::optional<Error> settings_error_;
  ErrorCodes error_codes_;
  Communicator self_;
  std::vector<Forwarder*> forwarders_;  // not owned: each withdraws itself when done or destroyed
  // The last communicator asked for, checked before MPI's attribute look-up (most programs use one).
  MPI_Comm last_comm_ = MPI_COMM_NULL;
  std::shared_ptr<CommState> last_state_;
  // The last name resolved, checked before the table look-up.
  std::string last_name_;
  const AlgorithmInfo* last_algorithm_ = nullptr;
  bool last_native_ = false;
  std::vector<MPI_Comm> users_;       // communicators holding herald state, freed at MPI_Finalize at the latest
  struct Passthrough {
    MPI_Comm user = MPI_COMM_NULL;
    CommState* state = nullptr;  // the attribute keeps it while `user` lives; forget_state() clears this
    std::size_t bytes = 0;
    int root = 0;
    std::string algorithm;
    Parameters parameters;
  } passthrough_;
  MPI_Datatype plain_type_ = MPI_DATATYPE_NULL;
  std::size_t plain_type_size_ = 0;
  int finalize_keyval_ = MPI_KEYVAL_INVALID;
  std::unique_ptr<trace::Tracing> tracing_;
  trace::Recorder* recorder_ = nullptr;
  std::unordered_map<std::uint64_t, std::int64_t> same_members_;
  friend int forget_state(MPI_Comm, int, void*, void*);
  friend int release_all(MPI_Comm, int, void*, void*);
};

// This process's node, hashed: what MPI_Get_processor_name gives, which names the host on every MPI we know
// of (SMPI: the simulated host). 64 bits make two hosts of one job sharing a hash a practical impossibility.
// Under HERALD_EMULATE_NODES, the node of this rank of MPI_COMM_WORLD instead.
std::uint64_t node_name(Context::EmulatedNodes emulated);

// True once MPI_Finalize has run: nothing may call MPI then, not even a destructor at exit.
bool finalized() noexcept;

}  // namespace herald::mpi
