// What flows along the graph's edges, and the checks that catch a wrong one.
//
// As in Task Bench, task (t, p) fills its output with copies of the record (t, p) (two native 64-bit
// integers; a tail shorter than a record is left as it was), and a consumer checks that input i, which
// comes from dependency d, holds (t - 1, d) in every record. So an input from the wrong task, the wrong
// timestep or the wrong place in the buffer is caught, as is a short or missing one. The broadcast buffer
// of -broadcast holds a pattern of the graph index and the word's position, which every task checks.
#pragma once

#include "graph.hpp"

#include <cstddef>
#include <optional>
#include <span>
#include <string>

namespace herald::taskbench {

struct OutputRecord {
  long timestep = 0;
  long point = 0;
  friend bool operator==(const OutputRecord&, const OutputRecord&) = default;
};
static_assert(sizeof(OutputRecord) == min_output_bytes);

// Fills `output` (the graph's output bytes per task) with the record (timestep, point).
void write_output(long timestep, long point, std::span<std::byte> output);

// The record at `index` (0-based) of an output buffer.
OutputRecord output_record(std::span<const std::byte> output, std::size_t index);

// A wrong input, named by the consuming task and the dependency it came from.
struct InputFault {
  enum class Kind {
    missing,          // fewer inputs than live dependencies
    unexpected,       // more inputs than live dependencies
    wrong_size,       // an input is not output_bytes_per_task long
    wrong_record,     // an input holds another task's record
    broadcast_size,   // the broadcast buffer is not broadcast_bytes long
    broadcast_value,  // the broadcast buffer holds other bytes
  };
  Kind kind = Kind::missing;
  long graph_index = 0;
  long timestep = 0;  // the consuming task
  long point = 0;
  long dependency = -1;         // the producing point (of timestep - 1); -1 when none applies
  std::size_t input_index = 0;  // position among the task's inputs
  std::size_t byte_offset = 0;  // where a wrong record or broadcast byte starts
  std::string detail;           // what was found instead

  // One line, e.g. `task (graph 0, timestep 3, point 2): input 1 (dependency 3 of timestep 2) holds
  // the record of timestep 2 point 4 at byte 16`.
  std::string message() const;
};

// Checks input `input_index` of task (timestep, point), which must come from `dependency`.
std::optional<InputFault> check_input(const TaskGraph& graph, long timestep, long point, std::size_t input_index,
                                      long dependency, std::span<const std::byte> input);

// Checks all the inputs of task (timestep, point), in the order of graph.input_points(timestep, point).
std::optional<InputFault> check_inputs(const TaskGraph& graph, long timestep, long point,
                                       std::span<const std::span<const std::byte>> inputs);

// The graph's broadcast buffer (broadcast_bytes long), and the check every task runs on what it read.
void write_broadcast(const TaskGraph& graph, std::span<std::byte> buffer);
std::optional<InputFault> check_broadcast(const TaskGraph& graph, long timestep, long point,
                                          std::span<const std::byte> buffer);

}  // namespace herald::taskbench
