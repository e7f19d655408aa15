#include "lowering.hpp"

#include "estimates.hpp"
#include "graph.hpp"
#include "mapping.hpp"

#include <herald/settings.hpp>
#include <herald/tracing.hpp>

#include <algorithm>
#include <cstring>

namespace herald::runtime::detail {

Lowering::Lowering(Coordinator& control, std::uint64_t runtime, Scheduler scheduler, Mapping mapping,
                       ReductionStrategy strategy, Link link, std::vector<Operator> operators)
    : control_(control), runtime_(runtime), scheduler_(scheduler), mapping_(std::move(mapping)), strategy_(strategy),
      link_(link), operators_(std::move(operators)) {}

std::size_t Lowering::elementwise(std::string_view op, Element element) const {
  BuiltinOp builtin{};
  if (builtin_op(op, builtin)) return element_size(element);
  for (const Operator& o : operators_)
    if (o.name == op) return o.element_bytes;
  return 0;
}

std::string Lowering::kernel_of(std::string_view base, std::string_view op) const {
  BuiltinOp builtin{};
  if (builtin_op(op, builtin)) return std::string(base);
  return std::string(base) + ":" + std::string(op);
}

Arguments Lowering::operator_arguments(std::string_view op, Element element) const {
  BuiltinOp builtin{};
  if (!builtin_op(op, builtin)) return {};
  return arguments(builtin, element);
}

namespace {

// The trace names data as the program named them (herald-trace's critical path, the transfers).
void trace_name(const Data& d, std::string_view name) {
  if (trace::Recorder* recorder = trace::recorder()) {
    const double now = recorder->now();
    recorder->record({.begin = now, .end = now, .a = d.index(), .name = recorder->string(name), .kind = trace::Kind::data_name});
  }
}

}  // namespace

Data Lowering::data(std::span<std::byte> bytes, std::string name, int owner) {
  const Data d = control_.data(bytes, name, owner);
  trace_name(d, name);
  if (data_.size() <= d.index_) data_.resize(d.index_ + 1);
  Datum& datum = data_[d.index_];
  datum.buffer = bytes;
  datum.name = std::move(name);
  datum.owner = owner;
  return d;
}

Data Lowering::internal(Datum& d, std::span<std::byte> bytes, std::string name, std::size_t worker, bool broadcast) {
  Data made = control_.data(bytes, d.name + "." + name, static_cast<int>(worker), broadcast);
  trace_name(made, d.name + "." + name);
  made.element_ = d.element;
  if (data_.size() <= made.index_) data_.resize(made.index_ + 1);
  data_[made.index_].owner = static_cast<int>(worker);
  data_[made.index_].name = d.name + "." + name;
  return made;
}

Data Lowering::scratch(std::size_t bytes, std::size_t k, std::size_t worker) {
  auto [at, made] = scratch_.try_emplace({bytes, k, worker});
  if (made) {
    // The controls want a buffer of the program's for every datum; nothing reads or writes a scratch
    // datum's, so every one shares the largest so far.
    if (scratch_buffers_.empty() || scratch_buffers_.back().size() < bytes) scratch_buffers_.emplace_back(bytes);
    const std::span<std::byte> buffer = std::span(scratch_buffers_.back()).first(bytes);
    at->second = data(buffer, "herald.scratch" + std::to_string(bytes) + "." + std::to_string(k) + ".w" + std::to_string(worker),
                      static_cast<int>(worker));
  }
  return at->second;
}

void Lowering::check_whole(const Data& d, std::string_view what, bool program_buffer) const {
  if (!ours(d)) return;  // the control refuses it, naming the handle
  const Datum& x = data_[d.index_];
  if (x.partitioned)
    throw Error(Errc::invalid_argument, std::string(what) + ": data '" + x.name +
                                            "' is partitioned; use its pieces, or unpartition it first");
  if (x.retired)
    throw Error(Errc::invalid_argument, std::string(what) + ": data '" + x.name + "' is a piece of '" +
                                            data_[*x.parent].name + "', which was unpartitioned");
  if (program_buffer && x.block)
    throw Error(Errc::invalid_argument, std::string(what) + ": data '" + x.name + "' is a 2-D block, which has no "
                                            "buffer of the program's; read '" + data_[*x.parent].name + "' after unpartition");
}

void Lowering::enter(Data d) {
  check_whole(d, "enter", true);
  settle(d);
  control_.enter(d);
  if (ours(d)) datum(d).scattered = false;  // the entered value replaces the pieces'
}

void Lowering::read(Data d, bool exit) {
  check_whole(d, exit ? "exit" : "read", true);
  settle(d);
  if (ours(d) && datum(d).scattered) assemble(d, datum(d));
  control_.read(d, exit);
}

void Lowering::check_operator(const Use& use, std::string_view task) const {
  const std::string& name = data_[use.data.index_].name;
  BuiltinOp builtin{};
  if (builtin_op(use.op, builtin)) {
    if (use.data.element_ == Element::bytes)
      throw Error(Errc::invalid_argument, std::string(task) + ": reduce(data '" + name + "', " + std::string(use.op) +
                                              ") needs an element type: register '" + name +
                                              "' from a span of an arithmetic type (Head::data(std::span<T>))");
    return;
  }
  if (std::any_of(operators_.begin(), operators_.end(), [&](const Operator& o) { return o.name == use.op; })) return;
  std::vector<std::string_view> known{"sum", "min", "max"};
  for (const Operator& o : operators_) known.push_back(o.name);
  std::string message = std::string(task) + ": reduce(data '" + name + "', '" + std::string(use.op) +
                        "'): no reduction operator '" + std::string(use.op) + "' (built in: sum, min, max; " +
                        (operators_.empty() ? std::string("none registered") : std::to_string(operators_.size()) + " registered") + ")";
  if (const auto near = nearest_name(use.op, known); !near.empty()) message += "; did you mean '" + std::string(near) + "'?";
  throw Error(Errc::invalid_argument, message);
}

void Lowering::check(std::string_view kernel, std::span<const Use> uses) const {
  const auto task = [&] { return task_name(control_.next_task(), kernel); };
  for (std::size_t i = 0; i < uses.size(); ++i) {
    const Use& u = uses[i];
    if (u.mode == Mode::scratch) continue;
    if (!ours(u.data)) throw Error(Errc::invalid_argument, task() + ": a use of a data handle this runtime never registered");
    check_whole(u.data, task(), false);
    if (u.mode == Mode::reduce) check_operator(u, task());
    for (std::size_t j = 0; j < i; ++j)
      if (uses[j].mode != Mode::scratch && uses[j].data.index_ == u.data.index_)
        throw Error(Errc::invalid_argument, task() + " names data '" + data_[u.data.index_].name +
                                                "' twice; use one access with mode inout");
  }
}

std::optional<std::size_t> Lowering::known_worker(std::string_view kernel, std::span<const Use> uses,
                                                    const TaskOptions& options) const {
  if (scheduler_ == Scheduler::mapped) {
    const TaskInfo info{control_.next_task(), kernel, uses, options.priority, control_.workers()};
    return chosen_worker(scheduler_, info, options.worker, mapping_, {});
  }
  if (scheduler_ != Scheduler::owner) return std::nullopt;
  // Owner computes, as the controls decide it for the lowered task: the owner of the first datum it writes
  // (a contribution's partial is made that worker's), else of the first it reads.
  for (const Use& u : uses)
    if (u.mode == Mode::out || u.mode == Mode::inout) return static_cast<std::size_t>(data_[u.data.index_].owner);
  for (const Use& u : uses)
    if (u.mode == Mode::in) return static_cast<std::size_t>(data_[u.data.index_].owner);
  return std::nullopt;
}

Data Lowering::contribute(const Use& use, std::optional<std::size_t> worker, const TaskOptions& options) {
  close_run(use.data);
  Datum& d = datum(use.data);
  if (d.open && (d.op != use.op || d.element != use.data.element_)) fold(use.data);  // another operator: the first ends
  if (d.scattered) assemble(use.data, d);  // the new reduction adds to the value whole
  const auto workers = static_cast<std::size_t>(control_.workers());
  if (!d.open) {
    d.open = true;
    d.op = std::string(use.op);
    d.element = use.data.element_;
    d.started.assign(workers, false);
    d.contributions = 0;
  }
  // The partial: the task's worker where known; else the one it names (a hint HEFT may overrule); else the
  // next, so that contributions spread one partial a worker.
  std::size_t w = d.contributions % workers;
  if (worker) w = *worker;
  else if (options.worker && *options.worker >= 0 && static_cast<std::size_t>(*options.worker) < workers)
    w = static_cast<std::size_t>(*options.worker);
  ++d.contributions;
  if (d.partials.size() < workers) d.partials.resize(workers);
  if (!d.partials[w].valid()) d.partials[w] = internal(d, d.buffer, "partial" + std::to_string(w), w);
  if (!d.started[w]) {
    const Use fresh[] = {out(d.partials[w])};
    control_.submit(kernel_of(identity_kernel, d.op), fresh, operator_arguments(d.op, d.element),
                    {.priority = options.priority, .worker = static_cast<int>(w)});
    d.started[w] = true;
  }
  return d.partials[w];
}

std::uint64_t Lowering::submit(std::string_view kernel, std::span<const Use> uses, Arguments arguments,
                                 TaskOptions options) {
  const bool involved = std::any_of(uses.begin(), uses.end(), [&](const Use& u) {
    if (u.mode == Mode::reduce || u.mode == Mode::scratch || u.mode == Mode::commute) return true;
    if (!ours(u.data)) return false;
    const Datum& x = datum(u.data);
    return x.open || x.scattered || x.partitioned || x.retired || x.run;
  });
  if (!involved) return control_.submit(kernel, uses, std::move(arguments), options);
  check(kernel, uses);  // before anything is recorded
  const std::optional<std::size_t> worker = known_worker(kernel, uses, options);
  // Data used otherwise have their open reductions folded and runs of updates closed first, so the task
  // sees the results (an update folds the reduction only; a contribution closes the run in contribute()).
  for (const Use& u : uses) {
    if (u.mode == Mode::commute) fold(u.data);
    else if (u.mode != Mode::reduce && u.mode != Mode::scratch) settle(u.data);
  }
  lowered_.assign(uses.begin(), uses.end());
  std::vector<Datum*> overwritten;
  std::size_t scratches = 0;
  for (Use& u : lowered_) {
    if (u.mode == Mode::scratch) {
      u = out(scratch(u.bytes, scratches++, worker.value_or(0)));
      continue;
    }
    Datum& d = datum(u.data);
    if (u.mode == Mode::reduce) {
      u = inout(contribute(u, worker, options));
    } else if (u.mode == Mode::commute) {
      if (d.scattered) assemble(u.data, d);
      u = Use{join_run(u, task_name(control_.next_task(), kernel)), Mode::commute};
    } else if (d.scattered) {
      if (u.mode == Mode::out) overwritten.push_back(&d);  // the pieces are moot once the task is recorded
      else if (u.mode == Mode::in && worker) u = in(copy_on(d, *worker));
      else assemble(u.data, d);
    }
  }
  if (scheduler_ == Scheduler::mapped && worker) options.worker = static_cast<int>(*worker);
  const std::uint64_t id = control_.submit(kernel, lowered_, std::move(arguments), options);
  for (Datum* d : overwritten) d->scattered = false;
  return id;
}

Data Lowering::join_run(const Use& use, std::string_view task) {
  Datum& d = datum(use.data);
  if (!d.run) {
    if (!control_.has_value(use.data)) throw Error(Errc::invalid_argument, no_value_yet(task, d.name));
    // The run's value starts as a copy of the datum's, made on its owner where the scheduler follows the
    // hint (the rank the opening task runs on grants the turns); it is never broadcast, as only turns move it.
    const Data run = internal(d, d.buffer, "run" + std::to_string(d.runs++), static_cast<std::size_t>(d.owner), false);
    const Use open[] = {out(run), in(use.data)};
    control_.submit(assemble_kernel, open, {}, {.worker = d.owner});
    d.run = run;
    d.updates = 0;
  }
  ++d.updates;
  return *d.run;
}

void Lowering::close_run(const Data& target) {
  if (!ours(target) || !datum(target).run) return;
  Datum& d = datum(target);
  const Use close[] = {out(target), Use{*d.run, Mode::commute, {}, d.updates}};
  d.run.reset();
  control_.submit(assemble_kernel, close, {}, {.worker = d.owner});
}

void Lowering::fold(const Data& target) {
  if (!ours(target) || !datum(target).open) return;
  Datum& d = datum(target);
  d.open = false;
  std::vector<std::size_t> used;  // the workers holding a partial, in order
  for (std::size_t w = 0; w < d.started.size(); ++w)
    if (d.started[w]) used.push_back(w);
  const auto owner = std::find(used.begin(), used.end(), static_cast<std::size_t>(d.owner));
  const std::size_t root = owner == used.end() ? 0 : static_cast<std::size_t>(owner - used.begin());
  const std::string combine = kernel_of(combine_kernel, d.op);
  const Arguments how = operator_arguments(d.op, d.element);
  const ReductionStrategy strategy = resolve_reduction(strategy_, used.size(), target.bytes_,
                                                       elementwise(d.op, d.element) > 0, link_, unknown_task_seconds);
  if (strategy == ReductionStrategy::scatter && used.size() > 1) {
    d.used = std::move(used);
    d.root = root;
    return scatter(d, target, how);
  }
  const auto worker = [&](std::size_t i) { return static_cast<int>(used[i]); };
  if (!control_.has_value(target)) {
    // Nothing to add the partials to: the datum starts at the identity.
    const Use fresh[] = {out(target)};
    control_.submit(kernel_of(identity_kernel, d.op), fresh, how, {.worker = worker(root)});
  }
  std::vector<Use> last{inout(target)};
  if (strategy == ReductionStrategy::tree) {
    for (const CombineStep& s : combine_steps(used.size(), root, strategy)) {
      const Use pair[] = {inout(d.partials[used[s.into]]), in(d.partials[used[s.from]])};
      control_.submit(combine, pair, how, {.worker = worker(s.into)});
    }
    last.push_back(in(d.partials[used[root]]));
  } else {
    last.push_back(in(d.partials[used[root]]));
    for (const CombineStep& s : combine_steps(used.size(), root, strategy)) last.push_back(in(d.partials[used[s.from]]));
  }
  control_.submit(combine, last, how, {.worker = worker(root)});
}

void Lowering::scatter(Datum& d, const Data& target, const Arguments& how) {
  // Piece p of the value is combined on the p-th contributing worker, from piece p of every partial and of
  // the value before (if any); the value then lives in those pieces.
  const std::size_t m = d.used.size();
  const auto sizes = piece_sizes(target.bytes_, elementwise(d.op, d.element), m);
  const auto workers = static_cast<std::size_t>(control_.workers());
  if (d.pieces_of != m) {
    d.pieces.assign(workers, {});
    d.value_pieces.clear();
    d.pieces_of = m;
  }
  // The pieces of a partial (or of the value) are owned where it is cut, so that the owner scheduler cuts
  // it there too; the cut makes them views of the whole (herald.partition), with no copy.
  const auto cut = [&](std::vector<Data>& into, const std::string& of, std::size_t owner) {
    std::size_t at = 0;
    for (std::size_t p = 0; p < m; ++p) {
      into.push_back(internal(d, d.buffer.subspan(at, sizes[p]), "piece" + std::to_string(p) + ".of" + of, owner, false));
      at += sizes[p];
    }
  };
  const auto split = [&](const Data& whole, std::span<const Data> pieces, std::size_t worker) {
    std::vector<Use> uses{in(whole)};
    for (const Data& piece : pieces) uses.push_back(out(piece));
    control_.submit(partition_kernel, uses, {}, {.worker = static_cast<int>(worker)});
  };
  for (std::size_t u : d.used) {
    if (d.pieces[u].empty()) cut(d.pieces[u], std::to_string(u), u);
    split(d.partials[u], d.pieces[u], u);
  }
  const bool valued = control_.has_value(target);
  if (valued) {
    const auto owner = static_cast<std::size_t>(d.owner);
    if (d.value_pieces.empty()) cut(d.value_pieces, "value", owner);
    split(target, d.value_pieces, owner);
  }
  const std::string combine = kernel_of(combine_kernel, d.op);
  for (std::size_t p = 0; p < m; ++p) {
    std::vector<Use> uses{inout(d.pieces[d.used[p]][p])};
    for (std::size_t k = 1; k < m; ++k) uses.push_back(in(d.pieces[d.used[(p + k) % m]][p]));
    if (valued) uses.push_back(in(d.value_pieces[p]));
    control_.submit(combine, uses, how, {.worker = static_cast<int>(d.used[p])});
  }
  d.scattered = true;
  d.assembled.assign(workers, false);
}

void Lowering::assemble_into(const Data& whole, const Datum& d, std::size_t worker) {
  std::vector<Use> uses{out(whole)};
  for (std::size_t p = 0; p < d.used.size(); ++p) uses.push_back(in(d.pieces[d.used[p]][p]));
  control_.submit(assemble_kernel, uses, {}, {.worker = static_cast<int>(worker)});
}

void Lowering::assemble(const Data& target, Datum& d) {
  assemble_into(target, d, d.used[d.root]);
  d.scattered = false;
}

Data Lowering::copy_on(Datum& d, std::size_t worker) {
  if (d.copies.size() <= worker) d.copies.resize(static_cast<std::size_t>(control_.workers()));
  if (!d.copies[worker].valid()) d.copies[worker] = internal(d, d.buffer, "copy" + std::to_string(worker), worker);
  if (!d.assembled[worker]) {
    assemble_into(d.copies[worker], d, worker);
    d.assembled[worker] = true;
  }
  return d.copies[worker];
}

std::vector<Data> Lowering::partition(Data target, std::size_t blocks, std::optional<Blocks2D> grid) {
  const std::string what = grid ? "partition (2-D)" : "partition";
  if (!ours(target)) throw Error(Errc::invalid_argument, what + " of a data handle this runtime never registered");
  check_whole(target, what, false);
  Datum& d = datum(target);
  const std::size_t element = element_size(target.element_);
  const std::size_t elements = target.bytes_ / element;
  std::vector<std::size_t> sizes;
  if (grid) {
    const Blocks2D& g = *grid;
    if (g.rows * g.columns * element != target.bytes_)
      throw Error(Errc::invalid_argument, what + " of '" + d.name + "': " + std::to_string(g.rows) + " x " +
                                              std::to_string(g.columns) + " elements of " + std::to_string(element) +
                                              " bytes are not its " + std::to_string(target.bytes_) + " bytes");
    if (g.block_rows == 0 || g.block_columns == 0 || g.block_rows > g.rows || g.block_columns > g.columns)
      throw Error(Errc::invalid_argument, what + " of '" + d.name + "': blocks of " + std::to_string(g.block_rows) +
                                              " x " + std::to_string(g.block_columns) + " do not fit " +
                                              std::to_string(g.rows) + " x " + std::to_string(g.columns));
    for (std::size_t r = 0; r < g.rows; r += g.block_rows)
      for (std::size_t c = 0; c < g.columns; c += g.block_columns)
        sizes.push_back(std::min(g.block_rows, g.rows - r) * std::min(g.block_columns, g.columns - c) * element);
  } else {
    if (blocks == 0 || blocks > elements)
      throw Error(Errc::invalid_argument, what + " of '" + d.name + "' into " + std::to_string(blocks) +
                                              " pieces: it has " + std::to_string(elements) + " elements");
    sizes = piece_sizes(target.bytes_, element, blocks);
  }
  settle(target);
  if (d.scattered) assemble(target, d);
  std::vector<Data> parts;
  std::vector<Use> uses{in(target)};
  std::size_t at = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    std::string name = d.name + "[" + std::to_string(i) + "]";
    if (grid) {
      const std::size_t across = (grid->columns + grid->block_columns - 1) / grid->block_columns;
      name = d.name + "[" + std::to_string(i / across) + "," + std::to_string(i % across) + "]";
    }
    // A 1-D piece's buffer is its part of the program's; a block's is never used (reads go through d).
    const std::span<std::byte> buffer = grid ? d.buffer.subspan(0, sizes[i]) : d.buffer.subspan(at, sizes[i]);
    at += sizes[i];
    Data piece = data(buffer, name, d.owner);
    piece.element_ = target.element_;
    Datum& p = datum(piece);  // a deque: `d` stays put
    p.parent = target.index_;
    p.block = grid.has_value() || d.block;  // a piece of a block has no buffer of the program's either
    parts.push_back(piece);
    uses.push_back(out(piece));
  }
  if (control_.has_value(target)) {
    const Arguments shape = grid ? arguments(*grid, element) : Arguments{};
    control_.submit(grid ? partition2d_kernel : partition_kernel, uses, shape, {.worker = d.owner});
  }
  d.partitioned = true;
  d.parts = parts;
  d.grid = grid;
  return parts;
}

void Lowering::unpartition(Data target) {
  if (!ours(target) || !datum(target).partitioned)
    throw Error(Errc::invalid_argument, "unpartition of " + (ours(target) ? "data '" + datum(target).name + "', which is not partitioned"
                                                                          : std::string("a data handle this runtime never registered")));
  Datum& d = datum(target);
  for (const Data& piece : d.parts)
    if (datum(piece).partitioned)
      throw Error(Errc::invalid_argument, "unpartition of '" + d.name + "': its piece '" + datum(piece).name +
                                              "' is partitioned itself; unpartition it first");
  std::vector<Use> uses{out(target)};
  std::size_t valued = 0;
  for (const Data& piece : d.parts) {
    settle(piece);
    if (datum(piece).scattered) assemble(piece, datum(piece));
    valued += control_.has_value(piece) ? 1 : 0;
    uses.push_back(in(piece));
  }
  if (valued != 0 && valued != d.parts.size())
    for (const Data& piece : d.parts)
      if (!control_.has_value(piece))
        throw Error(Errc::invalid_argument, "unpartition of '" + d.name + "': piece '" + datum(piece).name +
                                                "' has no value; write every piece, or none");
  d.partitioned = false;
  if (valued != 0) {
    const Arguments shape = d.grid ? arguments(*d.grid, element_size(target.element_)) : Arguments{};
    control_.submit(d.grid ? unpartition2d_kernel : assemble_kernel, uses, shape, {.worker = d.owner});
  }
  for (const Data& piece : d.parts) datum(piece).retired = true;
  d.parts.clear();
}

}  // namespace herald::runtime::detail
