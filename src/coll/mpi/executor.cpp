// The one MPI executor: runs any compiled plan with nonblocking point-to-point on herald's private
// communicator. Receives are posted up front; each send is posted, in program order, as soon as the receives
// it waits for (Dataflow) have completed, so a forwarder passes segment k on while segment k+1 arrives.
// Point-to-point, wait and test go through the PMPI entry points, so a library that intercepts MPI_Bcast or
// MPI_Wait around herald never sees (or re-enters on) herald's own traffic.
#include "context.hpp"

#include <herald/bcast.hpp>
#include <herald/config.hpp>
#include <herald/selector.hpp>

#include <algorithm>
#include <climits>

namespace herald {

class Request::State {
 public:
  virtual ~State() = default;
  virtual bool test() = 0;
  virtual void wait() = 0;
};

namespace {

using mpi::Buffers;
using mpi::Plan;

class ScheduleRun final : public Request::State, private mpi::Forwarder {
 public:
  ScheduleRun(std::shared_ptr<Plan> plan, std::byte* base, MPI_Comm comm, int tag)
      : plan_(std::move(plan)), buffers_(plan_->take_buffers()), base_(base), comm_(comm), tag_(tag) {
    for (std::uint32_t i : plan_->recvs) {
      const Step& s = plan_->program[i];
      std::byte* into = plan_->dataflow.redundant(i) ? buffers_.scratch.data() : base_ + s.range.offset;
      HERALD_MPI(PMPI_Irecv(into, static_cast<int>(s.range.length), MPI_BYTE, s.peer, tag_, comm_,
                           &buffers_.requests[i]));
    }
    if (!advance(false)) mpi::Context::get().enroll(this);
  }
  ScheduleRun(const ScheduleRun&) = delete;
  ScheduleRun& operator=(const ScheduleRun&) = delete;
  ~ScheduleRun() override {
    mpi::Context::get().withdraw(this);
    if (!done_) {
      // Abandoned with work in flight (an exception unwound past it): finish rather than leave MPI
      // writing into a buffer the caller no longer watches.
      try {
        wait();
      } catch (...) {
      }
    }
  }

  bool test() override {
    if (done_) return true;
    if (!advance(false)) return false;
    int flag = 0;
    HERALD_MPI(PMPI_Testall(static_cast<int>(buffers_.requests.size()), buffers_.requests.data(), &flag,
                           MPI_STATUSES_IGNORE));
    if (flag) finish();
    return done_;
  }

  void wait() override {
    if (done_) return;
    mpi::Context& context = mpi::Context::get();
    if (context.others_in_flight(this)) {
      // Other broadcasts need forwarding too: poll them all rather than block on this one.
      while (!test()) context.forward_all();
      return;
    }
    advance(true);
    HERALD_MPI(PMPI_Waitall(static_cast<int>(buffers_.requests.size()), buffers_.requests.data(),
                           MPI_STATUSES_IGNORE));
    finish();
  }

 private:
  // Posts sends in program order while their inputs have arrived; with `block`, waits for the inputs.
  // Returns true once every send is posted.
  bool advance(bool block) {
    auto& requests = buffers_.requests;
    for (; next_send_ < plan_->sends.size(); ++next_send_) {
      const std::uint32_t i = plan_->sends[next_send_];
      for (std::uint32_t d : plan_->dataflow.waits_for(i)) {
        if (requests[d] == MPI_REQUEST_NULL) continue;
        if (block) {
          HERALD_MPI(PMPI_Wait(&requests[d], MPI_STATUS_IGNORE));
        } else {
          int flag = 0;
          HERALD_MPI(PMPI_Test(&requests[d], &flag, MPI_STATUS_IGNORE));
          if (!flag) return false;
        }
      }
      const Step& s = plan_->program[i];
      HERALD_MPI(PMPI_Isend(base_ + s.range.offset, static_cast<int>(s.range.length), MPI_BYTE, s.peer, tag_, comm_,
                           &requests[i]));
    }
    return true;
  }

  bool forward() override { return advance(false); }

  void finish() {
    done_ = true;
    mpi::Context::get().withdraw(this);
    plan_->give_back(std::move(buffers_));
  }

  std::shared_ptr<Plan> plan_;
  Buffers buffers_;
  std::byte* base_;
  MPI_Comm comm_;
  int tag_;
  std::size_t next_send_ = 0;
  bool done_ = false;
};

class NativeRun final : public Request::State {
 public:
  NativeRun(std::byte* base, std::size_t bytes, int root, MPI_Comm comm) {
    // MPI counts are ints: larger broadcasts go as consecutive pieces.
    for (std::size_t offset = 0; offset < bytes; offset += max_message_bytes) {
      const int count = static_cast<int>(std::min(max_message_bytes, bytes - offset));
      requests_.push_back(MPI_REQUEST_NULL);
      HERALD_MPI(PMPI_Ibcast(base + offset, count, MPI_BYTE, root, comm, &requests_.back()));
    }
  }
  ~NativeRun() override {
    if (!requests_.empty()) PMPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
  }
  NativeRun(const NativeRun&) = delete;
  NativeRun& operator=(const NativeRun&) = delete;
  bool test() override {
    int flag = 0;
    HERALD_MPI(PMPI_Testall(static_cast<int>(requests_.size()), requests_.data(), &flag, MPI_STATUSES_IGNORE));
    return flag != 0;
  }
  void wait() override {
    mpi::Context& context = mpi::Context::get();
    if (context.forwarding()) {
      // herald broadcasts in flight need this rank's forwarding while it waits.
      while (!test()) context.forward_all();
      return;
    }
    HERALD_MPI(PMPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE));
  }

 private:
  std::vector<MPI_Request> requests_;
};

// A validated call: where it runs and what it runs. Everything here is checked before any byte moves.
struct Call {
  mpi::CommState* state = nullptr;
  bool native = false;
  mpi::PlanKey key{};
};

Call prepare(std::span<std::byte> buffer, int root, MPI_Comm comm, const Options& options) {
  if (comm == MPI_COMM_NULL) throw Error(Errc::invalid_comm, "the communicator is MPI_COMM_NULL");
  if (buffer.data() == nullptr && !buffer.empty())
    throw Error(Errc::invalid_buffer, "the buffer is null but holds " + std::to_string(buffer.size()) + " bytes");

  mpi::Context& context = mpi::Context::get();
  Call call;
  call.state = &context.state(comm);
  if (root < 0 || root >= call.state->size())
    throw Error(Errc::invalid_root, "root " + std::to_string(root) + " is not a rank of this " +
                                        std::to_string(call.state->size()) + "-rank communicator");
  call.key.algorithm = context.algorithm(options.algorithm, call.native);
  call.key.root = root;
  call.key.bytes = buffer.size();
  call.key.parameters = merge(options.parameters, context.parameters());
  validate({.ranks = call.state->size(), .root = root, .bytes = buffer.size(), .parameters = call.key.parameters});
  return call;
}

// Blocking send/receive in program order (Plan::blocking).
void run_blocking(const Plan& plan, std::byte* base, MPI_Comm comm, int tag) {
  for (const Step& s : plan.program) {
    std::byte* at = base + s.range.offset;
    const int count = static_cast<int>(s.range.length);
    if (s.op == Step::Op::recv)
      HERALD_MPI(PMPI_Recv(at, count, MPI_BYTE, s.peer, tag, comm, MPI_STATUS_IGNORE));
    else
      HERALD_MPI(PMPI_Send(at, count, MPI_BYTE, s.peer, tag, comm));
  }
}

}  // namespace

Request::Request() noexcept = default;
Request::Request(std::unique_ptr<State> state) noexcept : state_(std::move(state)) {}
Request::Request(Request&&) noexcept = default;
Request& Request::operator=(Request&& other) noexcept {
  if (this != &other) {
    if (state_) {
      try {
        state_->wait();
      } catch (...) {
      }
    }
    state_ = std::move(other.state_);
  }
  return *this;
}
Request::~Request() {
  if (state_) {
    try {
      state_->wait();
    } catch (...) {
    }
  }
}

bool Request::test() {
  if (!state_) return true;
  if (!state_->test()) return false;
  state_.reset();
  return true;
}

void Request::wait() {
  if (!state_) return;
  state_->wait();
  state_.reset();
}

bool Request::active() const noexcept { return state_ != nullptr; }

void bcast(std::span<std::byte> buffer, int root, MPI_Comm comm, const Options& options) {
  Call call = prepare(buffer, root, comm, options);
  const int tag = call.state->next_tag();
  if (call.state->size() == 1 || buffer.empty()) return;
  // Every rank makes the same MPI calls whatever it has in flight (MPI_Bcast never matches MPI_Ibcast), so
  // what this rank owes to earlier broadcasts is settled first.
  mpi::Context::get().finish_forwarding();
  if (call.native) {
    // The installed MPI_Bcast itself (its nonblocking form is often a different, slower code path).
    for (std::size_t offset = 0; offset < buffer.size(); offset += max_message_bytes) {
      const int count = static_cast<int>(std::min(max_message_bytes, buffer.size() - offset));
      HERALD_MPI(PMPI_Bcast(buffer.data() + offset, count, MPI_BYTE, root, call.state->comm()));
    }
    return;
  }
  const std::shared_ptr<Plan>& plan = call.state->plan(call.key);
  if (plan->blocking) {
    run_blocking(*plan, buffer.data(), call.state->comm(), tag);
    return;
  }
  ScheduleRun(plan, buffer.data(), call.state->comm(), tag).wait();
}

Request ibcast(std::span<std::byte> buffer, int root, MPI_Comm comm, const Options& options) {
  Call call = prepare(buffer, root, comm, options);
  const int tag = call.state->next_tag();
  if (call.state->size() == 1 || buffer.empty()) return Request();
  if (call.native) return Request(std::make_unique<NativeRun>(buffer.data(), buffer.size(), root, call.state->comm()));
  return Request(std::make_unique<ScheduleRun>(call.state->plan(call.key), buffer.data(), call.state->comm(), tag));
}

std::string resolve_algorithm(const Options& options, int ranks, std::size_t bytes) {
  mpi::Context& context = mpi::Context::get();
  bool native = false;
  if (const AlgorithmInfo* named = context.algorithm(options.algorithm, native)) return std::string(named->name);
  if (native) return "native";
  const Problem problem{.ranks = ranks, .root = 0, .bytes = bytes,
                        .parameters = merge(options.parameters, context.parameters())};
  return std::string(select_algorithm(problem, context.cost_model()).name);
}

}  // namespace herald
