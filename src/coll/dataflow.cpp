#include <herald/dataflow.hpp>
#include <herald/error.hpp>

#include <limits>
#include <map>
#include <string>

namespace herald {
namespace {

constexpr std::uint32_t no_receive = std::numeric_limits<std::uint32_t>::max();

struct Held {
  std::size_t end;
  std::uint32_t receive;  // step that brought these bytes, or no_receive for the root's own data
};

std::string where(int rank, std::size_t step) {
  return (rank >= 0 ? "rank " + std::to_string(rank) + " " : std::string()) + "step " + std::to_string(step);
}

std::string show(ByteRange r) {
  return "[" + std::to_string(r.offset) + ", " + std::to_string(r.end()) + ")";
}

}  // namespace

Dataflow::Dataflow(const Program& program, bool is_root, std::size_t bytes, int rank) {
  begin_.assign(program.size() + 1, 0);
  redundant_.assign(program.size(), false);
  std::map<std::size_t, Held> held;  // disjoint ranges the rank has, by start
  if (is_root && bytes > 0) held.emplace(0, Held{bytes, no_receive});

  for (std::size_t i = 0; i < program.size(); ++i) {
    const Step& step = program[i];
    const ByteRange r = step.range;
    begin_[i] = static_cast<std::uint32_t>(deps_.size());
    if (r.offset > bytes || r.length > bytes - r.offset)
      throw Error(Errc::invalid_schedule, where(rank, i) + " range " + show(r) + " leaves the " +
                                              std::to_string(bytes) + "-byte buffer");

    // First held range that ends after r.offset.
    auto it = held.upper_bound(r.offset);
    if (it != held.begin() && std::prev(it)->second.end > r.offset) --it;

    if (step.op == Step::Op::send) {
      std::size_t covered = r.offset;
      for (; it != held.end() && it->first <= covered && covered < r.end(); ++it) {
        if (it->second.receive != no_receive) deps_.push_back(it->second.receive);
        covered = it->second.end;
      }
      if (covered < r.end())
        throw Error(Errc::invalid_schedule, where(rank, i) + " sends " + show(r) +
                                                " before it has bytes from " + std::to_string(covered));
    } else {
      std::size_t overlap = 0;
      for (auto j = it; j != held.end() && j->first < r.end(); ++j)
        overlap += std::min(j->second.end, r.end()) - std::max(j->first, r.offset);
      if (overlap == r.length) {
        redundant_[i] = true;
        scratch_ = std::max(scratch_, r.length);
      } else if (overlap != 0) {
        throw Error(Errc::invalid_schedule, where(rank, i) + " receives " + show(r) +
                                                ", which partly overlaps bytes it already has");
      } else {
        held.emplace(r.offset, Held{r.end(), static_cast<std::uint32_t>(i)});
      }
    }
  }
  begin_[program.size()] = static_cast<std::uint32_t>(deps_.size());
}

}  // namespace herald
