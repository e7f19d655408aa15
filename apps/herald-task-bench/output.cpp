#include "output.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace herald::taskbench {
namespace {

std::string task_name(long graph_index, long timestep, long point) {
  return "task (graph " + std::to_string(graph_index) + ", timestep " + std::to_string(timestep) + ", point " +
         std::to_string(point) + ")";
}

InputFault fault(InputFault::Kind kind, const TaskGraph& g, long timestep, long point) {
  InputFault f;
  f.kind = kind;
  f.graph_index = g.graph_index;
  f.timestep = timestep;
  f.point = point;
  return f;
}

// Word i of a broadcast buffer: odd multipliers make it differ for every position and graph, so a
// shifted, truncated or foreign buffer shows; one multiply per word keeps the check cheap.
std::uint64_t broadcast_word(long graph_index, std::size_t i) {
  return (std::uint64_t(i) + 1) * 0x9E3779B97F4A7C15ULL ^ (std::uint64_t(graph_index) + 1) * 0xD1B54A32D192ED03ULL;
}

// The expected byte at every position, including a tail shorter than a word.
void broadcast_bytes_at(long graph_index, std::size_t word, std::byte* out, std::size_t count) {
  const std::uint64_t value = broadcast_word(graph_index, word);
  std::memcpy(out, &value, count);
}

}  // namespace

void write_output(long timestep, long point, std::span<std::byte> output) {
  const OutputRecord record{timestep, point};
  for (std::size_t at = 0; at + sizeof record <= output.size(); at += sizeof record) {
    std::memcpy(output.data() + at, &record, sizeof record);
  }
}

OutputRecord output_record(std::span<const std::byte> output, std::size_t index) {
  OutputRecord record;
  std::memcpy(&record, output.data() + index * sizeof record, sizeof record);
  return record;
}

std::string InputFault::message() const {
  const std::string task = task_name(graph_index, timestep, point);
  const std::string from = "dependency " + std::to_string(dependency) + " of timestep " + std::to_string(timestep - 1);
  const std::string input = "input " + std::to_string(input_index) + " (" + from + ")";
  switch (kind) {
    case Kind::missing:
      return task + ": " + input + " is missing: " + detail;
    case Kind::unexpected:
      return task + ": input " + std::to_string(input_index) + " matches no dependency: " + detail;
    case Kind::wrong_size:
      return task + ": " + input + " " + detail;
    case Kind::wrong_record:
      return task + ": " + input + " holds " + detail + " at byte " + std::to_string(byte_offset);
    case Kind::broadcast_size:
      return task + ": the broadcast buffer " + detail;
    case Kind::broadcast_value:
      return task + ": the broadcast buffer differs at byte " + std::to_string(byte_offset) + ": " + detail;
  }
  return task + ": " + detail;
}

std::optional<InputFault> check_input(const TaskGraph& g, long timestep, long point, std::size_t input_index,
                                      long dependency, std::span<const std::byte> input) {
  auto found = [&](InputFault::Kind kind) {
    InputFault f = fault(kind, g, timestep, point);
    f.dependency = dependency;
    f.input_index = input_index;
    return f;
  };
  if (input.size() != g.output_bytes_per_task) {
    InputFault f = found(InputFault::Kind::wrong_size);
    f.detail = "holds " + std::to_string(input.size()) + " bytes, not " + std::to_string(g.output_bytes_per_task);
    return f;
  }
  const OutputRecord expected{timestep - 1, dependency};
  for (std::size_t i = 0; i < input.size() / sizeof(OutputRecord); ++i) {
    const OutputRecord got = output_record(input, i);
    if (got != expected) {
      InputFault f = found(InputFault::Kind::wrong_record);
      f.byte_offset = i * sizeof(OutputRecord);
      f.detail = "the record of timestep " + std::to_string(got.timestep) + " point " + std::to_string(got.point);
      return f;
    }
  }
  return std::nullopt;
}

std::optional<InputFault> check_inputs(const TaskGraph& g, long timestep, long point,
                                       std::span<const std::span<const std::byte>> inputs) {
  const std::vector<long> deps = g.input_points(timestep, point);
  for (std::size_t i = 0; i < std::min(deps.size(), inputs.size()); ++i) {
    if (auto f = check_input(g, timestep, point, i, deps[i], inputs[i])) return f;
  }
  const std::string counts = "got " + std::to_string(inputs.size()) + " inputs for " + std::to_string(deps.size()) +
                             " dependencies";
  if (inputs.size() < deps.size()) {
    InputFault f = fault(InputFault::Kind::missing, g, timestep, point);
    f.input_index = inputs.size();
    f.dependency = deps[inputs.size()];
    f.detail = counts;
    return f;
  }
  if (inputs.size() > deps.size()) {
    InputFault f = fault(InputFault::Kind::unexpected, g, timestep, point);
    f.input_index = deps.size();
    f.detail = counts;
    return f;
  }
  return std::nullopt;
}

void write_broadcast(const TaskGraph& g, std::span<std::byte> buffer) {
  for (std::size_t at = 0; at < buffer.size(); at += sizeof(std::uint64_t)) {
    broadcast_bytes_at(g.graph_index, at / sizeof(std::uint64_t), buffer.data() + at,
                       std::min(sizeof(std::uint64_t), buffer.size() - at));
  }
}

std::optional<InputFault> check_broadcast(const TaskGraph& g, long timestep, long point,
                                          std::span<const std::byte> buffer) {
  if (buffer.size() != g.broadcast_bytes) {
    InputFault f = fault(InputFault::Kind::broadcast_size, g, timestep, point);
    f.detail = "holds " + std::to_string(buffer.size()) + " bytes, not " + std::to_string(g.broadcast_bytes);
    return f;
  }
  for (std::size_t at = 0; at < buffer.size(); at += sizeof(std::uint64_t)) {
    const std::size_t n = std::min(sizeof(std::uint64_t), buffer.size() - at);
    std::byte expected[sizeof(std::uint64_t)];
    broadcast_bytes_at(g.graph_index, at / sizeof(std::uint64_t), expected, n);
    if (std::memcmp(expected, buffer.data() + at, n) != 0) {
      std::size_t off = 0;
      while (expected[off] == buffer[at + off]) ++off;
      InputFault f = fault(InputFault::Kind::broadcast_value, g, timestep, point);
      f.byte_offset = at + off;
      f.detail = "expected " + std::to_string(unsigned(expected[off])) + ", found " +
                 std::to_string(unsigned(buffer[at + off]));
      return f;
    }
  }
  return std::nullopt;
}

}  // namespace herald::taskbench
