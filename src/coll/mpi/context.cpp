#include "context.hpp"

#include "tuning_file.hpp"

#include "../../trace/mpi/tracing.hpp"

#include <herald/coll_settings.hpp>
#include <herald/config.hpp>
#include <herald/selector.hpp>

#include <cstdio>
#include <functional>
#include <thread>

namespace herald::mpi {
namespace {

// Plans are small, but a program sweeping sizes would grow the cache without bound.
constexpr std::size_t max_plans = 64;

// The attribute's value: one reference to the state; broadcasts in flight hold others.
using StateHandle = std::shared_ptr<CommState>;

}  // namespace

bool finalized() noexcept {
  int done = 0;
  MPI_Finalized(&done);
  return done != 0;
}

// Runs when the user's communicator is freed (or at MPI_Finalize): drops the attribute's reference.
int forget_state(MPI_Comm user, int, void* attribute, void*) {
  Context& context = Context::get();
  const auto lock = context.lock();
  std::erase(context.users_, user);
  if (user == context.last_comm_) {  // a later communicator may reuse the handle
    context.last_comm_ = MPI_COMM_NULL;
    context.last_state_.reset();
  }
  if (user == context.passthrough_.user) context.passthrough_ = {};
  delete static_cast<StateHandle*>(attribute);
  return MPI_SUCCESS;
}

// Runs at the start of MPI_Finalize (attributes of MPI_COMM_SELF go first): frees the duplicates still
// cached on communicators the program never freed, such as MPI_COMM_WORLD, and the keyvals.
int release_all(MPI_Comm, int, void*, void*) {
  Context& context = Context::get();
  const auto lock = context.lock();
  // A trace still open ends here, where every process meets (MPI_Finalize is collective).
  if (std::unique_ptr<trace::Tracing> open = context.close_tracing()) {
    try {
      open->finish();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "herald: the trace could not be written: %s\n", e.what());
    }
  }
#ifdef SMPI_H
  // SimGrid's SMPI fails MPI_Comm_delete_attr once MPI_Finalize has begun; the simulation ends there anyway.
  context.users_.clear();
#endif
  while (!context.users_.empty()) {
    const MPI_Comm user = context.users_.back();
    MPI_Comm_delete_attr(user, context.keyval_);  // runs forget_state, which drops it from the list
    std::erase(context.users_, user);             // in case MPI refused
  }
  MPI_Comm_free_keyval(&context.keyval_);
  MPI_Comm_free_keyval(&context.finalize_keyval_);
  return MPI_SUCCESS;
}

std::size_t PlanKeyHash::operator()(const PlanKey& k) const noexcept {
  std::size_t h = std::hash<const void*>{}(k.algorithm);
  auto mix = [&h](std::size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
  mix(static_cast<std::size_t>(k.root));
  mix(k.bytes);
  mix(k.parameters.segment);
  mix(static_cast<std::size_t>(k.parameters.fanout) << 32 | static_cast<unsigned>(k.parameters.radix));
  mix(static_cast<std::size_t>(k.parameters.node_size) << 9 | static_cast<std::size_t>(k.parameters.leaders) << 1 |
      static_cast<std::size_t>(k.node_memory));
  return h;
}

namespace {

MPI_Comm intracommunicator(MPI_Comm user) {
  int inter = 0;
  HERALD_MPI(MPI_Comm_test_inter(user, &inter));
  if (inter) throw Error(Errc::invalid_comm, "intercommunicators are not supported");
  return user;
}

}  // namespace

CommState::CommState(MPI_Comm user) : user_(user) {
  HERALD_MPI(MPI_Comm_rank(intracommunicator(user), &rank_));
  HERALD_MPI(MPI_Comm_size(user, &size_));
  int same = MPI_UNEQUAL;
  HERALD_MPI(MPI_Comm_compare(user, MPI_COMM_WORLD, &same));
  world_shaped_ = same == MPI_IDENT || same == MPI_CONGRUENT;
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
  if (memory_) Context::get().give_ring();
}

std::uint64_t node_name(Context::EmulatedNodes emulated) {
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
// broadcasts while the state is made (Context::state()). The host name gives the same nodes, exchanged by a
// nonblocking allgather on the private duplicate, so nothing of it meets the program's messages.
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
      own_node_ = node_name(Context::get().emulated_nodes());
      node_names_.assign(static_cast<std::size_t>(size_), 0);
      HERALD_MPI(PMPI_Iallgather(&own_node_, 1, MPI_UINT64_T, node_names_.data(), 1, MPI_UINT64_T, dup_.get(),
                                 &setup_));
      phase_ = Phase::gathering;
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
  const Context& context = Context::get();
  Problem problem{.ranks = size_, .root = key.root, .bytes = key.bytes, .parameters = key.parameters, .layout = layout_,
                  .node_memory = key.node_memory};
  const AlgorithmInfo* algorithm = key.algorithm;
  double predicted = 0;
  if (!algorithm) {  // "auto": the algorithm and segment size the cost model prices best
    const Choice choice = choose_algorithm(problem, context.cost_model(), &loads_);
    algorithm = choice.algorithm;
    problem.parameters = choice.parameters;
    predicted = choice.seconds;
  }
  auto plan = std::make_shared<Plan>(*algorithm, problem, rank_, context.message_limit());
  plan->predicted = predicted;
  if (plans_.size() >= max_plans) plans_.clear();  // in-flight calls keep their plans alive
  plans_.emplace(key, plan);
  return last_plan_ = std::move(plan);
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
  const std::int64_t earlier = Context::get().communicators_like(hash);
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
  Context& context = Context::get();
  const bool allowed = context.take_ring();
  memory_ = NodeMemory::open(dup_.get(), layout_, rank_, node_name({}), wait, allowed, memory_everywhere_);
  if (allowed && !memory_) context.give_ring();
#endif
}

// Out of line: the one instance lives in libherald, whoever includes this header.
Context& Context::get() {
  static Context context;
  return context;
}

Context::Context() : message_limit_(max_message_bytes) {
  try {
    require_known_settings();
    default_algorithm_ = environment("HERALD_ALGORITHM").value_or("auto");
    if (default_algorithm_ != "auto" && default_algorithm_ != "native") find_algorithm(default_algorithm_);
    parameters_ = parameters_from_environment();
    if (auto job_tuning = tuning_from_environment()) {
      tuning_ = std::move(job_tuning->tuning);
      fit_ = std::move(job_tuning->fit);
    }
    // A job across nodes prices every flat algorithm with the network's model; the hierarchical ones price
    // their hops within a node apart. A file measured on one node has no network model: herald's defaults
    // (or a preset) stand in for it.
    if (tuning_ && fit_.spans_nodes) job_node_size_ = fit_.node_size;
    // A measured file wins over a preset; without either, the defaults (cost_model_from_environment()).
    CostModel base = tuning_ ? tuning_->intra_node : cost_model_from_environment();
    if (tuning_ && fit_.spans_nodes) {
      base = tuning_->inter_node ? *tuning_->inter_node : cost_model_from_environment();
      base.node_alpha = tuning_->intra_node.alpha;
      base.node_beta = tuning_->intra_node.beta;
    }
    model_ = cost_model_from_environment(base);
    verbose_ = environment_switch("HERALD_VERBOSE");
    if (auto v = environment("HERALD_EMULATE_NODES")) {
      const auto comma = v->find(',');
      const std::string placement = comma == std::string::npos ? "" : v->substr(comma + 1);
      if (placement != "" && placement != "cyclic" && placement != "blocks")
        throw Error(Errc::invalid_argument,
                    "HERALD_EMULATE_NODES '" + *v + "': expected <ranks per node>[,blocks] or <nodes>,cyclic");
      emulated_nodes_.size = static_cast<int>(parse_count(v->substr(0, comma), "HERALD_EMULATE_NODES"));
      emulated_nodes_.cyclic = placement == "cyclic";
      if (emulated_nodes_.size < 1)
        throw Error(Errc::invalid_argument, "HERALD_EMULATE_NODES '" + *v + "' must name at least 1");
    }
    window_ = send_window_from_environment();
    if (auto v = environment("HERALD_MAX_MESSAGE_BYTES")) {
      message_limit_ = parse_bytes(*v, "HERALD_MAX_MESSAGE_BYTES");
      if (message_limit_ == 0 || message_limit_ > max_message_bytes)
        throw Error(Errc::invalid_argument, "HERALD_MAX_MESSAGE_BYTES '" + *v + "' must be in 1.." +
                                                std::to_string(max_message_bytes));
    }
  } catch (const Error& e) {
    settings_error_ = e;
  }
  int level = MPI_THREAD_SINGLE;
  HERALD_MPI(MPI_Query_thread(&level));
  multithreaded_ = level == MPI_THREAD_MULTIPLE;
  self_ = Communicator(MPI_COMM_SELF);
  HERALD_MPI(MPI_Comm_set_errhandler(self_.get(), MPI_ERRORS_RETURN));
  HERALD_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, forget_state, &keyval_, nullptr));
  HERALD_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, release_all, &finalize_keyval_, nullptr));
  HERALD_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, finalize_keyval_, nullptr));
}

void Context::open_tracing(std::unique_ptr<trace::Tracing> tracing) {
  tracing_ = std::move(tracing);
  recorder_ = tracing_ ? &tracing_->recorder() : nullptr;
}

std::unique_ptr<trace::Tracing> Context::close_tracing() noexcept {
  recorder_ = nullptr;
  return std::move(tracing_);
}

void Context::forward_all() {
  // forward() never enrolls or withdraws, so the list is stable while it runs.
  std::erase_if(forwarders_, [](Forwarder* f) { return f->forward(); });
}

std::shared_ptr<CommState> Context::state(MPI_Comm user) {
  if (user == MPI_COMM_NULL) throw Error(Errc::invalid_comm, "the communicator is MPI_COMM_NULL");
  if (std::shared_ptr<CommState> found = existing_state(user)) {
    last_comm_ = user;
    return last_state_ = std::move(found);
  }
  auto handle = std::make_unique<StateHandle>(std::make_shared<CommState>(user));
  // Every member is in this call: the duplication completes here, while this rank keeps forwarding what
  // its other broadcasts owe to ranks that may not have reached the call yet. Under MPI_THREAD_MULTIPLE the
  // lock is let go between polls (callers hold it once there): another thread may be making a state for
  // another communicator, which the peers of this one can reach only after it.
  const auto poll = [this] {
    forward_all();
    if (multithreaded_) {
      mutex_.unlock();
      std::this_thread::yield();
      mutex_.lock();
    }
  };
  while (!(*handle)->ready()) poll();
  // Node memory is made here too, where every member is: any later call, blocking or not, may use it.
  (*handle)->open_node_memory([&](MPI_Request& request) {
    for (int done = 0;;) {
      HERALD_MPI(PMPI_Test(&request, &done, MPI_STATUS_IGNORE));
      if (done) return;
      poll();
    }
  });
  HERALD_MPI(MPI_Comm_set_attr(user, keyval_, handle.get()));
  users_.push_back(user);
  last_comm_ = user;
  last_state_ = *handle;
  return *handle.release();  // the attribute owns the handle from here on
}

std::shared_ptr<CommState> Context::existing_state(MPI_Comm user) {
  if (user == MPI_COMM_NULL) return nullptr;
  if (user == last_comm_) return last_state_;
  void* value = nullptr;
  int found = 0;
  HERALD_MPI(MPI_Comm_get_attr(user, keyval_, &value, &found));
  return found ? *static_cast<StateHandle*>(value) : nullptr;
}

const TuningCell* Context::measured(int ranks, std::size_t bytes) {
  if (!tuning_) return nullptr;
  // Ranks fit 24 bits and sizes 40 here; a larger shape is looked up each time.
  if (ranks >= (1 << 24) || bytes >= (std::uint64_t{1} << 40)) return find_cell(*tuning_, fit_, ranks, bytes);
  const std::uint64_t key = static_cast<std::uint64_t>(ranks) << 40 | bytes;
  if (key == last_measured_key_) return last_measured_;
  auto it = measured_.find(key);
  if (it == measured_.end()) {
    if (measured_.size() >= 1024) measured_.clear();  // a program sweeping sizes must not grow it forever
    it = measured_.emplace(key, find_cell(*tuning_, fit_, ranks, bytes)).first;
  }
  last_measured_key_ = key;
  return last_measured_ = it->second;
}

void Context::explain(const Problem& problem, const TuningCell* cell) {
  if (!verbose_ || problem.ranks < 2 || problem.bytes == 0) return;  // nothing moves: nothing to choose
  if (!explained_.insert({problem.ranks, problem.bytes}).second) return;
  const auto parameters = [](const Parameters& p) {
    std::string text;
    if (p.segment) text += " segment " + std::to_string(p.segment);
    if (p.fanout) text += " fanout " + std::to_string(p.fanout);
    if (p.radix) text += " radix " + std::to_string(p.radix);
    if (p.node_size) text += " node_size " + std::to_string(p.node_size);
    if (p.leaders != LeaderStage::unset) text += " leaders " + std::string(leader_stage_name(p.leaders));
    return text;
  };
  if (cell) {
    std::fprintf(stderr, "herald auto: %d ranks, %zu bytes: %s%s, measured %.2f us (native %.2f us) for %d ranks and %zu bytes in the tuning file\n",
                 problem.ranks, problem.bytes, cell->algorithm.c_str(), parameters(cell->parameters).c_str(),
                 cell->seconds * 1e6, cell->native_seconds * 1e6, cell->ranks, cell->bytes);
    return;
  }
  const std::vector<Choice> ranked = rank_algorithms(problem, model_);
  std::string text = "herald auto: " + std::to_string(problem.ranks) + " ranks, " + std::to_string(problem.bytes) +
                     " bytes: " + std::string(ranked.front().algorithm->name) + parameters(ranked.front().parameters);
  char figures[160];
  std::snprintf(figures, sizeof figures, ", predicted %.2f us (alpha %.3g s, beta %.3g s/byte, gap %.3g s%s); then",
                ranked.front().seconds * 1e6, model_.alpha, model_.beta, model_.port_seconds(),
                tuning_ ? ", from the tuning file" : "");
  text += figures;
  for (std::size_t i = 1; i < ranked.size() && i < 4; ++i) {
    std::snprintf(figures, sizeof figures, "%s %s %.2f us", i > 1 ? "," : "", std::string(ranked[i].algorithm->name).c_str(),
                  ranked[i].seconds * 1e6);
    text += figures;
  }
  std::fprintf(stderr, "%s\n", text.c_str());
}

void Context::remember_passthrough(CommState& state, std::size_t bytes, int root, const Options& options) {
  if (multithreaded_ || bytes == 0 || bytes > max_message_bytes) return;
  passthrough_ = {.user = state.user(), .state = &state, .bytes = bytes, .root = root,
                  .algorithm = std::string(options.algorithm), .parameters = options.parameters};
}

const AlgorithmInfo* Context::algorithm(std::string_view name, bool& native) {
  if (name.empty()) name = default_algorithm_;
  if (name != last_name_) {
    last_native_ = name == "native";
    last_algorithm_ = (last_native_ || name == "auto") ? nullptr : &find_algorithm(name);
    last_name_ = name;
  }
  native = last_native_;
  return last_algorithm_;
}

}  // namespace herald::mpi
