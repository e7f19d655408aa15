// Node layouts for the node-aware tests: blocks of k, cyclic over k nodes, and blocks of k with the last
// node one rank short.
#pragma once

#include <herald/layout.hpp>

#include <string>
#include <utility>
#include <vector>

namespace herald {

inline std::vector<std::pair<std::string, NodeLayout>> test_layouts(int ranks, int k) {
  std::vector<std::pair<std::string, NodeLayout>> out{{"blocks", NodeLayout::blocks(ranks, k)},
                                                      {"cyclic", NodeLayout::cyclic(ranks, k)}};
  if (ranks > 2) {
    std::vector<int> uneven(static_cast<std::size_t>(ranks));
    for (int r = 0; r < ranks; ++r) uneven[r] = r == ranks - 1 ? (r - 1) / k : r / k;
    out.emplace_back("uneven", NodeLayout(uneven));
  }
  return out;
}

}  // namespace herald
