// Reductions lowered to tasks, above both controls (docs/runtime.md, "Reductions"). A reduce(d, op) use
// becomes an inout use of one of d's partials, one per worker, each started from op's identity by an
// internal task; when d is next used otherwise (a task, enter, read or exit), internal combine tasks fold
// the partials into d over a binomial tree (or all into one rank) from reduction_tree.hpp. Everything the
// controls see is tasks with in, out and inout uses: they schedule, move, broadcast and trace a reduction as
// any other work, and a reduction read on several ranks is a reduce followed by a broadcast: an allreduce.
// Contributions go to partials by a fixed rule and combine in a fixed tree, so results are the same bits
// run to run for the same ranks and submissions.
#pragma once

#include "coordinator.hpp"
#include "reduction_tree.hpp"

#include <herald/runtime/runtime.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace herald::runtime::detail {

// The internal kernels: "herald.identity" and "herald.combine" take (BuiltinOp, Element) as arguments;
// a user's operator NAME runs as "herald.identity:NAME" and "herald.combine:NAME". A combine folds every
// input after the first access into the first, in access order.
inline constexpr std::string_view identity_kernel = "herald.identity";
inline constexpr std::string_view combine_kernel = "herald.combine";

class Reductions {
 public:
  // `runtime`: the Runtime's number, which its handles carry; `operators`: the users' operator names.
  Reductions(Coordinator& control, std::uint64_t runtime, Scheduler scheduler, Mapping mapping,
             ReductionStrategy strategy, std::vector<std::string> operators);

  Data data(std::span<std::byte> bytes, std::string name, int owner);
  void enter(Data d);
  void read(Data d, bool exit);
  std::uint64_t submit(std::string_view kernel, std::span<const Use> uses, Arguments arguments, TaskOptions options);

 private:
  struct Datum {
    std::span<std::byte> buffer;  // the program's; its partials name it too, but never enter nor read it
    std::string name;
    int owner = 0;
    bool valued = false;       // entered or written: the fold adds to its value
    std::vector<Data> partials;  // per worker, made when first contributed to
    // The reduction open on it, if any: its operator, and which partials hold a contribution.
    bool open = false;
    std::string op;
    Element element = Element::bytes;
    std::vector<bool> started;
    std::size_t contributions = 0;
  };
  Datum* reduced(const Data& d);  // d's record when a reduction is open on it
  void fold(const Data& d);
  // The worker whose partial a contribution adds to.
  std::size_t slot(const TaskInfo& info, std::span<const Use> uses, const TaskOptions& options, Datum& target);
  void check_operator(const Use& use, std::string_view task) const;
  Arguments operator_arguments(std::string_view op, Element element) const;
  std::string kernel_of(std::string_view base, std::string_view op) const;

  Coordinator& control_;
  std::uint64_t runtime_;
  Scheduler scheduler_;
  Mapping mapping_;
  ReductionStrategy strategy_;
  std::vector<std::string> operators_;
  std::vector<Datum> data_;   // by handle index, the controls' own numbering
  std::vector<Use> lowered_;  // a submit's uses as the control sees them
};

}  // namespace herald::runtime::detail
