#include <herald/balance/split.hpp>
#include <herald/error.hpp>

#include <algorithm>
#include <cmath>
#include <string>

namespace herald::balance {

std::vector<int> proportional_split(std::span<const double> weights, int cores) {
  const int n = static_cast<int>(weights.size());
  if (n == 0) throw Error(Errc::invalid_argument, "no process to share cores among");
  if (cores < n)
    throw Error(Errc::invalid_argument, std::to_string(cores) + " cores cannot give " + std::to_string(n) +
                                            " processes one thread each");
  for (double w : weights)
    if (!std::isfinite(w) || w < 0)
      throw Error(Errc::invalid_argument, "load " + std::to_string(w) + " is not a non-negative number");

  std::vector<double> w(weights.begin(), weights.end());
  if (std::all_of(w.begin(), w.end(), [](double x) { return x == 0; })) std::fill(w.begin(), w.end(), 1.0);

  // The lightest process whose share falls below one core is pinned to one and the rest is shared again:
  // pinning only raises the others' shares, so one at a time keeps every pin necessary.
  std::vector<int> counts(n, 0);
  std::vector<bool> pinned(n, false);
  int free_cores = cores;
  for (;;) {
    double total = 0;
    int lightest = -1;
    for (int p = 0; p < n; ++p) {
      if (pinned[p]) continue;
      total += w[p];
      if (lightest < 0 || w[p] < w[lightest]) lightest = p;
    }
    if (lightest < 0 || (total > 0 && free_cores * w[lightest] >= total)) break;
    pinned[lightest] = true;
    counts[lightest] = 1;
    --free_cores;
  }

  // Largest remainder among the others: round down, then hand out what is left, one core each.
  double total = 0;
  std::vector<int> order;
  for (int p = 0; p < n; ++p)
    if (!pinned[p]) {
      total += w[p];
      order.push_back(p);
    }
  std::vector<double> fraction(n, 0);
  int left = free_cores;
  for (int p : order) {
    const double share = free_cores * w[p] / total;
    counts[p] = std::max(1, static_cast<int>(std::floor(share)));
    fraction[p] = share - std::floor(share);
    left -= counts[p];
  }
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return fraction[a] > fraction[b]; });
  for (std::size_t i = 0; left > 0 && !order.empty(); --left, i = (i + 1) % order.size()) ++counts[order[i]];
  return counts;
}

}  // namespace herald::balance
