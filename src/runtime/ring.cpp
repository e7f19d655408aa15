#include "ring.hpp"

#include "protocol/post.hpp"

namespace herald::runtime::detail {

Ring::Ring(dyn::Channel& channel, Worker& local, const ControlSettings& settings, std::size_t sums)
    : channel_(channel), local_(local), settings_(settings), agreement_(channel.comm(), sums), rank_(channel.rank()),
      size_(channel.size()) {
  channel_.on(failure_handler, [this](const auto& a) {
    channel_.receive_payload({}, [] {});
    std::string message = msg::decode<msg::Failure>(a.body).what;
    failed_somewhere_ = true;
    if (!failure_) failure_.emplace(Errc::task_failed, std::move(message));
  });
  channel_.on(lost_handler, [this](const auto& a) {
    channel_.receive_payload({}, [] {});
    const auto lost = msg::decode<msg::Lost>(a.body);
    lost_ = true;
    failure_.emplace(Errc::worker_lost, "rank " + std::to_string(a.source) + " reports: " + lost.why);
  });
  channel_.on(heartbeat_handler, [this](const auto& a) {
    channel_.receive_payload({}, [] {});
    msg::decode<msg::Heartbeat>(a.body);
    heard_ = LoopClock::now();
  });
}

void Ring::restart() { heard_ = told_ = LoopClock::now(); }

void Ring::serve_until(const std::function<bool()>& done) {
  Idle idle(settings_.idle_sleep, [this](std::chrono::nanoseconds d) { local_.wait(d); });
  const int next = (rank_ + 1) % size_;
  constexpr unsigned liveness_passes = 32;
  unsigned passes = 0;
  while (!done()) {
    bool any = false;
    try {
      any = channel_.progress();
      any |= local_.poll();
    } catch (...) {
      local_.fail("the worker loop failed: " + describe(std::current_exception()));
      any = true;
    }
    if (lost_) throw *failure_;
    // Liveness is a matter of seconds: the clock is read every few passes, not on each (a pass over
    // tiny tasks takes well under a microsecond).
    if (size_ > 1 && ++passes % liveness_passes == 0) {
      const auto now = LoopClock::now();
      if (std::chrono::duration<double>(now - told_).count() >= settings_.heartbeat) {
        post(channel_, next, msg::Heartbeat{});
        told_ = now;
      }
      const double silent = std::chrono::duration<double>(now - heard_).count();
      if (silent > settings_.timeout) {
        const int before = (rank_ + size_ - 1) % size_;
        lose("worker rank " + std::to_string(before) + " has sent nothing for " +
             std::to_string(static_cast<int>(silent)) + " s while rank " + std::to_string(rank_) +
             " waited for it in wait(): it is dead or stuck");
      }
    }
    if (any)
      idle.busy();
    else
      idle.idle();
  }
}

bool Ring::agree(Sync kind, std::uint64_t value, std::span<const std::uint64_t> sums) {
  agreement_.start(static_cast<std::uint64_t>(kind), value, sums);
  serve_until([&] { return agreement_.test(); });
  return agreement_.agreed();
}

void Ring::tell_all(const auto& message) {
  for (int r = 0; r < size_; ++r)
    if (r != rank_) post(channel_, r, message);
  channel_.flush();
}

void Ring::lose(const std::string& why) {
  lost_ = true;
  if (!failure_ || failure_->code() != Errc::worker_lost) failure_.emplace(Errc::worker_lost, why);
  tell_all(msg::Lost{why});
  throw *failure_;
}

void Ring::failed_here(std::uint64_t task, std::string_view kernel, const std::string& what) {
  const std::string message = task == no_task ? "worker " + std::to_string(rank_) + ": " + what
                                              : task_name(task, kernel) + " failed on rank " + std::to_string(rank_) +
                                                    ": " + what;
  tell_all(msg::Failure{task, message});
  failed_somewhere_ = true;
  if (!failure_) failure_.emplace(Errc::task_failed, message);
}

}  // namespace herald::runtime::detail
