// The public face of the dynamic broadcast: argument plumbing, locking and request polling.
#include "engine.hpp"

#include <iostream>
#include <thread>

namespace herald::dyn {

Request::Request() noexcept = default;
Request::Request(std::shared_ptr<State> state, std::shared_ptr<detail::Engine> engine) noexcept
    : state_(std::move(state)), engine_(std::move(engine)) {}
Request::Request(Request&&) noexcept = default;
Request& Request::operator=(Request&&) noexcept = default;
Request::~Request() = default;

bool Request::test() { return poll(); }

bool Request::done() {
  if (!state_) throw Error(Errc::invalid_argument, "done() on an empty request");
  std::lock_guard lock(engine_->mutex);
  if (!state_->done) return false;
  if (state_->error) throw *state_->error;
  return true;
}

bool Request::delivered() {
  if (!state_) throw Error(Errc::invalid_argument, "delivered() on an empty request");
  std::lock_guard lock(engine_->mutex);
  if (!state_->done && !state_->delivered) return false;
  if (state_->error) throw *state_->error;
  return true;
}

bool Request::poll(bool* progressed) {
  if (!state_) throw Error(Errc::invalid_argument, "test() on an empty request");
  // The state is written under the engine's lock (possibly by the progress thread): read it there too.
  std::lock_guard lock(engine_->mutex);
  if (!state_->done) {
    const bool moved = engine_->progress(&state_->done);
    if (progressed) *progressed = moved;
  }
  if (!state_->done) return false;
  if (state_->error) throw *state_->error;
  return true;
}

void Request::wait() {
  // Spin like MPI's own waits do; only after a long idle stretch (tens of microseconds) yield the core,
  // for when ranks outnumber cores. Yielding at once costs a scheduler time slice whenever another
  // process is runnable, far more than a small message takes.
  constexpr int patience = 1024;
  int idle = 0;
  for (bool progressed = false; !poll(&progressed);) {
    idle = progressed ? 0 : idle + 1;
    if (idle >= patience) std::this_thread::yield();
  }
}

Status Request::status() const {
  if (!state_) throw Error(Errc::invalid_argument, "status() of an empty request");
  std::lock_guard lock(engine_->mutex);
  if (!state_->done) throw Error(Errc::invalid_argument, "status() of an unfinished request");
  return state_->status;
}

bool Request::active() const noexcept {
  if (!state_) return false;
  std::lock_guard lock(engine_->mutex);
  return !state_->done;
}

Endpoint::Endpoint(MPI_Comm comm, const Options& options)
    : engine_(std::make_shared<detail::Engine>(comm, options)) {}

Endpoint::Endpoint(std::shared_ptr<Channel> channel, const Options& options)
    : engine_(channel ? std::make_shared<detail::Engine>(std::move(channel), options, false)
                      : throw Error(Errc::invalid_argument, "dynamic-broadcast endpoint on a null channel")) {}

Endpoint::~Endpoint() {
  try {
    std::lock_guard lock(engine_->mutex);
    engine_->close();
  } catch (const std::exception& e) {
    // A destructor cannot throw; a failure here means a peer broke the protocol or MPI failed.
    std::cerr << "herald: closing a dynamic-broadcast endpoint failed: " << e.what() << "\n";
  }
}

Request Endpoint::send(std::span<const std::byte> data, std::span<const int> recipients, int tag,
                       const SendOptions& options) {
  std::lock_guard lock(engine_->mutex);
  auto state = engine_->new_state();
  engine_->start_send(state, data, recipients, tag, options);
  return Request(std::move(state), engine_);
}

Request Endpoint::send_p2p(std::span<const std::byte> data, int dest, int tag, int priority) {
  std::lock_guard lock(engine_->mutex);
  auto state = engine_->new_state();
  engine_->start_p2p(state, data, dest, tag, priority);
  return Request(std::move(state), engine_);
}

Request Endpoint::irecv(std::span<std::byte> buffer, int source, int tag) {
  std::lock_guard lock(engine_->mutex);
  auto state = engine_->new_state();
  engine_->start_recv(state, buffer, source, tag);
  return Request(std::move(state), engine_);
}

Status Endpoint::recv(std::span<std::byte> buffer, int source, int tag) {
  std::shared_ptr<Request::State> state;
  {
    std::lock_guard lock(engine_->mutex);
    engine_->check_recv(buffer, source, tag);
    // A message already here costs a copy and nothing else: no request, no polling.
    if (auto status = engine_->take_held(buffer, source, tag)) return *status;
    state = engine_->new_state();
    engine_->post_recv(state, buffer, source, tag);
  }
  Request request(std::move(state), engine_);
  request.wait();
  // wait() saw the request done under the engine's lock, and nothing writes a done request's status: no
  // second lock is needed to read it.
  return request.state_->status;
}

std::optional<Status> Endpoint::iprobe(int source, int tag) {
  std::lock_guard lock(engine_->mutex);
  return engine_->probe(source, tag);
}

bool Endpoint::progress() {
  std::lock_guard lock(engine_->mutex);
  return engine_->progress();
}

Shape Endpoint::shape(int recipients, std::size_t bytes) {
  if (recipients < 1) throw Error(Errc::invalid_argument, std::to_string(recipients) + " recipients");
  std::lock_guard lock(engine_->mutex);
  return engine_->shape_for(recipients + 1, bytes);
}

Forwarding Endpoint::forwarding() const noexcept { return engine_->forwarding; }

Statistics Endpoint::statistics() {
  std::lock_guard lock(engine_->mutex);
  return engine_->statistics;
}

int Endpoint::rank() const noexcept { return engine_->rank; }
int Endpoint::size() const noexcept { return engine_->size; }
bool Endpoint::has_progress_thread() const noexcept { return engine_->threaded; }

}  // namespace herald::dyn
