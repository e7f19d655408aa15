#include "link_plan.hpp"

#include <herald/error.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

namespace herald::runtime::detail {

namespace {

double free_at(const std::vector<double>& free, int rank) {
  const auto r = static_cast<std::size_t>(rank);
  return r < free.size() ? free[r] : 0.0;
}

void check_time(double t, const char* what) {
  if (!std::isfinite(t) || t < 0) throw Error(Errc::invalid_argument, std::string(what) + " " + std::to_string(t) + " in a broadcast's plan");
}

}  // namespace

double LinkQueues::out_free(int rank) const { return free_at(out_, rank); }
double LinkQueues::in_free(int rank) const { return free_at(in_, rank); }

double LinkQueues::start(int from, int to, double ready) const {
  return std::max({ready, out_free(from), in_free(to)});
}

void LinkQueues::occupy(int from, int to, double finish) {
  if (from < 0 || to < 0) throw Error(Errc::invalid_argument, "a transfer from rank " + std::to_string(from) + " to rank " + std::to_string(to));
  const auto grow = [](std::vector<double>& v, int rank) {
    if (static_cast<std::size_t>(rank) >= v.size()) v.resize(static_cast<std::size_t>(rank) + 1, 0.0);
    return &v[static_cast<std::size_t>(rank)];
  };
  double* out = grow(out_, from);
  double* in = grow(in_, to);
  *out = std::max(*out, finish);
  *in = std::max(*in, finish);
}

PlannedTree plan_tree(int root, double ready, std::span<const Need> recipients, double seconds, double lag,
                      LinkQueues& links) {
  if (root < 0) throw Error(Errc::invalid_argument, "root " + std::to_string(root) + " of a broadcast");
  check_time(ready, "ready time");
  check_time(seconds, "copy length");
  check_time(lag, "forwarding lag");
  for (std::size_t i = 0; i < recipients.size(); ++i) {
    const Need& n = recipients[i];
    if (n.rank < 0 || n.rank == root)
      throw Error(Errc::invalid_argument, "recipient " + std::to_string(n.rank) + " of a broadcast from rank " + std::to_string(root));
    check_time(n.need, "need time");
    for (std::size_t j = 0; j < i; ++j)
      if (recipients[j].rank == n.rank)
        throw Error(Errc::invalid_argument, "recipient " + std::to_string(n.rank) + " twice in one broadcast");
  }

  std::vector<std::size_t> order(recipients.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const Need& x = recipients[a];
    const Need& y = recipients[b];
    return x.need != y.need ? x.need < y.need : x.priority > y.priority;
  });

  PlannedTree tree;
  const std::size_t n = recipients.size();
  tree.recipients.reserve(n);
  tree.parents.reserve(n);
  tree.starts.reserve(n);
  tree.finishes.reserve(n);
  // Holder h: the root (h = 0) or recipient h - 1 in the order served; when it has data to send, and no
  // copy from it ends before `last`.
  struct Holder {
    int rank;
    double first;
    double last;
  };
  std::vector<Holder> holders{{root, ready, 0.0}};
  holders.reserve(n + 1);
  for (std::size_t i : order) {
    const Need& r = recipients[i];
    std::size_t best = 0;
    double best_start = 0, best_finish = 0;
    for (std::size_t h = 0; h < holders.size(); ++h) {
      const double start = links.start(holders[h].rank, r.rank, holders[h].first);
      const double finish = std::max(start + seconds, holders[h].last);
      if (h == 0 || finish < best_finish) {
        best = h;
        best_start = start;
        best_finish = finish;
      }
    }
    links.occupy(holders[best].rank, r.rank, best_finish);
    tree.recipients.push_back(r);
    tree.parents.push_back(static_cast<int>(best) - 1);
    tree.starts.push_back(best_start);
    tree.finishes.push_back(best_finish);
    holders.push_back({r.rank, best_start + lag, best_finish + lag});
  }
  return tree;
}

}  // namespace herald::runtime::detail
