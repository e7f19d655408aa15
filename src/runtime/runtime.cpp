#include "head.hpp"
#include "idle.hpp"
#include "internal_kernels.hpp"
#include "lowering.hpp"
#include "replicated.hpp"
#include "runtime_settings.hpp"

#include <cmath>
#include <thread>
#include "worker.hpp"

#include <herald/config.hpp>
#include <herald/settings.hpp>
#include <herald/selector.hpp>
#include <herald/tracing.hpp>

#include "../core/mpi/check.hpp"
#include <herald/dyn/channel.hpp>
#include "protocol/post.hpp"

#include <sched.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <optional>
#include <string>
#include <thread>
#include <utility>

namespace herald::runtime {
namespace {

// Each Runtime's handles carry its number, so a handle of another runtime is refused.
std::atomic<std::uint64_t> runtimes_made{0};

// The names of every rank's kernels, on every rank (collective).
std::vector<std::vector<std::string>> gather_kernel_names(MPI_Comm comm, const std::vector<detail::KernelEntry>& kernels) {
  detail::msg::KernelNames mine_names;
  for (const auto& k : kernels) mine_names.names.push_back(k.name);
  const std::vector<std::byte> encoded = detail::msg::encode(mine_names);
  const int mine = static_cast<int>(encoded.size());
  int size = 1;
  MPI_Comm_size(comm, &size);
  std::vector<int> lengths(static_cast<std::size_t>(size));
  HERALD_MPI(MPI_Allgather(&mine, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm));
  std::vector<int> offsets(lengths.size(), 0);
  for (std::size_t r = 1; r < lengths.size(); ++r) offsets[r] = offsets[r - 1] + lengths[r - 1];
  std::vector<std::byte> all(static_cast<std::size_t>(offsets.back() + lengths.back()));
  HERALD_MPI(MPI_Allgatherv(encoded.data(), mine, MPI_BYTE, all.data(), lengths.data(), offsets.data(), MPI_BYTE, comm));
  std::vector<std::vector<std::string>> names(lengths.size());
  for (std::size_t r = 0; r < lengths.size(); ++r)
    names[r] = detail::msg::decode<detail::msg::KernelNames>(
                   std::span<const std::byte>(all).subspan(static_cast<std::size_t>(offsets[r]),
                                                           static_cast<std::size_t>(lengths[r])))
                   .names;
  return names;
}

// Under head control, the rank that runs the program and plans; the other ranks are its workers.
constexpr int head_rank = 0;

// Replicated control's report: a failure here is told to every rank by this rank's control, which exists
// once the program runs. After the program's part no rank listens for failures: as a worker failing in the
// head's shutdown, the run ends.
class ToOtherRanks final : public detail::Report {
 public:
  ToOtherRanks(dyn::Channel& channel, detail::ReplicatedState*& control) : channel_(channel), control_(control) {}
  void failure(std::uint64_t task, std::string_view kernel, const std::string& what) override {
    if (!control_) detail::abort_run(channel_.comm(), "rank " + std::to_string(channel_.rank()) + ": " + what);
    control_->failed_here(task, kernel, what);
  }
  bool tracks_tasks() const noexcept override { return false; }
  void done(const detail::msg::Done&) override {}
  void alive() override {}
  void got(std::uint64_t) override {
    throw Error(Errc::invalid_argument, "replicated control has no synchronised broadcasts to report");
  }

 private:
  dyn::Channel& channel_;
  detail::ReplicatedState*& control_;
};

// Kernel names the runtime keeps for itself.
constexpr std::string_view reserved_prefix = "herald.";
// Replicated control's read(): copies the version into the buffer whose address is the argument.
constexpr const char* read_kernel = "herald.read";

}  // namespace

Control control_from_string(std::string_view text, std::string_view what) {
  if (text == "head") return Control::head;
  if (text == "replicated") return Control::replicated;
  constexpr std::array<std::string_view, 2> choices{"head", "replicated"};
  throw Error(Errc::invalid_argument, not_one_of(what, text, choices));
}

const char* to_string(Control control) noexcept { return control == Control::head ? "head" : "replicated"; }

Control default_control() {
  if (auto v = environment("HERALD_RUNTIME_CONTROL")) return control_from_string(*v, "HERALD_RUNTIME_CONTROL");
  return Control::head;
}

int Runtime::default_threads() {
  // Open MPI binds each of at most two processes to a core of its own. A kernel thread there shares that
  // core with the polling loop: each preempts the other, and a task's wait for the loop becomes a time
  // slice. On one core, kernels run on the loop's own thread between polls.
  cpu_set_t cores;
  CPU_ZERO(&cores);
  if (sched_getaffinity(0, sizeof cores, &cores) == 0 && CPU_COUNT(&cores) == 1) return 0;
  return 1;
}

// The runtime's channel carries dynbcast's broadcasts too, on the handler the endpoint takes above these.
static_assert(detail::last_handler < dyn::Channel::shared_channel_handler);

struct Runtime::State {
  detail::RuntimeSettings settings;
  std::string inject;  // test only: this rank's HERALD_RUNTIME_INJECT failure, if it names this rank
  std::shared_ptr<dyn::Channel> channel;
  std::unique_ptr<dyn::Endpoint> endpoint;  // dynbcast's broadcasts, on `channel`: one send queue for all
  mpi::Communicator groups;                  // the parent of mpibcast's communicators
  std::vector<detail::KernelEntry> kernels;
  std::vector<detail::Operator> operators;  // Runtime::reduction's
  std::unique_ptr<detail::Coordinator> head;
  std::unique_ptr<detail::Lowering> lowering;  // above `head`, which the program's calls reach through it
  std::uint64_t id = ++runtimes_made;
  bool running = false;
  bool tracing = false;  // this runtime opened the trace, and finishes it
  int modelled_cores = 1;  // the threads asked for: modelled kernels that overlap under SMPI
};

void TaskContext::occupy(double seconds) {
  if (!(seconds >= 0) || !std::isfinite(seconds))
    throw Error(Errc::invalid_argument, "TaskContext::occupy: " + std::to_string(seconds) + " is not a duration");
#ifdef SMPI_H
  occupied_ += seconds;  // the worker ends the task that much later in simulated time
#else
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
#endif
}

void TaskContext::check_argument(std::size_t offset, std::size_t size) const {
  if (offset > arguments_.size() || size > arguments_.size() - offset)
    throw Error(Errc::invalid_argument, "task " + std::to_string(task_) + " reads " + std::to_string(size) +
                                            " argument bytes at offset " + std::to_string(offset) + " of " +
                                            std::to_string(arguments_.size()));
}

std::span<const std::byte> TaskContext::in(std::size_t access) const {
  if (access >= views_.size() || !reads(views_[access].mode))
    throw Error(Errc::invalid_argument, "task " + std::to_string(task_) + ": access " + std::to_string(access) +
                                            " is not an input (in or inout)");
  return {views_[access].data, views_[access].bytes};
}

std::span<std::byte> TaskContext::out(std::size_t access) const {
  if (access >= views_.size() || !writes(views_[access].mode))
    throw Error(Errc::invalid_argument, "task " + std::to_string(task_) + ": access " + std::to_string(access) +
                                            " is not an output (out or inout)");
  return {views_[access].data, views_[access].bytes};
}

Runtime::Runtime(MPI_Comm comm, Options options) : state_(std::make_unique<State>()) {
  // Settings first, so that a bad value is refused before anything collective.
  state_->settings = detail::RuntimeSettings::resolve(options);
  detail::RuntimeSettings& settings = state_->settings;
  // Kernels run on threads of their own only where MPI allows threads beside the one calling it.
  state_->modelled_cores = std::max(1, settings.threads);
  int provided = MPI_THREAD_SINGLE;
  HERALD_MPI(MPI_Query_thread(&provided));
  if (provided < MPI_THREAD_FUNNELED) settings.threads = 0;
  state_->channel = std::make_shared<dyn::Channel>(comm, dyn::Channel::Options::from_environment());
  state_->endpoint = std::make_unique<dyn::Endpoint>(state_->channel);
  state_->groups = mpi::Communicator(comm);
  // MPI's errors on the runtime's own communicators come back as herald::Error, which a worker reports to
  // the head naming its rank and the call, instead of ending the job inside MPI.
  HERALD_MPI(MPI_Comm_set_errhandler(state_->channel->comm(), MPI_ERRORS_RETURN));
  HERALD_MPI(MPI_Comm_set_errhandler(state_->groups.get(), MPI_ERRORS_RETURN));
  if (settings.inject && settings.inject->second == rank()) state_->inject = settings.inject->first;
  // Where a trace is open already (the drop-in's, from MPI_Init), the runtime records into it.
  if (!settings.trace.empty() && !trace::recorder()) state_->tracing = trace::start(comm, settings.trace);
}

Runtime::~Runtime() {
  if (!state_->tracing) return;
  try {
    trace::finish();  // collective, as the runtime's own communicators' freeing is
  } catch (const std::exception& e) {
    std::fprintf(stderr, "herald runtime: the trace could not be written: %s\n", e.what());
  }
}

int Runtime::rank() const noexcept { return state_->channel->rank(); }
int Runtime::size() const noexcept { return state_->channel->size(); }
int Runtime::threads() const noexcept { return state_->settings.threads; }
Control Runtime::control() const noexcept { return state_->settings.control; }
BroadcastStrategy Runtime::broadcast() const noexcept { return state_->settings.broadcast; }

void Runtime::kernel(std::string name, Kernel kernel, KernelCost cost) {
  if (state_->running) throw Error(Errc::invalid_argument, "kernel '" + name + "' registered while the runtime runs");
  if (!kernel) throw Error(Errc::invalid_argument, "kernel '" + name + "' is empty");
  if (name.starts_with(reserved_prefix))
    throw Error(Errc::invalid_argument, "kernel '" + name + "': names starting with 'herald.' are the runtime's own");
  for (const auto& k : state_->kernels)
    if (k.name == name) throw Error(Errc::invalid_argument, "kernel '" + name + "' registered twice");
  state_->kernels.push_back({std::move(name), std::move(kernel), std::move(cost)});
}

void Runtime::reduction(std::string name, Initializer identity, Combiner combine, std::size_t element_bytes) {
  if (state_->running) throw Error(Errc::invalid_argument, "reduction '" + name + "' registered while the runtime runs");
  if (!identity || !combine) throw Error(Errc::invalid_argument, "reduction '" + name + "' has an empty identity or combine");
  detail::BuiltinOp builtin{};
  if (name.empty() || detail::builtin_op(name, builtin) || name.find(':') != std::string::npos)
    throw Error(Errc::invalid_argument, "reduction '" + name + "': the name must be new, not empty, without ':', "
                                        "and not a built-in (sum, min, max)");
  for (const auto& o : state_->operators)
    if (o.name == name) throw Error(Errc::invalid_argument, "reduction '" + name + "' registered twice");
  state_->kernels.push_back({std::string(detail::identity_kernel) + ":" + name,
                             [identity](TaskContext& t) { identity(t.out(0)); },
                             detail::fill_cost});
  state_->kernels.push_back({std::string(detail::combine_kernel) + ":" + name,
                             [combine](TaskContext& t) {
                               for (std::size_t i = 1; i < t.accesses(); ++i) combine(t.out(0), t.in(i));
                             },
                             detail::combine_cost});
  state_->operators.push_back({std::move(name), element_bytes});
}

void Runtime::run(const std::function<void(Head&)>& program) {
  if (rank() == head_rank || control() == Control::replicated) return run_ranks(program);
  // On a worker, a failure in its loop is reported to the head (Worker::fail); one before the loop or in
  // the shutdown has no head listening for it, and ends the program rather than leave the others waiting.
  try {
    run_ranks(program);
  } catch (...) {
    detail::abort_run(state_->channel->comm(), "worker " + std::to_string(rank()) +
                                                   ": the runtime's start or shutdown failed: " +
                                                   detail::describe(std::current_exception()));
  }
}

void Runtime::run_ranks(const std::function<void(Head&)>& program) {
  State& s = *state_;
  dyn::Channel& channel = *s.channel;
  s.running = true;
  struct Done {
    State& s;
    ~Done() { s.running = false; }
  } done{s};
  if (control() == Control::replicated &&
      std::none_of(s.kernels.begin(), s.kernels.end(), [](const auto& k) { return k.name == read_kernel; }))
    s.kernels.push_back({read_kernel, [](TaskContext& t) {
                           const auto from = t.in(0);
                           auto* into = reinterpret_cast<std::byte*>(t.argument<std::uintptr_t>());
                           if (into != from.data() && !from.empty()) std::memcpy(into, from.data(), from.size());
                         }, {}});
  if (std::none_of(s.kernels.begin(), s.kernels.end(), [](const auto& k) { return k.name == detail::identity_kernel; }))
    detail::add_internal_kernels(s.kernels);
  auto names = gather_kernel_names(channel.comm(), s.kernels);
  detail::ReplicatedState* replicated = nullptr;
  detail::HeadReport to_head(channel, head_rank);
  ToOtherRanks to_others(channel, replicated);
  detail::Report& report = control() == Control::replicated ? static_cast<detail::Report&>(to_others) : to_head;
  detail::Worker worker(channel, s.kernels,
                        {.threads = s.settings.threads,
                         .modelled_cores = s.modelled_cores,
                         .heartbeat = s.settings.heartbeat,
                         .endpoint = s.endpoint.get(),
                         .groups = s.groups.get(),
                         .inject = s.inject,
                         .report = &report});

  std::exception_ptr error;
  bool lost = false;
  // The program, on the ranks that run it; what it throws is raised once the runtime is shut down.
  const auto run_program = [&] {
    try {
      s.lowering = std::make_unique<detail::Lowering>(*s.head, s.id, s.settings.scheduler, s.settings.mapping,
                                                          s.settings.reduction, s.settings.link, s.operators);
      Head head(s);
      program(head);
      if (s.head->usable()) s.head->wait();  // whatever the program left unfinished
    } catch (...) {
      error = std::current_exception();
    }
    lost = s.head->lost_worker();
  };
  const detail::ControlSettings settings = s.settings.control_settings(s.endpoint.get(), read_kernel, s.modelled_cores);
  if (control() == Control::replicated) {
    auto state = std::make_unique<detail::ReplicatedState>(
        channel, worker, s.kernels, names,
        settings,
        s.id);
    replicated = state.get();
    s.head = std::move(state);
    run_program();
    if (!lost) {
      try {
        replicated->leave();
      } catch (...) {
        lost = true;
        if (!error) error = std::current_exception();
      }
    }
  } else if (rank() == head_rank) {
    s.head = std::make_unique<detail::HeadState>(
        channel, worker, s.kernels, std::move(names),
        settings,
        s.id);
    run_program();
    if (!lost) {
      for (int r = 0; r < size(); ++r)
        if (r != head_rank) detail::post(channel, r, detail::msg::Stop{});
    }
  } else {
    detail::Idle idle(s.settings.idle_sleep, [&worker](std::chrono::nanoseconds d) { worker.wait(d); });
    // Handlers report their own failures; what fails around them is reported here, and the loop goes on
    // until the head, told, releases this worker.
    const auto guarded = [&worker](const char* what, auto step) {
      try {
        return step();
      } catch (...) {
        worker.fail(std::string(what) + " failed: " + detail::describe(std::current_exception()));
        return true;
      }
    };
    while (!worker.stopped()) {
      if (guarded("message progress", [&] { return channel.progress(); }) |
          guarded("the worker loop", [&] { return worker.poll(); }))
        idle.busy();
      else
        idle.idle();
    }
  }
  if (lost) {
    // The lost worker cannot take part in a clean shutdown; the program is told and should MPI_Abort.
    replicated = nullptr;
    s.lowering.reset();
    s.head.reset();
    std::rethrow_exception(error);
  }
  // Shutdown: no kernel runs and no request is served any more; every message this rank sent is
  // delivered, and once every rank is that far (the barrier), nothing is on its way to anyone.
  worker.quiesce();
  while (!channel.quiet()) channel.progress();
  worker.finish_broadcasts();
  MPI_Request barrier;
  HERALD_MPI(MPI_Ibarrier(channel.comm(), &barrier));
  for (int finished = 0; !finished;) {
    channel.progress();
    HERALD_MPI(MPI_Test(&barrier, &finished, MPI_STATUS_IGNORE));
  }
  // A worker's failure reported after the program's last wait() (serving a release, say) is still raised.
  if (s.head && !error) error = s.head->failure();
  replicated = nullptr;
  s.lowering.reset();
  s.head.reset();
  if (error) std::rethrow_exception(error);
}

Data Head::data(std::span<std::byte> bytes, std::string name, std::optional<int> owner) {
  const int workers = state_.head->workers();
  if (owner && (*owner < 0 || *owner >= workers))
    throw Error(Errc::invalid_argument, "data '" + name + "': owner " + std::to_string(*owner) +
                                            " is not a worker (0.." + std::to_string(workers - 1) + ")");
  return state_.lowering->data(bytes, std::move(name), owner.value_or(0));
}
void Head::enter(Data d) { state_.lowering->enter(d); }
void Head::read(Data d) { state_.lowering->read(d, false); }
void Head::exit(Data d) { state_.lowering->read(d, true); }
std::uint64_t Head::submit(std::string_view kernel, std::initializer_list<Use> uses, Arguments arguments,
                           TaskOptions options) {
  return state_.lowering->submit(kernel, std::span(uses.begin(), uses.size()), std::move(arguments), options);
}
std::uint64_t Head::submit(std::string_view kernel, std::span<const Use> uses, Arguments arguments,
                           TaskOptions options) {
  return state_.lowering->submit(kernel, uses, std::move(arguments), options);
}
std::vector<Data> Head::partition(Data d, std::size_t blocks) { return state_.lowering->partition(d, blocks, std::nullopt); }
std::vector<Data> Head::partition(Data d, Blocks2D blocks) { return state_.lowering->partition(d, 0, blocks); }
void Head::unpartition(Data d) { state_.lowering->unpartition(d); }
void Head::wait() { state_.head->wait(); }
int Head::workers() const noexcept { return state_.head->workers(); }
Statistics Head::statistics() const { return state_.head->statistics(); }

}  // namespace herald::runtime
