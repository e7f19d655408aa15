#include "reductions.hpp"

#include "graph.hpp"
#include "mapping.hpp"

#include <herald/settings.hpp>

#include <algorithm>
#include <cstring>

namespace herald::runtime::detail {

Reductions::Reductions(Coordinator& control, std::uint64_t runtime, Scheduler scheduler, Mapping mapping,
                       ReductionStrategy strategy, std::vector<std::string> operators)
    : control_(control), runtime_(runtime), scheduler_(scheduler), mapping_(std::move(mapping)), strategy_(strategy),
      operators_(std::move(operators)) {}

Data Reductions::data(std::span<std::byte> bytes, std::string name, int owner) {
  const Data d = control_.data(bytes, name, owner);
  if (data_.size() <= d.index_) data_.resize(d.index_ + 1);
  Datum& datum = data_[d.index_];
  datum.buffer = bytes;
  datum.name = std::move(name);
  datum.owner = owner;
  return d;
}

Reductions::Datum* Reductions::reduced(const Data& d) {
  if (d.owner_ != runtime_ || d.index_ >= data_.size() || !data_[d.index_].open) return nullptr;
  return &data_[d.index_];
}

void Reductions::enter(Data d) {
  fold(d);
  control_.enter(d);
  if (d.owner_ == runtime_ && d.index_ < data_.size()) data_[d.index_].valued = true;
}

void Reductions::read(Data d, bool exit) {
  fold(d);
  control_.read(d, exit);
}

std::string Reductions::kernel_of(std::string_view base, std::string_view op) const {
  BuiltinOp builtin{};
  if (builtin_op(op, builtin)) return std::string(base);
  return std::string(base) + ":" + std::string(op);
}

Arguments Reductions::operator_arguments(std::string_view op, Element element) const {
  BuiltinOp builtin{};
  if (!builtin_op(op, builtin)) return {};
  return arguments(builtin, element);
}

void Reductions::check_operator(const Use& use, std::string_view task) const {
  const std::string name = use.data.index_ < data_.size() ? data_[use.data.index_].name : "?";
  BuiltinOp builtin{};
  if (builtin_op(use.op, builtin)) {
    if (use.data.element_ == Element::bytes)
      throw Error(Errc::invalid_argument, std::string(task) + ": reduce(data '" + name + "', " + std::string(use.op) +
                                              ") needs an element type: register '" + name +
                                              "' from a span of an arithmetic type (Head::data(std::span<T>))");
    return;
  }
  if (std::find(operators_.begin(), operators_.end(), use.op) != operators_.end()) return;
  std::vector<std::string_view> known{"sum", "min", "max"};
  known.insert(known.end(), operators_.begin(), operators_.end());
  std::string message = std::string(task) + ": reduce(data '" + name + "', '" + std::string(use.op) +
                        "'): no reduction operator '" + std::string(use.op) + "' (built in: sum, min, max; " +
                        (operators_.empty() ? std::string("none registered") : "registered: " + std::to_string(operators_.size())) + ")";
  if (const auto near = nearest_name(use.op, known); !near.empty()) message += "; did you mean '" + std::string(near) + "'?";
  throw Error(Errc::invalid_argument, message);
}

std::size_t Reductions::slot(const TaskInfo& info, std::span<const Use> uses, const TaskOptions& options, Datum& target) {
  const auto workers = static_cast<std::size_t>(control_.workers());
  if (scheduler_ == Scheduler::mapped) return *chosen_worker(scheduler_, info, options.worker, mapping_, {});
  if (scheduler_ == Scheduler::owner) {
    // Owner computes: where the data it writes otherwise lives, else the first it reads.
    for (const Use& u : uses)
      if (u.mode == Mode::out || u.mode == Mode::inout) return static_cast<std::size_t>(data_[u.data.index_].owner);
    for (const Use& u : uses)
      if (u.mode == Mode::in) return static_cast<std::size_t>(data_[u.data.index_].owner);
  }
  if (options.worker && *options.worker >= 0 && static_cast<std::size_t>(*options.worker) < workers)
    return static_cast<std::size_t>(*options.worker);
  return target.contributions % workers;  // spread: one partial a worker, in submission order
}

std::uint64_t Reductions::submit(std::string_view kernel, std::span<const Use> uses, Arguments arguments,
                                 TaskOptions options) {
  const bool any = std::any_of(uses.begin(), uses.end(), [](const Use& u) { return u.mode == Mode::reduce; });
  // A datum used otherwise has its open reduction folded first, so the task sees its result.
  for (const Use& u : uses)
    if (u.mode != Mode::reduce) fold(u.data);
  if (!any) {
    const std::uint64_t id = control_.submit(kernel, uses, std::move(arguments), options);
    for (const Use& u : uses)
      if (writes(u.mode) && u.data.owner_ == runtime_ && u.data.index_ < data_.size()) data_[u.data.index_].valued = true;
    return id;
  }
  // Checked before anything is recorded: the handles, the operators, a datum named twice.
  const TaskInfo info{control_.next_task(), kernel, uses, options.priority, control_.workers()};
  const auto task = [&] { return task_name(info.task, kernel); };
  for (std::size_t i = 0; i < uses.size(); ++i) {
    const Use& u = uses[i];
    if (u.data.owner_ != runtime_ || u.data.index_ >= data_.size())
      throw Error(Errc::invalid_argument, task() + ": a use of a data handle this runtime never registered");
    if (u.mode == Mode::reduce) check_operator(u, task());
    for (std::size_t j = 0; j < i; ++j)
      if (uses[j].data.index_ == u.data.index_)
        throw Error(Errc::invalid_argument, task() + " names data '" + data_[u.data.index_].name +
                                                "' twice; use one access with mode inout");
  }
  lowered_.assign(uses.begin(), uses.end());
  for (Use& u : lowered_) {
    if (u.mode != Mode::reduce) continue;
    Datum* open = reduced(u.data);
    if (open && (open->op != u.op || open->element != u.data.element_)) {
      fold(u.data);  // another operator: the first reduction ends here
      open = nullptr;
    }
    Datum& d = data_[u.data.index_];
    if (!open) {
      d.open = true;
      d.op = std::string(u.op);
      d.element = u.data.element_;
      d.started.assign(static_cast<std::size_t>(control_.workers()), false);
      d.contributions = 0;
    }
    const std::size_t w = slot(info, uses, options, d);
    ++d.contributions;
    if (d.partials.size() <= w) d.partials.resize(static_cast<std::size_t>(control_.workers()));
    if (!d.partials[w].valid()) {
      d.partials[w] = control_.data(d.buffer, d.name + ".partial" + std::to_string(w), static_cast<int>(w));
      d.partials[w].element_ = d.element;
    }
    if (!d.started[w]) {
      const Use fresh[] = {out(d.partials[w])};
      control_.submit(kernel_of(identity_kernel, d.op), fresh, operator_arguments(d.op, d.element),
                      {.priority = options.priority, .worker = static_cast<int>(w)});
      d.started[w] = true;
    }
    u = inout(d.partials[w]);
    if (scheduler_ == Scheduler::mapped) options.worker = static_cast<int>(w);
  }
  const std::uint64_t id = control_.submit(kernel, lowered_, std::move(arguments), options);
  for (const Use& u : uses)
    if ((u.mode == Mode::out || u.mode == Mode::inout) && u.data.index_ < data_.size()) data_[u.data.index_].valued = true;
  return id;
}

void Reductions::fold(const Data& target) {
  Datum* d = reduced(target);
  if (!d) return;
  d->open = false;
  std::vector<std::size_t> used;  // the workers holding a partial, in order
  for (std::size_t w = 0; w < d->started.size(); ++w)
    if (d->started[w]) used.push_back(w);
  const auto owner = std::find(used.begin(), used.end(), static_cast<std::size_t>(d->owner));
  const std::size_t root = owner == used.end() ? 0 : static_cast<std::size_t>(owner - used.begin());
  const std::string combine = kernel_of(combine_kernel, d->op);
  const Arguments how = operator_arguments(d->op, d->element);
  const auto worker = [&](std::size_t i) { return static_cast<int>(used[i]); };
  if (!d->valued) {
    // Nothing to add the partials to: the datum starts at the identity.
    const Use fresh[] = {out(target)};
    control_.submit(kernel_of(identity_kernel, d->op), fresh, how, {.worker = worker(root)});
    d->valued = true;
  }
  std::vector<Use> last{inout(target)};
  if (strategy_ == ReductionStrategy::tree) {
    for (const CombineStep& s : combine_steps(used.size(), root, strategy_)) {
      const Use pair[] = {inout(d->partials[used[s.into]]), in(d->partials[used[s.from]])};
      control_.submit(combine, pair, how, {.worker = worker(s.into)});
    }
    last.push_back(in(d->partials[used[root]]));
  } else {
    last.push_back(in(d->partials[used[root]]));
    for (const CombineStep& s : combine_steps(used.size(), root, strategy_)) last.push_back(in(d->partials[used[s.from]]));
  }
  control_.submit(combine, last, how, {.worker = worker(root)});
}

}  // namespace herald::runtime::detail
