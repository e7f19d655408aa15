// Reads back the tree an unsegmented tree schedule implies: a rank's parent is the peer it receives from,
// its children the peers it sends to, in the order it serves them. Lets tests state tree shapes by hand.
#pragma once

#include <herald/algorithms.hpp>

#include <string_view>
#include <vector>

namespace herald::testing {

struct Shape {
  int parent = -1;
  std::vector<int> children;
  friend bool operator==(const Shape&, const Shape&) = default;
};

inline Shape shape_of(const Program& program) {
  Shape shape;
  for (const Step& step : program) {
    if (step.op == Step::Op::recv) {
      shape.parent = step.peer;
    } else {
      shape.children.push_back(step.peer);
    }
  }
  return shape;
}

// One byte, so each edge of the tree carries exactly one message.
inline std::vector<Shape> shapes(std::string_view algorithm, int ranks, int root = 0, Parameters parameters = {}) {
  const Schedule s = make_schedule(find_algorithm(algorithm),
                                   {.ranks = ranks, .root = root, .bytes = 1, .parameters = parameters});
  std::vector<Shape> out;
  for (const Program& program : s.programs) out.push_back(shape_of(program));
  return out;
}

// Levels below the root of the deepest rank.
inline int depth(const std::vector<Shape>& tree) {
  int deepest = 0;
  for (std::size_t r = 0; r < tree.size(); ++r) {
    int d = 0;
    // A cycle would never reach the root: stop past the rank count so a broken tree fails, not hangs.
    for (int at = static_cast<int>(r); tree[at].parent >= 0 && d <= static_cast<int>(tree.size());
         at = tree[at].parent)
      ++d;
    deepest = d > deepest ? d : deepest;
  }
  return deepest;
}

}  // namespace herald::testing
