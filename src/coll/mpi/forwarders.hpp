// Broadcasts in flight whose messages herald itself must post as data arrives. While a rank waits for one of
// them it keeps the others moving, as MPI's progress rule asks: another rank may need this one's forwarding
// to finish what it waits for.
#pragma once

#include <algorithm>
#include <thread>
#include <vector>

namespace herald::mpi {

class Forwarder {
 public:
  virtual ~Forwarder() = default;
  // Posts what can be posted without blocking; true once everything is posted, every receive included.
  virtual bool forward() = 0;
  // Posts every receive still held back (receives posted one at a time, in order).
  virtual void post_receives() = 0;
};

class Forwarders {
 public:
  static constexpr int spins_before_yield = 100;
  void enroll(Forwarder* forwarder) { list_.push_back(forwarder); }
  void withdraw(Forwarder* forwarder) { std::erase(list_, forwarder); }
  bool others_in_flight(const Forwarder* self) const {
    return list_.size() > 1 || (list_.size() == 1 && list_.front() != self);
  }
  bool forwarding() const noexcept { return !list_.empty(); }
  void forward_all() {
    // forward() never enrolls or withdraws, so the list is stable while it runs.
    std::erase_if(list_, [](Forwarder* f) { return f->forward(); });
  }
  // Polls until every broadcast in flight has posted all its messages. Called before a blocking MPI call in
  // a single-threaded process: a peer may wait for one of those broadcasts before it joins the call. Cannot
  // deadlock: a forwarder's data comes from the root through forwarders that all finish before they block.
  // Receives held back are posted first: a peer's synchronous send to this rank completes only once its
  // receive is posted, and the peer may wait for that send before it joins the call.
  void finish_forwarding() {
    for (Forwarder* f : list_) f->post_receives();
    // A long wait lets other processes run: with more ranks than cores the peer may be waiting for a core.
    for (int polls = 0; forwarding(); ++polls) {
      forward_all();
      if (polls >= spins_before_yield) std::this_thread::yield();
    }
  }

 private:
  std::vector<Forwarder*> list_;  // not owned: each withdraws itself when done or destroyed
};

}  // namespace herald::mpi
