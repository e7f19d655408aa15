// mpibcast: MPI's own MPI_Ibcast, or with mpibcast:herald herald's ibcast ("auto"), on a communicator of
// exactly the root and the recipients, made once per set of processes and kept. Every member starts the
// broadcasts of one communicator in the same order (their ids'); a root whose data is not here yet holds
// back the later ones on that communicator.
#include "strategy.hpp"

#include <herald/bcast.hpp>

#include "../../core/mpi/check.hpp"

#include <algorithm>
#include <deque>
#include <limits>
#include <map>
#include <vector>

namespace herald::runtime::detail {
namespace {

class MpiBcast final : public BroadcastCarrier {
 public:
  MpiBcast(const CarrierContext& c, bool herald) : c_(c), herald_(herald) {}
  MpiBcast(const MpiBcast&) = delete;
  MpiBcast& operator=(const MpiBcast&) = delete;

  ~MpiBcast() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return;
    in_flight_.clear();
    for (auto& [members, comm] : comms_) MPI_Comm_free(&comm);
  }

  void join(const BroadcastOrder& order) override {
    std::vector<int> members(order.recipients.begin(), order.recipients.end());
    members.push_back(order.root);
    const MPI_Comm comm = group_comm(std::move(members), order);
    queues_[comm].push_back({order, order.root == c_.rank});
    start(comm);
  }

  void arrived(const Key& key, const Replica&) override {
    for (auto& [comm, queue] : queues_)
      if (!queue.empty() && queue.front().root && queue.front().order.key == key) start(comm);
  }

  bool poll() override {
    bool any = false;
    for (std::size_t i = 0; i < in_flight_.size();) {
      InFlight& f = in_flight_[i];
      bool done = false;
      if (herald_) {
        done = f.coll.poll();  // every pass of the worker's loop: the sends keep their window
      } else {
        int all = 0;
        HERALD_MPI(MPI_Testall(static_cast<int>(f.mpi.size()), f.mpi.data(), &all, MPI_STATUSES_IGNORE));
        done = all != 0;
      }
      if (!done) {
        ++i;
        continue;
      }
      InFlight finished = std::move(f);
      in_flight_.erase(in_flight_.begin() + static_cast<std::ptrdiff_t>(i));
      if (finished.root)
        c_.worker.sent(finished.order);
      else
        c_.worker.landed(finished.order, std::move(finished.replica));
      any = true;
    }
    return any;
  }

 private:
  struct Queued {
    BroadcastOrder order;
    bool root;
  };
  struct InFlight {
    BroadcastOrder order;
    Replica replica;
    bool root;
    herald::Request coll;          // mpibcast:herald
    std::vector<MPI_Request> mpi;  // mpibcast: MPI_Ibcast, in pieces of at most INT_MAX bytes
  };

  // The communicator of exactly these processes (MPI_Comm_create_group, so that no one else takes part).
  MPI_Comm group_comm(std::vector<int> members, const BroadcastOrder& order) {
    std::sort(members.begin(), members.end());
    if (const auto it = comms_.find(members); it != comms_.end()) return it->second;
    // Only the members take part: every one of them gets its orders in id order and makes the
    // communicators it belongs to in that order, so no two members wait for each other in opposite orders.
    MPI_Group all, group;
    HERALD_MPI(MPI_Comm_group(c_.groups, &all));
    HERALD_MPI(MPI_Group_incl(all, static_cast<int>(members.size()), members.data(), &group));
    // A blocking call the other members make in their own time: hand MPI what herald's broadcasts in
    // flight hold back under their window first, as any member may wait for it meanwhile.
    for (InFlight& f : in_flight_)
      if (herald_ && f.coll.active()) f.coll.test();
    MPI_Comm comm = MPI_COMM_NULL;
    // The tag tells concurrent creations apart; every member knows the broadcast that asks for it first.
    HERALD_MPI(MPI_Comm_create_group(c_.groups, group, static_cast<int>(order.id % 32768), &comm));
    MPI_Group_free(&group);
    MPI_Group_free(&all);
    // herald's broadcast makes its private duplicate of a communicator at its first call there. Made now,
    // it is made in the same order on every member, like the communicator; made at the first broadcast, it
    // could wait for a root whose data waits for this process. (MPI_Comm_idup never waits, but SimGrid's
    // SMPI has only the blocking MPI_Comm_dup.) An empty broadcast moves nothing and does just that.
    if (herald_) herald::ibcast({}, 0, comm, {.algorithm = "auto"}).wait();
    return comms_.emplace(std::move(members), comm).first->second;
  }

  // Starts the queue's front broadcasts whose data is here, in order.
  void start(MPI_Comm comm) {
    auto& queue = queues_[comm];
    while (!queue.empty()) {
      Queued& q = queue.front();
      const Replica* held = q.root ? c_.worker.held(q.order.key) : nullptr;
      if (q.root && !held) return;  // a later one must not start before it: same order on every member
      // The communicator's ranks follow the processes' order, as MPI_Group_incl of sorted ranks makes them.
      int root = 0;
      for (std::int32_t r : q.order.recipients) root += r < q.order.root ? 1 : 0;
      InFlight f{q.order, held ? *held : c_.worker.allocate(q.order.bytes), q.root, {}, {}};
      if (!herald_) {
        const std::span<std::byte> bytes = f.replica.bytes;
        constexpr std::size_t most = std::numeric_limits<int>::max();
        for (std::size_t at = 0; at < bytes.size() || at == 0; at += most) {
          const int count = static_cast<int>(std::min(most, bytes.size() - at));
          HERALD_MPI(MPI_Ibcast(bytes.data() + at, count, MPI_BYTE, root, comm, &f.mpi.emplace_back()));
          if (bytes.empty()) break;
        }
      } else {
        // The algorithm as for any herald broadcast: HERALD_ALGORITHM, else auto.
        f.coll = herald::ibcast(f.replica.bytes, root, comm, {.polled = true});
      }
      in_flight_.push_back(std::move(f));
      if (q.root) c_.worker.sending(q.order);
      queue.pop_front();
    }
  }

  CarrierContext c_;
  bool herald_;
  std::map<std::vector<int>, MPI_Comm> comms_;
  std::map<MPI_Comm, std::deque<Queued>> queues_;
  std::vector<InFlight> in_flight_;
};

}  // namespace

std::unique_ptr<BroadcastCarrier> make_mpibcast(const CarrierContext& context, bool herald) {
  return std::make_unique<MpiBcast>(context, herald);
}

}  // namespace herald::runtime::detail
