#include <herald/dataflow.hpp>
#include <herald/error.hpp>
#include <herald/simulator.hpp>

#include "timing.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <queue>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace herald {
namespace {

struct Message {
  int source;
  std::size_t send_step;
  int dest;
  std::size_t recv_step;
};

// Pairs the k-th send from a to b with the k-th receive at b from a (MPI's non-overtaking order).
// Returns an explanation on mismatch.
std::optional<std::string> pair_messages(const Schedule& s, std::vector<std::vector<std::size_t>>& recv_of_send,
                                         std::vector<Message>& messages) {
  const int P = s.problem.ranks;
  auto key = [P](int from, int to) { return static_cast<std::uint64_t>(from) * P + to; };
  std::unordered_map<std::uint64_t, std::vector<std::size_t>> receives;  // (from, to) -> recv steps at `to`
  for (int r = 0; r < P; ++r)
    for (std::size_t i = 0; i < s.programs[r].size(); ++i)
      if (s.programs[r][i].op == Step::Op::recv) receives[key(s.programs[r][i].peer, r)].push_back(i);

  std::unordered_map<std::uint64_t, std::size_t> used;
  recv_of_send.assign(P, {});
  for (int r = 0; r < P; ++r) {
    recv_of_send[r].assign(s.programs[r].size(), 0);
    for (std::size_t i = 0; i < s.programs[r].size(); ++i) {
      const Step& send = s.programs[r][i];
      if (send.op != Step::Op::send) continue;
      const std::uint64_t k = key(r, send.peer);
      auto& list = receives[k];
      std::size_t& n = used[k];
      if (n >= list.size())
        return "rank " + std::to_string(r) + " step " + std::to_string(i) + " sends to rank " +
               std::to_string(send.peer) + ", which posts no matching receive";
      const std::size_t j = list[n++];
      const ByteRange got = s.programs[send.peer][j].range;
      if (!(got == send.range))
        return "rank " + std::to_string(r) + " step " + std::to_string(i) + " sends bytes at " +
               std::to_string(send.range.offset) + " (" + std::to_string(send.range.length) + ") but rank " +
               std::to_string(send.peer) + " step " + std::to_string(j) + " receives at " +
               std::to_string(got.offset) + " (" + std::to_string(got.length) + ")";
      recv_of_send[r][i] = j;
      messages.push_back({r, i, send.peer, j});
    }
  }
  for (auto& [k, list] : receives)
    if (used[k] < list.size())
      return "rank " + std::to_string(k % P) + " receives from rank " + std::to_string(k / P) +
             " a message that is never sent";
  return std::nullopt;
}

}  // namespace

namespace timing {

// Ports: each rank posts its sends in program order, each once the receives it waits for have arrived,
// with one transfer per send port and per receive port at a time (and, with ordered receives, once the
// receiver has completed the receives before this one).
std::optional<double> ports(const Input& in, const CostModel& model, std::string& problem) {
  const Schedule& s = in.schedule;
  const auto& flows = in.flows;
  const auto& recv_of_send = in.recv_of_send;
  const int P = s.problem.ranks;
  std::vector<std::vector<double>> arrival(P);
  std::vector<std::size_t> next(P, 0);  // next step to consider, per rank
  std::vector<double> posted(P, 0.0), send_free(P, 0.0), recv_free(P, 0.0);
  for (int r = 0; r < P; ++r) arrival[r].assign(s.programs[r].size(), never);

  using Ready = std::pair<double, int>;  // (time the head send can be posted, rank)
  std::priority_queue<Ready, std::vector<Ready>, std::greater<>> ready;
  std::vector<bool> queued(P, false);
  std::vector<std::vector<int>> parked(P);  // senders whose receiver has not yet posted their receive
  const bool synchronous = synchronous_sends(s.problem, s.ordered_receives);

  // Skips receives; if the next send's inputs have all arrived, queues it.
  auto advance = [&](int r) {
    const Program& prog = s.programs[r];
    while (next[r] < prog.size() && prog[next[r]].op == Step::Op::recv) ++next[r];
    if (next[r] == prog.size()) return;
    double t = posted[r];
    for (std::uint32_t d : flows[r].waits_for(next[r])) {
      if (arrival[r][d] == never) return;
      t = std::max(t, arrival[r][d]);
    }
    ready.push({std::max(t, send_free[r]), r});  // earliest start on the sender's side
    queued[r] = true;
  };
  for (int r = 0; r < P; ++r) advance(r);

  double finish = 0.0;
  while (!ready.empty()) {
    auto [t, r] = ready.top();
    ready.pop();
    // The receiver is busy: try again when it is free, so that a send ready earlier elsewhere can go first
    // instead of the port being booked in posting order.
    if (recv_free[s.programs[r][next[r]].peer] > t) {
      ready.push({recv_free[s.programs[r][next[r]].peer], r});
      continue;
    }
    const Step& head = s.programs[r][next[r]];
    double posted_receive = 0.0;  // when the receiver posted this message's receive
    if (const std::size_t b = in.posted_after(head.peer, recv_of_send[r][next[r]]); b != Input::first) {
      posted_receive = arrival[head.peer][b];
      if (posted_receive == never) {  // its sender has not sent yet: wait for that
        parked[head.peer].push_back(r);
        continue;
      }
    }
    queued[r] = false;
    const std::size_t i = next[r]++;
    const Step& step = s.programs[r][i];
    posted[r] = t;
    const double start = std::max({t, send_free[r], recv_free[step.peer], posted_receive});
    const double bytes = model.beta * static_cast<double>(step.range.length);
    const double end = start + model.alpha + bytes;
    // A synchronous send (a pipeline's, a schedule's in rounds) holds its sender until it has arrived.
    send_free[r] = start + (synchronous ? model.alpha : model.port_seconds()) + bytes;
    recv_free[step.peer] = start + model.port_seconds() + bytes;
    arrival[step.peer][recv_of_send[r][i]] = end;
    finish = std::max(finish, end);
    advance(r);
    // The receiver's head send may have been waiting for exactly this message.
    if (!queued[step.peer]) advance(step.peer);
    // And senders to it for the receive this one posts.
    for (int w : std::exchange(parked[step.peer], {})) ready.push({std::max(t, end), w});
  }
  for (int r = 0; r < P; ++r)
    if (next[r] < s.programs[r].size()) {
      problem = "deadlock: rank " + std::to_string(r) + " step " + std::to_string(next[r]) +
                " waits for bytes that never arrive";
      return std::nullopt;
    }
  return finish;
}

}  // namespace timing

Simulation simulate(const Schedule& s, const CostModel& model, const SendWindow& window, const Platform& platform) {
  Simulation out;
  const int P = s.problem.ranks;
  const std::size_t n = s.problem.bytes;
  out.lower_bound_seconds =
      P > 1 && n > 0 ? std::max(std::ceil(std::log2(static_cast<double>(P))) * model.alpha, n * model.beta) : 0.0;

  if (static_cast<int>(s.programs.size()) != P) {
    out.problem = "schedule has " + std::to_string(s.programs.size()) + " programs for " + std::to_string(P) +
                  " ranks";
    return out;
  }
  for (int r = 0; r < P; ++r)
    for (std::size_t i = 0; i < s.programs[r].size(); ++i) {
      const Step& step = s.programs[r][i];
      if (step.peer < 0 || step.peer >= P || step.peer == r) {
        out.problem = "rank " + std::to_string(r) + " step " + std::to_string(i) + " names peer " +
                      std::to_string(step.peer);
        return out;
      }
    }

  std::vector<Dataflow> flows;
  flows.reserve(P);
  try {
    for (int r = 0; r < P; ++r) flows.emplace_back(s.programs[r], r == s.problem.root, n, r);
  } catch (const Error& e) {
    out.problem = e.what();
    return out;
  }

  std::vector<std::vector<std::size_t>> recv_of_send;
  std::vector<Message> messages;
  if (auto bad = pair_messages(s, recv_of_send, messages)) {
    out.problem = *bad;
    return out;
  }
  out.messages = messages.size();
  for (const Message& m : messages) {
    out.bytes += s.programs[m.source][m.send_step].range.length;
    if (flows[m.dest].redundant(m.recv_step)) out.redundant_bytes += s.programs[m.source][m.send_step].range.length;
  }

  // Delivery: the receives that are not redundant are disjoint (Dataflow checks), so their sum says it all.
  for (int r = 0; r < P; ++r) {
    if (r == s.problem.root) continue;
    std::size_t got = 0;
    for (std::size_t i = 0; i < s.programs[r].size(); ++i)
      if (s.programs[r][i].op == Step::Op::recv && !flows[r].redundant(i)) got += s.programs[r][i].range.length;
    if (got != n) {
      out.problem = "rank " + std::to_string(r) + " ends with " + std::to_string(got) + " of " +
                    std::to_string(n) + " bytes";
      return out;
    }
  }

  timing::Input in{s, flows, recv_of_send, {}};
  if (s.ordered_receives) {
    in.before.resize(static_cast<std::size_t>(P));
    for (int r = 0; r < P; ++r) {
      std::size_t last = timing::Input::first;
      auto& before = in.before[static_cast<std::size_t>(r)];
      before.assign(s.programs[r].size(), timing::Input::first);
      for (std::size_t i = 0; i < s.programs[r].size(); ++i)
        if (s.programs[r][i].op == Step::Op::recv) {
          before[i] = last;
          last = i;
        }
    }
  }
  auto rounds = timing::ports(in, CostModel{.alpha = 1.0, .beta = 0.0}, out.problem);
  if (!rounds) return out;
  out.rounds = static_cast<std::size_t>(std::llround(*rounds));
  const auto predicted = model.network == Network::fair_sharing
                             ? timing::fair_sharing(in, model, window, platform, out.problem)
                             : timing::ports(in, model, out.problem);
  if (!predicted) return out;  // a window too small for the schedule's order (never for 1 and up)
  out.predicted_seconds = *predicted;
  out.delivered = true;
  return out;
}

}  // namespace herald
