#include "comm_state.hpp"

#include "context.hpp"

#include <functional>

namespace herald::mpi {
namespace {

// Plans are small, but a program sweeping sizes would grow the cache without bound.
constexpr std::size_t max_plans = 64;

MPI_Comm intracommunicator(MPI_Comm user) {
  int inter = 0;
  HERALD_MPI(MPI_Comm_test_inter(user, &inter));
  if (inter) throw Error(Errc::invalid_comm, "intercommunicators are not supported");
  return user;
}

}  // namespace

std::size_t PlanKeyHash::operator()(const PlanKey& k) const noexcept {
  std::size_t h = std::hash<const void*>{}(k.algorithm);
  auto mix = [&h](std::size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
  mix(static_cast<std::size_t>(k.root));
  mix(k.bytes);
  // Unset fields hash as 0, which no set field holds.
  const Parameters& p = k.parameters;
  mix(p.segment.value_or(0));
  mix(static_cast<std::size_t>(p.fanout.value_or(0)) << 32 | static_cast<unsigned>(p.radix.value_or(0)));
  mix(static_cast<std::size_t>(p.node_size.value_or(0)) << 9 |
      static_cast<std::size_t>(p.leaders.value_or(LeaderStage{})) << 1 | static_cast<std::size_t>(k.node_memory));
  return h;
}

CommState::CommState(MPI_Comm user) : user_(user) {
  HERALD_MPI(MPI_Comm_rank(intracommunicator(user), &rank_));
  HERALD_MPI(MPI_Comm_size(user, &size_));
  // MPI_TAG_UB is the same on every communicator; MPI_COMM_WORLD always has it, even before the duplicate.
  int* tag_ub = nullptr;
  int found = 0;
  HERALD_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &found));
  if (found && tag_ub != nullptr && *tag_ub > 0) tag_limit_ = *tag_ub;
  dup_.start_dup(user, setup_);
}

CommState::~CommState() {
  // Only a failed creation leaves the duplication running; it cannot be freed before it ends.
  if (setup_ != MPI_REQUEST_NULL && !finalized()) PMPI_Wait(&setup_, MPI_STATUS_IGNORE);
  // An agreement every member started: every member completes it here (a nonblocking collective may not be
  // freed).
  for (auto& [size, trial] : trials_)
    if (trial.agreement != MPI_REQUEST_NULL && !finalized()) PMPI_Wait(&trial.agreement, MPI_STATUS_IGNORE);
  if (memory_) Context::get().states().give_ring();
}

std::uint64_t node_name(EmulatedNodes emulated) {
  if (emulated.size > 0) {
    int world_rank = 0;
    HERALD_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &world_rank));
    return static_cast<std::uint64_t>(emulated.cyclic ? world_rank % emulated.size : world_rank / emulated.size);
  }
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  HERALD_MPI(MPI_Get_processor_name(name, &length));
  std::uint64_t h = 14695981039346656037ULL;  // FNV-1a
  for (int i = 0; i < length; ++i) h = (h ^ static_cast<unsigned char>(name[i])) * 1099511628211ULL;
  return h;
}

// Why not MPI_Comm_split_type(MPI_COMM_TYPE_SHARED): it blocks, and this rank must keep forwarding its other
// broadcasts while the state is made (Context::state()). The host name gives the same nodes, gathered to rank
// 0 and broadcast back, nonblocking, on the private duplicate, so nothing of it meets the program's messages.
// (Not an allgather: SimGrid's SMPI runs MPI_Iallgather as P (P - 1) messages at once, each matched in a
// queue as long, minutes at 1024 simulated ranks; gather and broadcast are 2 (P - 1).)
bool CommState::ready() {
  while (phase_ != Phase::done) {
    if (setup_ != MPI_REQUEST_NULL) {
      int done = 0;
      HERALD_MPI(PMPI_Test(&setup_, &done, MPI_STATUS_IGNORE));
      if (!done) return false;
    }
    if (phase_ == Phase::duplicating) {
      // herald reports its own MPI failures as herald::Error; the user's handler applies at the API boundary.
      HERALD_MPI(MPI_Comm_set_errhandler(dup_.get(), MPI_ERRORS_RETURN));
      own_node_ = node_name(Context::get().settings().emulated_nodes());
      node_names_.assign(static_cast<std::size_t>(size_), 0);
      HERALD_MPI(PMPI_Igather(&own_node_, 1, MPI_UINT64_T, node_names_.data(), 1, MPI_UINT64_T, 0, dup_.get(),
                              &setup_));
      phase_ = Phase::gathering;
    } else if (phase_ == Phase::gathering) {
      HERALD_MPI(PMPI_Ibcast(node_names_.data(), size_, MPI_UINT64_T, 0, dup_.get(), &setup_));
      phase_ = Phase::spreading;
    } else {
      // A node is named by its lowest rank.
      std::unordered_map<std::uint64_t, int> lowest;
      std::vector<int> node_of(node_names_.size());
      for (std::size_t r = 0; r < node_names_.size(); ++r)
        node_of[r] = lowest.try_emplace(node_names_[r], static_cast<int>(r)).first->second;
      layout_ = NodeLayout(node_of);
      node_names_ = {};
      phase_ = Phase::done;
    }
  }
  return true;
}

std::shared_ptr<Plan> CommState::plan(const PlanKey& key) {
  if (last_plan_ && key == last_key_) return last_plan_;
  last_key_ = key;
  if (auto it = plans_.find(key); it != plans_.end()) return last_plan_ = it->second;
  const Problem problem{.ranks = size_, .root = key.root, .bytes = key.bytes, .parameters = key.parameters,
                        .layout = layout_, .node_memory = key.node_memory};
  auto plan = std::make_shared<Plan>(*key.algorithm, problem, rank_, Context::get().settings().message_limit());
  if (plans_.size() >= max_plans) plans_.clear();  // in-flight calls keep their plans alive
  plans_.emplace(key, plan);
  return last_plan_ = std::move(plan);
}

std::shared_ptr<const Decided> CommState::decide(const PlanKey& key) {
  if (last_decided_ && key == last_auto_key_) return last_decided_;
  last_auto_key_ = key;
  if (auto it = decided_.find(key); it != decided_.end()) return last_decided_ = it->second;
  Context& context = Context::get();
  const AutoQuestion question{
      .problem = {.ranks = size_, .root = key.root, .bytes = key.bytes, .parameters = key.parameters,
                  .layout = layout_, .node_memory = key.node_memory},
      .model = context.tuning().cost_model(),
      .cell = context.tuning().measured(size_, key.bytes),
      .native_below = context.settings().native_below(),
      .loads = &loads_,
      // HERALD_VERBOSE names the runners-up, priced with the same loads; a trial measures the first.
      .rank_alternatives = context.settings().verbose() || learning()};
  auto decided = std::make_shared<Decided>();
  decided->decision = herald::decide(question);
  const Decision& d = decided->decision;
  const bool moves = size_ > 1 && key.bytes > 0;
  auto candidate = [&](bool native, const Choice& c, double predicted) {
    Candidate made{.native = native, .algorithm = c.algorithm, .parameters = c.parameters, .plan = nullptr};
    if (!native && moves) {
      Problem problem = question.problem;
      problem.parameters = c.parameters;
      made.plan = std::make_shared<Plan>(*c.algorithm, problem, rank_, context.settings().message_limit());
      made.plan->predicted = predicted;
    }
    decided->candidates.push_back(std::move(made));
  };
  const bool priced = d.because == Because::cost_model || d.because == Because::node_memory;
  candidate(d.native, d.choice, priced ? d.choice.seconds : 0);
  if (learning() && moves) {
    // The model's runner-up (its cheapest, where auto kept MPI_Bcast), then MPI_Bcast itself.
    if (!d.alternatives.empty()) candidate(false, d.alternatives.front(), d.alternatives.front().seconds);
    if (!d.native) candidate(true, {}, 0);
  }
  if (rank_ == 0) context.explain(question, d);
  if (decided_.size() >= max_plans) decided_.clear();  // in-flight calls keep theirs alive
  decided_.emplace(key, decided);
  return last_decided_ = std::move(decided);
}

bool CommState::learning() const { return Context::get().settings().learn(); }

int CommState::learn(std::size_t bytes, bool blocking, std::span<const Candidate> candidates, bool& counted) {
  counted = false;
  if (!learning()) return 0;
  const int size = size_class(bytes);
  auto it = trials_.find(size);
  if (it == trials_.end()) {
    if (!blocking) return 0;  // nothing learned yet
    // The class's first call says what its calls' candidates are (the same on every rank).
    Trial trial{.learner = Learner(static_cast<int>(candidates.size())), .described = {}, .mine = {}, .slowest = {}};
    for (const Candidate& c : candidates)
      trial.described.push_back({.ranks = size_, .bytes = bytes,
                                 .algorithm = c.native ? "native" : std::string(c.algorithm->name),
                                 .parameters = c.native ? Parameters{} : c.parameters});
    it = trials_.try_emplace(size, std::move(trial)).first;
  }
  Trial& trial = it->second;
  Learner& learner = trial.learner;
  if (!blocking) return learner.phase() == Learner::Phase::learned ? learner.winner() : 0;
  counted = learner.phase() != Learner::Phase::learned;
  if (learner.trial_done()) {
    // Every rank's median per candidate, reduced by the slowest, while later calls run: one nonblocking
    // collective on herald's own communicator, started at the same call on every rank.
    trial.mine = learner.figures();
    trial.slowest.assign(trial.mine.size(), 0.0);
    HERALD_MPI(PMPI_Iallreduce(trial.mine.data(), trial.slowest.data(), static_cast<int>(trial.mine.size()),
                               MPI_DOUBLE, MPI_MAX, dup_.get(), &trial.agreement));
  }
  const int candidate = learner.next();
  if (!learner.agreement_due()) return candidate;
  HERALD_MPI(PMPI_Wait(&trial.agreement, MPI_STATUS_IGNORE));
  const int winner = learner.agreed(trial.slowest);
  TuningCell cell = trial.described.at(static_cast<std::size_t>(winner));
  cell.seconds = trial.slowest.at(static_cast<std::size_t>(winner));
  for (std::size_t c = 0; c < trial.described.size(); ++c)
    if (trial.described[c].algorithm == "native") cell.native_seconds = trial.slowest[c];
  Context& context = Context::get();
  context.tuning().learned(cell);
  if (rank_ == 0 && context.settings().verbose()) {
    // What the trial measured, beside what auto decided: the slowest rank's median per candidate.
    std::string line = "herald learned: " + std::to_string(size_) + " ranks, " + std::to_string(bytes) + " bytes:";
    for (std::size_t c = 0; c < trial.described.size(); ++c) {
      char figure[96];
      std::snprintf(figure, sizeof figure, "%s %s %.2f us", c == 0 ? "" : ",", trial.described[c].algorithm.c_str(),
                    trial.slowest[c] * 1e6);
      line += figure;
    }
    std::fprintf(stderr, "%s; keeps %s\n", line.c_str(), cell.algorithm.c_str());
  }
  return winner;
}

void CommState::learned_time(std::size_t bytes, double seconds) {
  if (const auto it = trials_.find(size_class(bytes)); it != trials_.end()) it->second.learner.record(seconds);
}

std::int64_t CommState::trace_id() {
  if (trace_id_ >= 0) return trace_id_;
  MPI_Group mine = MPI_GROUP_NULL, world = MPI_GROUP_NULL;
  HERALD_MPI(PMPI_Comm_group(user_, &mine));
  HERALD_MPI(PMPI_Comm_group(MPI_COMM_WORLD, &world));
  std::vector<int> ranks(static_cast<std::size_t>(size_));
  for (int r = 0; r < size_; ++r) ranks[static_cast<std::size_t>(r)] = r;
  world_ranks_.resize(ranks.size());
  HERALD_MPI(PMPI_Group_translate_ranks(mine, size_, ranks.data(), world, world_ranks_.data()));
  PMPI_Group_free(&mine);
  PMPI_Group_free(&world);
  std::uint64_t hash = 1469598103934665603ULL;  // FNV-1a over the members
  for (int r : world_ranks_) hash = (hash ^ static_cast<std::uint32_t>(r)) * 1099511628211ULL;
  const std::int64_t earlier = Context::get().states().communicators_like(hash);
  trace_id_ = static_cast<std::int64_t>((hash ^ static_cast<std::uint64_t>(earlier) * 0x9e3779b97f4a7c15ULL) >> 33);
  return trace_id_;
}

int CommState::world_rank(int rank) {
  trace_id();
  return world_ranks_.at(static_cast<std::size_t>(rank));
}

void CommState::open_node_memory([[maybe_unused]] const std::function<void(MPI_Request&)>& wait) {
#ifndef SMPI_H  // simulated hosts share no memory worth modelling: the steps stay messages there
  if (layout_.largest_node() < 2) return;
  StateCache& states = Context::get().states();
  const bool allowed = states.take_ring();
  memory_ = NodeMemory::open(dup_.get(), layout_, rank_, node_name({}), wait, allowed, memory_everywhere_);
  if (allowed && !memory_) states.give_ring();
#endif
}

}  // namespace herald::mpi
