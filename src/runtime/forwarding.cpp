#include "forwarding.hpp"

#include <herald/error.hpp>

#include <algorithm>
#include <string>

namespace herald::runtime::detail {

std::uint64_t ForwardingLedger::sent(int rank) const {
  return rank >= 0 && static_cast<std::size_t>(rank) < sent_.size() ? sent_[static_cast<std::size_t>(rank)] : 0;
}

std::vector<int> ForwardingLedger::tree(int root, std::span<const int> recipients, std::uint64_t bytes) {
  if (root < 0) throw Error(Errc::invalid_argument, "root " + std::to_string(root) + " of a broadcast");
  int highest = root;
  for (int r : recipients) {
    if (r < 0) throw Error(Errc::invalid_argument, "recipient " + std::to_string(r) + " of a broadcast");
    highest = std::max(highest, r);
  }
  if (static_cast<std::size_t>(highest) >= sent_.size()) sent_.resize(static_cast<std::size_t>(highest) + 1, 0);

  std::vector<int> parents;
  parents.reserve(recipients.size());
  std::vector<int> holders{root};  // holders[h + 1] is recipient h
  holders.reserve(recipients.size() + 1);
  auto sent = [&](std::size_t h) -> std::uint64_t& { return sent_[static_cast<std::size_t>(holders[h])]; };
  for (int r : recipients) {
    std::size_t best = 0;
    for (std::size_t h = 1; h < holders.size(); ++h)
      if (sent(h) < sent(best)) best = h;
    sent(best) += bytes;
    parents.push_back(static_cast<int>(best) - 1);
    holders.push_back(r);
  }
  return parents;
}

}  // namespace herald::runtime::detail
