// One message of every kind of the runtime's protocol, with fields that use their range (several
// entries per list, every mode and strategy, flags set and clear), for the round-trip tests and as the
// fuzzer's seeds.
#pragma once

#include "../../src/runtime/protocol/messages.hpp"

#include <vector>

namespace herald::runtime::detail::fuzz {

inline std::vector<msg::Message> message_samples() {
  TaskOrder first{.task = 7, .kernel = 2, .priority = -3, .accesses = {}, .arguments = {std::byte{1}, std::byte{255}}};
  first.accesses.push_back({.read = {4, 1}, .written = 0, .bytes = 4096, .source = 3, .mode = Mode::in});
  first.accesses.push_back({.read = {5, 2}, .written = 3, .bytes = 64, .source = by_broadcast, .mode = Mode::inout,
                            .in_place = true});
  first.accesses.push_back({.read = {}, .written = 1, .bytes = 8, .source = -1, .mode = Mode::out});
  first.accesses.push_back({.read = {9, 1}, .written = 0, .bytes = 16, .source = 2, .mode = Mode::commute});
  first.accesses.push_back({.read = {9, 1}, .written = 4, .bytes = 16, .source = 2, .mode = Mode::commute});
  const TaskOrder second{.task = 8, .kernel = 0, .priority = 0, .accesses = {}, .arguments = {}};
  const BroadcastOrder dyn{.id = 1, .key = {5, 2}, .bytes = 1 << 20, .root = 0, .strategy = BroadcastStrategy::dynbcast,
                           .sync = false, .recipients = {1, 2, 3}, .priorities = {0, 5, -1}, .parents = {-1, 0, 0}};
  const BroadcastOrder mpi{.id = 2, .key = {6, 1}, .bytes = 10, .root = 2,
                           .strategy = BroadcastStrategy::mpibcast_herald, .sync = true, .recipients = {0},
                           .priorities = {0}, .parents = {}};
  return {
      msg::Tasks{.tasks = {first, second}, .budgets = {{{4, 1}, 2}, {{9, 9}, 0}}, .broadcasts = {dyn, mpi}},
      msg::Tasks{},
      msg::Fetch{{4, 1}, false},
      msg::Fetch{{4, 2}, true},
      msg::Data{{5, 2}, 0, false},
      msg::Data{{5, 2}, 1, true},
      msg::Readback{{3, 7}},
      msg::Done{.completions = {{7, 1.5e-6}, {8, 0.25}}, .fetches = 3, .bytes = 4160, .peak = 1 << 20},
      msg::Failure{no_task, "the worker loop failed"},
      msg::Failure{7, "kernel 'gemm' threw"},
      msg::Release{{{4, 1}, {5, 2}}},
      msg::Heartbeat{},
      msg::Stop{},
      msg::Got{1},
      msg::Go{{1, 2}},
      msg::Lost{"worker rank 3 has sent nothing for 60 s"},
      msg::KernelNames{{"gemm", "herald.read", ""}},
      msg::KernelNames{},
      msg::Turn{{9, 1}, 7, 0},
      msg::Turn{{9, 1}, 8, 4},
      msg::Grant{{9, 1}, 7},
      msg::Back{{9, 1}},
  };
}

}  // namespace herald::runtime::detail::fuzz
