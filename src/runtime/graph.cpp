#include "graph.hpp"

#include <herald/error.hpp>

namespace herald::runtime::detail {

std::uint32_t GraphRecord::add_handle(std::size_t bytes, std::string name) {
  handles_.push_back({bytes, std::move(name)});
  return static_cast<std::uint32_t>(handles_.size() - 1);
}

void GraphRecord::add_task(std::uint64_t task, std::span<const Access> accesses, std::vector<Resolved>* out) {
  for (const Access& a : accesses) {
    Handle& h = handles_[a.handle];
    Resolved r{a.handle, a.mode};
    if (a.mode == Mode::commute) {  // turns taken at run time: no version (lowering.hpp)
      r.written = a.closes;
    } else {
      if (reads(a.mode)) {
        r.read = h.version;
        r.maker = h.maker;
      }
      if (writes(a.mode)) {
        r.written = ++h.version;
        h.maker = task;
      }
    }
    if (out) out->push_back(r);
  }
}

}  // namespace herald::runtime::detail
