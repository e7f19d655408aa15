#include "runtime_graph.hpp"

#include "output.hpp"

#include <herald/config.hpp>

#include <mpi.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace herald::taskbench {
namespace {

using namespace herald::runtime;

struct TaskId {
  long graph;
  long timestep;
  long point;
};

// The head's buffers of one graph and their handles.
struct GraphData {
  std::vector<std::vector<std::vector<std::byte>>> output_bytes;  // [parity][point]
  std::vector<std::vector<std::byte>> scratch_bytes;              // [point]
  std::vector<std::byte> broadcast_bytes;
  std::vector<std::vector<Data>> outputs;  // [parity][point]
  std::vector<Data> scratch;               // [point], empty without -scratch
  std::optional<Data> broadcast;

  GraphData(Head& head, const TaskGraph& g) {
    const auto width = static_cast<std::size_t>(g.max_width);
    const std::string prefix = "g" + std::to_string(g.graph_index);
    output_bytes.assign(2, std::vector<std::vector<std::byte>>(width, std::vector<std::byte>(g.output_bytes_per_task)));
    outputs.resize(2);
    for (std::size_t parity = 0; parity < 2; ++parity)
      for (std::size_t p = 0; p < width; ++p)
        outputs[parity].push_back(
            head.data(std::span(output_bytes[parity][p]), prefix + (parity ? " odd " : " even ") + std::to_string(p)));
    if (g.scratch_bytes_per_task > 0) {
      scratch_bytes.assign(width, std::vector<std::byte>(g.scratch_bytes_per_task));
      for (std::size_t p = 0; p < width; ++p) {
        prepare_scratch(scratch_bytes[p]);
        scratch.push_back(head.data(std::span(scratch_bytes[p]), prefix + " scratch " + std::to_string(p)));
        head.enter(scratch.back());
      }
    }
    if (g.broadcast_bytes > 0) {
      broadcast_bytes.resize(g.broadcast_bytes);
      write_broadcast(g, broadcast_bytes);
      broadcast = head.data(std::span(broadcast_bytes), prefix + " broadcast");
    }
  }
};

// Submits every task of the graph, in row order. The broadcast buffer is entered again first: a new
// version, which every worker then needs again, as seed 000's extension sends it once per run.
void submit_graph(Head& head, const TaskGraph& g, const GraphData& d) {
  if (d.broadcast) head.enter(*d.broadcast);
  std::vector<Use> uses;
  for (long t = 0; t < g.timesteps; ++t) {
    const long offset = g.offset_at_timestep(t), width = g.width_at_timestep(t);
    const auto& previous = d.outputs[static_cast<std::size_t>((t + 1) % 2)];
    const auto& current = d.outputs[static_cast<std::size_t>(t % 2)];
    for (long p = offset; p < offset + width; ++p) {
      uses.clear();
      for (long q : g.input_points(t, p)) uses.push_back(in(previous[static_cast<std::size_t>(q)]));
      uses.push_back(out(current[static_cast<std::size_t>(p)]));
      if (!d.scratch.empty()) uses.push_back(inout(d.scratch[static_cast<std::size_t>(p)]));
      if (d.broadcast) uses.push_back(in(*d.broadcast));
      const int worker = static_cast<int>(p * head.workers() / g.max_width);
      head.submit("task", uses, arguments(TaskId{g.graph_index, t, p}), {.worker = worker});
    }
  }
}

}  // namespace

std::optional<Scheduler> scheduler_for(std::optional<Scheduler> asked, std::optional<Control> control) {
  if (asked || herald::environment("HERALD_RUNTIME_SCHEDULER")) return asked;
  if (control.value_or(runtime::default_control()) == Control::replicated) return Scheduler::mapped;
  return std::nullopt;
}

RuntimeGraphs::RuntimeGraphs(Runtime& runtime) : runtime_(runtime) {
  runtime_.kernel("task", [this](TaskContext& task) {
    const auto id = task.argument<TaskId>();
    const TaskGraph& g = graphs_[static_cast<std::size_t>(id.graph)];
    const std::size_t inputs = g.input_points(id.timestep, id.point).size();
    std::vector<std::span<const std::byte>> received;
    received.reserve(inputs);
    for (std::size_t i = 0; i < inputs; ++i) received.push_back(task.in(i));
    if (auto fault = check_inputs(g, id.timestep, id.point, received)) throw std::runtime_error(fault->message());
    std::size_t next = inputs + 1;
    std::span<std::byte> scratch;
    if (g.scratch_bytes_per_task > 0) scratch = task.out(next++);
    if (g.broadcast_bytes > 0)
      if (auto fault = check_broadcast(g, id.timestep, id.point, task.in(next++)))
        throw std::runtime_error(fault->message());
    execute_kernel(g, id.timestep, id.point, scratch);
    write_output(id.timestep, id.point, task.out(inputs));
  });
}

double RuntimeGraphs::run(std::span<const TaskGraph> graphs, int passes) {
  for (std::size_t i = 0; i < graphs.size(); ++i)
    if (graphs[i].graph_index != static_cast<long>(i))
      throw std::invalid_argument("graph " + std::to_string(i) + " has index " + std::to_string(graphs[i].graph_index));
  graphs_ = graphs;
  double elapsed = 0;
  runtime_.run([&](Head& head) {
    std::vector<GraphData> data;
    data.reserve(graphs.size());
    for (const TaskGraph& g : graphs) data.emplace_back(head, g);
    for (int pass = 0; pass < passes; ++pass) {
      const double start = MPI_Wtime();
      for (std::size_t i = 0; i < graphs.size(); ++i) submit_graph(head, graphs[i], data[i]);
      head.wait();
      elapsed = MPI_Wtime() - start;
    }
  });
  graphs_ = {};
  return elapsed;
}

}  // namespace herald::taskbench
