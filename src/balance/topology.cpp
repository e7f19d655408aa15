#include <herald/balance/topology.hpp>
#include <herald/error.hpp>

#include <algorithm>
#include <numeric>

namespace herald::balance {

std::vector<int> Topology::socket_cores() const {
  std::vector<int> cores;
  for (const Socket& s : sockets) cores.push_back(static_cast<int>(s.cpus.size()));
  return cores;
}

int Topology::cores() const {
  int n = 0;
  for (const Socket& s : sockets) n += static_cast<int>(s.cpus.size());
  return n;
}

int Topology::cpu(int core) const {
  for (const Socket& s : sockets) {
    if (core < static_cast<int>(s.cpus.size())) return s.cpus.at(core);
    core -= static_cast<int>(s.cpus.size());
  }
  throw Error(Errc::invalid_argument, "core " + std::to_string(core) + " is not on this node");
}

Topology pretend(std::span<const int> socket_cores, std::span<const int> real_cpus) {
  if (socket_cores.empty() || real_cpus.empty())
    throw Error(Errc::invalid_argument, "a pretended node needs sockets and real CPUs to run on");
  Topology t;
  t.pretended = true;
  std::size_t next = 0;
  for (int n : socket_cores) {
    Socket s;
    for (int c = 0; c < n; ++c) s.cpus.push_back(real_cpus[next++ % real_cpus.size()]);
    t.sockets.push_back(std::move(s));
  }
  return t;
}

std::string describe(const Topology& t) {
  const std::vector<int> cores = t.socket_cores();
  std::string out;
  if (!cores.empty() && std::all_of(cores.begin(), cores.end(), [&](int c) { return c == cores[0]; })) {
    out = std::to_string(cores.size()) + (cores.size() == 1 ? " socket x " : " sockets x ") +
          std::to_string(cores[0]) + " cores";
  } else {
    out = "sockets of ";
    for (std::size_t i = 0; i < cores.size(); ++i) out += (i ? "," : "") + std::to_string(cores[i]);
    out += " cores";
  }
  int l3 = 0;
  for (const Socket& s : t.sockets) l3 += s.l3_groups;
  if (l3 > 0) out += " (" + std::to_string(l3) + (l3 == 1 ? " L3 group)" : " L3 groups)");
  if (t.pretended) out += " (pretended)";
  return out;
}

}  // namespace herald::balance
