// What "auto" runs for one broadcast, decided in one place: the executor's calls, herald::resolve(),
// HERALD_VERBOSE and herald-sim --algorithm auto all ask decide(), and nothing else chooses.
#pragma once

#include <herald/selector.hpp>
#include <herald/tuning.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace herald {

// Why auto runs what it runs, in the order decide() asks.
enum class Because {
  nothing_moves,   // one rank, or no bytes: every algorithm is free, the table's first stands for them
  tuning_file,     // the tuning file measured the shape (its nearest cell)
  one_node_short,  // one node whose ranks share memory, below the size where node memory pays: MPI_Bcast
  one_message,     // one node of two ranks, from two_ranks_native_from: one message, MPI_Bcast
  node_memory,     // one node whose ranks share memory: the cheapest algorithm that moves through it
  cost_model,      // the cost model's cheapest, link loads counted
};
// "auto: tuning file" and so on: what traces record as the call's `why`.
const char* because_text(Because because) noexcept;

// Everything auto decides from.
struct AutoQuestion {
  // Ranks, root, bytes, the caller's parameters (merged with HERALD_* settings), the node layout and
  // whether node memory is open.
  Problem problem{};
  CostModel model{};
  const TuningCell* cell = nullptr;          // the tuning file's cell for the shape (find_cell()), if any
  std::optional<std::size_t> native_below{};  // HERALD_AUTO_NATIVE_BELOW; unset: default_native_below()
  LinkLoads* loads = nullptr;                // the communicator's cache of link loads, if it keeps one
  bool rank_alternatives = false;            // fill Decision::alternatives where the choice did not need them
};

// The answer: run MPI_Bcast (`native`), or `choice`: an algorithm with every parameter it reads set (its
// defaults applied), priced by the model, or measured where the tuning file speaks (`seconds`).
struct Decision {
  bool native = false;
  Choice choice;
  Because because = Because::cost_model;
  // Every other algorithm of the table as the model prices this problem, cheapest first. Always filled
  // where the model chose (it priced them all to choose); elsewhere only when asked (rank_alternatives).
  std::vector<Choice> alternatives;
};

// Pure and deterministic: every rank that asks the same question gets the same answer, which is what lets
// each rank decide alone. Throws Error(invalid_argument) for a problem validate() refuses, and for a tuning
// cell naming no algorithm of the table.
Decision decide(const AutoQuestion& question);

// HERALD_VERBOSE's line: "herald auto: R ranks, B bytes[, root R]: ALGORITHM PARAMETERS, ...; then
// RUNNERS-UP" (the root named where it is not 0).
// `from_file` says the model came from a tuning file.
std::string describe(const AutoQuestion& question, const Decision& decision, bool from_file);

}  // namespace herald
