#include "algorithms.hpp"

#include <herald/algorithms.hpp>
#include <herald/error.hpp>

#include <array>

namespace herald {
namespace {

constexpr std::size_t default_segment = 64 * 1024;

using detail::binomial_program;
using detail::linear_program;

const std::array table{
    AlgorithmInfo{.name = "linear",
                  .summary = "the root sends the whole buffer to every rank in turn",
                  .defaults = {},
                  .program = linear_program},
    AlgorithmInfo{.name = "binomial",
                  .summary = "binomial tree, largest sub-tree first; segmented when a segment size is given",
                  .defaults = {},
                  .reads_segment = true,
                  .program = binomial_program},
};

}  // namespace

std::span<const AlgorithmInfo> algorithms() { return table; }

const AlgorithmInfo& find_algorithm(std::string_view name) {
  for (const AlgorithmInfo& a : table)
    if (a.name == name) return a;
  throw Error(Errc::unknown_algorithm,
              "no algorithm named '" + std::string(name) + "' (known: " + algorithm_names() + ", native)");
}

std::string algorithm_names() {
  std::string names;
  for (const AlgorithmInfo& a : table) names += (names.empty() ? "" : ", ") + std::string(a.name);
  return names;
}

void validate(const Problem& p) {
  if (p.ranks < 1) throw Error(Errc::invalid_argument, "rank count " + std::to_string(p.ranks) + " is below 1");
  if (p.root < 0 || p.root >= p.ranks)
    throw Error(Errc::invalid_root,
                "root " + std::to_string(p.root) + " is not a rank of a " + std::to_string(p.ranks) + "-rank group");
  if (p.parameters.fanout < 0)
    throw Error(Errc::invalid_argument, "fan-out " + std::to_string(p.parameters.fanout) + " is negative");
  if (p.parameters.radix < 0 || p.parameters.radix == 1)
    throw Error(Errc::invalid_argument, "radix " + std::to_string(p.parameters.radix) + " is below 2");
}

Problem with_defaults(const AlgorithmInfo& a, Problem p) {
  validate(p);
  Parameters& q = p.parameters;
  q.segment = a.reads_segment ? (q.segment ? q.segment : a.defaults.segment) : 0;
  q.fanout = a.reads_fanout ? (q.fanout ? q.fanout : a.defaults.fanout) : 0;
  q.radix = a.reads_radix ? (q.radix ? q.radix : a.defaults.radix) : 0;
  return p;
}

Program make_program(const AlgorithmInfo& a, const Problem& problem, int rank, std::size_t limit) {
  const Problem p = with_defaults(a, problem);
  if (rank < 0 || rank >= p.ranks)
    throw Error(Errc::invalid_argument, "rank " + std::to_string(rank) + " is outside the group");
  if (limit == 0) throw Error(Errc::invalid_argument, "message size limit is zero");
  return split_long_steps(a.program(p, rank), limit);
}

Schedule make_schedule(const AlgorithmInfo& a, const Problem& problem, std::size_t limit) {
  Schedule s{with_defaults(a, problem), {}};
  s.programs.reserve(s.problem.ranks);
  for (int r = 0; r < s.problem.ranks; ++r) s.programs.push_back(make_program(a, s.problem, r, limit));
  return s;
}

}  // namespace herald
