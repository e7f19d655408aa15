#include <herald/balance/placement.hpp>
#include <herald/balance/split.hpp>
#include <herald/error.hpp>

#include <algorithm>
#include <limits>
#include <numeric>
#include <string>

namespace herald::balance {
namespace {

int over(int load, int cores) { return std::max(0, load - cores); }

// Depth-first branch and bound over "process k goes to socket s", processes by decreasing request.
class Search {
 public:
  Search(std::span<const int> requests, std::span<const int> cores, long node_limit)
      : requests_(requests), cores_(cores), limit_(node_limit), load_(cores.size(), 0),
        members_(cores.size(), 0), socket_of_(requests.size(), -1) {
    order_.resize(requests.size());
    std::iota(order_.begin(), order_.end(), 0);
    std::stable_sort(order_.begin(), order_.end(), [&](int a, int b) { return requests[a] > requests[b]; });
    remaining_.assign(order_.size() + 1, 0);
    for (std::size_t k = order_.size(); k-- > 0;) remaining_[k] = remaining_[k + 1] + requests[order_[k]];
  }

  void run() { explore(0, 0); }
  int best() const { return best_; }
  const std::vector<int>& best_sockets() const { return best_socket_; }
  long nodes() const { return nodes_; }
  bool stopped() const { return stopped_; }

 private:
  // No placement below this node misses fewer cores than it already does, nor fewer than the remaining
  // requests exceed the cores still free.
  long lower_bound(std::size_t k, int missing) const {
    long free_cores = 0;
    for (std::size_t s = 0; s < cores_.size(); ++s) free_cores += std::max(0, cores_[s] - load_[s]);
    return missing + std::max(0L, remaining_[k] - free_cores);
  }

  void explore(std::size_t k, int missing) {
    ++nodes_;
    if (lower_bound(k, missing) >= best_) return;
    if (k == order_.size()) {
      best_ = missing;
      best_socket_ = socket_of_;
      return;
    }
    if (nodes_ > limit_ && !best_socket_.empty()) {
      stopped_ = true;
      return;
    }
    const int p = order_[k];
    const int request = requests_[p];

    // Sockets with the most free cores first, so the first dive finds a good bound; a socket in the same
    // state as one already tried here gives the same sub-tree and is skipped.
    std::vector<int> sockets;
    for (int s = 0; s < static_cast<int>(cores_.size()); ++s)
      if (members_[s] < cores_[s]) sockets.push_back(s);
    std::stable_sort(sockets.begin(), sockets.end(),
                     [&](int a, int b) { return cores_[a] - load_[a] > cores_[b] - load_[b]; });
    std::vector<int> tried;
    for (int s : sockets) {
      const bool same = std::any_of(tried.begin(), tried.end(), [&](int t) {
        return cores_[t] == cores_[s] && load_[t] == load_[s] && members_[t] == members_[s];
      });
      if (same) continue;
      tried.push_back(s);
      const int added = over(load_[s] + request, cores_[s]) - over(load_[s], cores_[s]);
      load_[s] += request;
      ++members_[s];
      socket_of_[p] = s;
      explore(k + 1, missing + added);
      socket_of_[p] = -1;
      --members_[s];
      load_[s] -= request;
      if (stopped_) return;
    }
  }

  std::span<const int> requests_, cores_;
  long limit_;
  std::vector<int> order_;
  std::vector<long> remaining_;
  std::vector<int> load_, members_, socket_of_, best_socket_;
  int best_ = std::numeric_limits<int>::max();
  long nodes_ = 0;
  bool stopped_ = false;
};

}  // namespace

int missing_cores(std::span<const int> requests, std::span<const int> socket_of, std::span<const int> socket_cores) {
  std::vector<int> load(socket_cores.size(), 0);
  for (std::size_t p = 0; p < requests.size(); ++p) load.at(socket_of[p]) += requests[p];
  int missing = 0;
  for (std::size_t s = 0; s < socket_cores.size(); ++s) missing += over(load[s], socket_cores[s]);
  return missing;
}

Placement place(std::span<const int> requests, std::span<const int> socket_cores, long node_limit) {
  if (requests.empty()) throw Error(Errc::invalid_argument, "no process to place");
  if (socket_cores.empty()) throw Error(Errc::invalid_argument, "a node needs at least one socket");
  for (int r : requests)
    if (r < 1) throw Error(Errc::invalid_argument, "request " + std::to_string(r) + " is below one thread");
  long total = 0;
  for (int c : socket_cores) {
    if (c < 1) throw Error(Errc::invalid_argument, "socket of " + std::to_string(c) + " cores");
    total += c;
  }
  if (static_cast<long>(requests.size()) > total)
    throw Error(Errc::invalid_argument, std::to_string(requests.size()) + " processes do not fit on " +
                                            std::to_string(total) + " cores");

  Search search(requests, socket_cores, node_limit);
  search.run();

  Placement result;
  result.socket = search.best_sockets();
  result.missing = search.best();
  result.nodes = search.nodes();
  result.exhaustive = !search.stopped();
  result.threads.assign(requests.size(), 0);
  result.first_core.assign(requests.size(), 0);

  // Fit: each socket's cores shared among its processes in proportion to their requests.
  int base = 0;
  for (int s = 0; s < static_cast<int>(socket_cores.size()); ++s) {
    std::vector<int> members;
    std::vector<double> weights;
    for (int p = 0; p < static_cast<int>(requests.size()); ++p)
      if (result.socket[p] == s) {
        members.push_back(p);
        weights.push_back(requests[p]);
      }
    if (!members.empty()) {
      const std::vector<int> counts = proportional_split(weights, socket_cores[s]);
      int next = base;
      for (std::size_t i = 0; i < members.size(); ++i) {
        result.threads[members[i]] = counts[i];
        result.first_core[members[i]] = next;
        next += counts[i];
      }
    }
    base += socket_cores[s];
  }
  return result;
}

}  // namespace herald::balance
