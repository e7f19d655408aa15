// herald-placement: the balancer's decision without MPI. Places processes requesting threads on a node's
// sockets by branch and bound and prints the placement and the cores it misses; given loads instead, runs
// the whole decision (proportional split, placement, forecast) and prints the model's predicted gain.
#include <herald/balance/decision.hpp>
#include <herald/balance/placement.hpp>
#include <herald/error.hpp>

#include "cli.hpp"

#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using herald::balance::Placement;

template <class T>
std::string joined(const std::vector<T>& values, const char* separator = ",") {
  std::ostringstream out;
  for (std::size_t i = 0; i < values.size(); ++i) out << (i ? separator : "") << values[i];
  return out.str();
}

void print_placement(const Placement& placement, const std::vector<int>& requests, const std::vector<int>& cores) {
  for (std::size_t s = 0; s < cores.size(); ++s) {
    std::vector<int> members, asked, granted;
    for (std::size_t p = 0; p < requests.size(); ++p)
      if (placement.socket[p] == static_cast<int>(s)) {
        members.push_back(static_cast<int>(p));
        asked.push_back(requests[p]);
        granted.push_back(placement.threads[p]);
      }
    int total = 0;
    for (int r : asked) total += r;
    std::cout << "socket " << s << ": ";
    if (members.empty()) {
      std::cout << "no process (" << cores[s] << " cores idle)\n";
      continue;
    }
    std::cout << "processes " << joined(members) << " request " << joined(asked, "+") << " = " << total << " of "
              << cores[s] << " cores -> threads " << joined(granted) << "\n";
  }
  std::cout << "missing_cores=" << placement.missing << "\n"
            << "search_nodes=" << placement.nodes << (placement.exhaustive ? "" : " (stopped at the node limit)")
            << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Place processes on a node's sockets as herald's balancer does (SABO paper, section IV-B)"};
  int sockets = 0, per_socket = 0;
  std::vector<int> cores, requests, threads;
  std::vector<double> loads;
  app.add_option("--sockets", sockets, "sockets of the node")->check(herald::cli::positive);
  app.add_option("--cores-per-socket", per_socket, "cores of each socket")->check(herald::cli::positive);
  auto* uneven = app.add_option("--cores", cores, "cores of each socket, for unequal sockets: 24,12")
                     ->delimiter(',');
  auto* by_request = app.add_option("--requests", requests, "threads each process requests: 14,9,13,12")
                         ->delimiter(',');
  auto* by_load = app.add_option("--loads", loads, "each process's load (busy thread-seconds): 2,1,1,1")
                      ->delimiter(',');
  app.add_option("--threads", threads, "threads each process has now: one value, or one per process")
      ->delimiter(',');
  by_request->excludes(by_load);
  uneven->excludes("--sockets")->excludes("--cores-per-socket");
  if (const auto status = herald::cli::parse(app, argc, argv)) return *status;

  try {
    if (cores.empty()) {
      if (sockets == 0 || per_socket == 0)
        throw herald::Error(herald::Errc::invalid_argument,
                            "give --sockets and --cores-per-socket, or --cores");
      cores.assign(sockets, per_socket);
    }
    std::cout << "node: " << cores.size() << " sockets, cores " << joined(cores) << "\n";
    if (!requests.empty()) {
      std::cout << "requests=[" << joined(requests) << "]\n";
      print_placement(herald::balance::place(requests, cores), requests, cores);
      return 0;
    }
    if (loads.empty())
      throw herald::Error(herald::Errc::invalid_argument, "give --requests, or --loads with --threads");
    if (threads.size() == 1) threads.assign(loads.size(), threads[0]);
    if (threads.size() != loads.size())
      throw herald::Error(herald::Errc::invalid_argument,
                          "--threads needs one value or one per process (" + std::to_string(loads.size()) + ")");
    const herald::balance::Decision d = herald::balance::decide(loads, threads, cores);
    std::cout << "loads=[" << joined(loads) << "] threads=[" << joined(threads) << "]\n"
              << "requests=[" << joined(d.requests) << "]\n";
    print_placement(d.placement, d.requests, cores);
    std::cout << "counts=[" << joined(d.placement.threads) << "]\n";
    if (!d.forecast.predicted.empty()) {
      char line[128];
      double next = 0;
      for (double t : d.forecast.predicted) next = std::max(next, t);
      std::snprintf(line, sizeof line, "slowest_now=%.6g predicted_slowest=%.6g predicted_gain=%.1f%%",
                    d.forecast.slowest, next, 100 * herald::balance::predicted_gain(d));
      std::cout << "times=[" << joined(d.times) << "]\npredicted=[" << joined(d.forecast.predicted) << "]\n"
                << line << "\n";
    }
    std::cout << "decision=" << (d.act ? "act" : "keep") << " (" << d.reason << ")\n";
    return 0;
  } catch (const herald::Error& e) {
    std::cerr << "herald-placement: " << e.what() << "\n";
    return 2;
  }
}
