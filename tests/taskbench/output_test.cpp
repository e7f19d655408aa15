// Outputs and the consumer's checks: a whole graph run in memory passes, and every kind of wrong input
// is caught and named by the task, the dependency and where it went wrong.
#include "output.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace herald::taskbench {
namespace {

using enum DependenceType;
using Buffer = std::vector<std::byte>;

TaskGraph graph(DependenceType type, long steps, long width, std::size_t output = 16) {
  TaskGraph g;
  g.dependence = type;
  g.timesteps = steps;
  g.max_width = width;
  g.period = default_period(type);
  g.output_bytes_per_task = output;
  return g;
}

Buffer output_of(const TaskGraph& g, long t, long p) {
  Buffer out(g.output_bytes_per_task);
  write_output(t, p, out);
  return out;
}

std::vector<std::span<const std::byte>> views(const std::vector<Buffer>& buffers) {
  return {buffers.begin(), buffers.end()};
}

// Runs every task of every type in timestep order, feeding each the outputs of its input points.
TEST(TaskBenchOutput, WholeGraphsPassTheirChecks) {
  for (const DependenceType type : dependence_types_by_name()) {
    if (type == random_spread) continue;
    for (std::size_t output : {16, 40}) {
      const TaskGraph g = graph(type, 7, 9, output);
      SCOPED_TRACE(std::string(dependence_name(type)) + " output " + std::to_string(output));
      std::map<long, Buffer> previous;
      std::size_t checked_inputs = 0;
      for (long t = 0; t < g.timesteps; ++t) {
        std::map<long, Buffer> current;
        for (long p = g.offset_at_timestep(t); p < g.offset_at_timestep(t) + g.width_at_timestep(t); ++p) {
          std::vector<Buffer> inputs;
          for (long d : g.input_points(t, p)) inputs.push_back(previous.at(d));
          checked_inputs += inputs.size();
          const auto fault = check_inputs(g, t, p, views(inputs));
          EXPECT_FALSE(fault) << fault->message();
          current[p] = output_of(g, t, p);
        }
        previous = std::move(current);
      }
      if (type != trivial) {
        EXPECT_GT(checked_inputs, 0u);
      }
    }
  }
}

TEST(TaskBenchOutput, RecordsFillTheOutputAndLeaveTheTail) {
  Buffer out(40, std::byte{0xAB});
  write_output(3, 7, out);
  EXPECT_EQ(output_record(out, 0), (OutputRecord{3, 7}));
  EXPECT_EQ(output_record(out, 1), (OutputRecord{3, 7}));
  for (std::size_t i = 32; i < 40; ++i) EXPECT_EQ(out[i], std::byte{0xAB});
}

TEST(TaskBenchOutput, CorruptedRecordIsNamed) {
  const TaskGraph g = graph(stencil_1d, 4, 5, 48);
  std::vector<Buffer> inputs{output_of(g, 1, 1), output_of(g, 1, 2), output_of(g, 1, 3)};
  ASSERT_FALSE(check_inputs(g, 2, 2, views(inputs)));
  // The third record of input 1 claims to be point 4's.
  OutputRecord wrong{1, 4};
  std::memcpy(inputs[1].data() + 32, &wrong, sizeof wrong);
  const auto fault = check_inputs(g, 2, 2, views(inputs));
  ASSERT_TRUE(fault);
  EXPECT_EQ(fault->kind, InputFault::Kind::wrong_record);
  EXPECT_EQ(fault->timestep, 2);
  EXPECT_EQ(fault->point, 2);
  EXPECT_EQ(fault->dependency, 2);
  EXPECT_EQ(fault->input_index, 1u);
  EXPECT_EQ(fault->byte_offset, 32u);
  EXPECT_EQ(fault->message(),
            "task (graph 0, timestep 2, point 2): input 1 (dependency 2 of timestep 1) holds the record of "
            "timestep 1 point 4 at byte 32");
}

TEST(TaskBenchOutput, StaleTimestepIsCaught) {
  const TaskGraph g = graph(no_comm, 4, 3);
  const std::vector<Buffer> inputs{output_of(g, 0, 1)};  // from timestep 0, but (2, 1) needs timestep 1's
  const auto fault = check_inputs(g, 2, 1, views(inputs));
  ASSERT_TRUE(fault);
  EXPECT_EQ(fault->kind, InputFault::Kind::wrong_record);
  EXPECT_NE(fault->message().find("timestep 0 point 1"), std::string::npos);
}

TEST(TaskBenchOutput, SwappedInputsAreCaught) {
  const TaskGraph g = graph(stencil_1d, 4, 5);
  const std::vector<Buffer> inputs{output_of(g, 0, 2), output_of(g, 0, 1), output_of(g, 0, 3)};
  const auto fault = check_inputs(g, 1, 2, views(inputs));
  ASSERT_TRUE(fault);
  EXPECT_EQ(fault->input_index, 0u);
  EXPECT_EQ(fault->dependency, 1);
}

TEST(TaskBenchOutput, MissingInputIsNamed) {
  const TaskGraph g = graph(fft, 4, 8);
  // (2, 5) reads 3, 5 and 7 (stride 2); the last one never came.
  ASSERT_EQ(g.input_points(2, 5), (std::vector<long>{3, 5, 7}));
  const std::vector<Buffer> inputs{output_of(g, 1, 3), output_of(g, 1, 5)};
  const auto fault = check_inputs(g, 2, 5, views(inputs));
  ASSERT_TRUE(fault);
  EXPECT_EQ(fault->kind, InputFault::Kind::missing);
  EXPECT_EQ(fault->dependency, 7);
  EXPECT_EQ(fault->input_index, 2u);
  EXPECT_EQ(fault->message(),
            "task (graph 0, timestep 2, point 5): input 2 (dependency 7 of timestep 1) is missing: got 2 inputs for "
            "3 dependencies");
}

TEST(TaskBenchOutput, ExtraInputIsCaught) {
  const TaskGraph g = graph(no_comm, 4, 3);
  const std::vector<Buffer> inputs{output_of(g, 0, 1), output_of(g, 0, 2)};
  const auto fault = check_inputs(g, 1, 1, views(inputs));
  ASSERT_TRUE(fault);
  EXPECT_EQ(fault->kind, InputFault::Kind::unexpected);
  EXPECT_EQ(fault->input_index, 1u);
  // Timestep 0 reads nothing.
  EXPECT_TRUE(check_inputs(g, 0, 1, views(inputs)));
}

TEST(TaskBenchOutput, WrongSizeIsCaught) {
  const TaskGraph g = graph(no_comm, 4, 3, 32);
  Buffer input = output_of(g, 0, 1);
  input.resize(16);
  const auto fault = check_input(g, 1, 1, 0, 1, input);
  ASSERT_TRUE(fault);
  EXPECT_EQ(fault->kind, InputFault::Kind::wrong_size);
  EXPECT_NE(fault->message().find("16 bytes, not 32"), std::string::npos);
}

TEST(TaskBenchOutput, BroadcastRoundTripAndCorruption) {
  for (std::size_t bytes : {1, 8, 13, 4096, 4099}) {
    TaskGraph g = graph(stencil_1d, 4, 4);
    g.broadcast_bytes = bytes;
    Buffer buffer(bytes);
    write_broadcast(g, buffer);
    EXPECT_FALSE(check_broadcast(g, 1, 2, buffer)) << bytes;
    Buffer corrupted = buffer;
    corrupted[bytes - 1] ^= std::byte{0x10};
    const auto fault = check_broadcast(g, 1, 2, corrupted);
    ASSERT_TRUE(fault) << bytes;
    EXPECT_EQ(fault->kind, InputFault::Kind::broadcast_value);
    EXPECT_EQ(fault->byte_offset, bytes - 1);
    EXPECT_EQ(fault->timestep, 1);
    EXPECT_EQ(fault->point, 2);
    // Another graph's buffer differs.
    TaskGraph other = g;
    other.graph_index = 1;
    EXPECT_TRUE(check_broadcast(other, 1, 2, buffer));
  }
  TaskGraph g = graph(stencil_1d, 4, 4);
  g.broadcast_bytes = 64;
  Buffer shifted(64);
  write_broadcast(g, shifted);
  std::rotate(shifted.begin(), shifted.begin() + 8, shifted.end());
  EXPECT_TRUE(check_broadcast(g, 0, 0, shifted));
  const auto fault = check_broadcast(g, 0, 0, Buffer(63));
  ASSERT_TRUE(fault);
  EXPECT_EQ(fault->kind, InputFault::Kind::broadcast_size);
}

}  // namespace
}  // namespace herald::taskbench
