#include "hwloc_topology.hpp"

#include <herald/error.hpp>

#include <hwloc.h>

namespace herald::balance {
namespace {

// Owns a loaded hwloc topology.
class HwlocTopology {
 public:
  HwlocTopology() {
    if (hwloc_topology_init(&topology_) != 0) throw Error(Errc::invalid_argument, "hwloc_topology_init failed");
    if (hwloc_topology_load(topology_) != 0) {
      hwloc_topology_destroy(topology_);
      throw Error(Errc::invalid_argument, "hwloc_topology_load failed");
    }
  }
  ~HwlocTopology() { hwloc_topology_destroy(topology_); }
  HwlocTopology(const HwlocTopology&) = delete;
  HwlocTopology& operator=(const HwlocTopology&) = delete;
  hwloc_topology_t get() const { return topology_; }

 private:
  hwloc_topology_t topology_ = nullptr;
};

Socket socket_within(hwloc_topology_t t, hwloc_const_cpuset_t set) {
  Socket s;
  const int cores = hwloc_get_nbobjs_inside_cpuset_by_type(t, set, HWLOC_OBJ_CORE);
  for (int i = 0; i < cores; ++i) {
    hwloc_obj_t core = hwloc_get_obj_inside_cpuset_by_type(t, set, HWLOC_OBJ_CORE, i);
    hwloc_obj_t pu = hwloc_get_obj_inside_cpuset_by_type(t, core->cpuset, HWLOC_OBJ_PU, 0);
    if (pu != nullptr) s.cpus.push_back(static_cast<int>(pu->os_index));
  }
  if (s.cpus.empty()) {  // no core objects: count hardware threads instead
    const int pus = hwloc_get_nbobjs_inside_cpuset_by_type(t, set, HWLOC_OBJ_PU);
    for (int i = 0; i < pus; ++i)
      s.cpus.push_back(static_cast<int>(hwloc_get_obj_inside_cpuset_by_type(t, set, HWLOC_OBJ_PU, i)->os_index));
  }
  s.l3_groups = hwloc_get_nbobjs_inside_cpuset_by_type(t, set, HWLOC_OBJ_L3CACHE);
  return s;
}

}  // namespace

Topology detect_topology() {
  HwlocTopology topology;
  hwloc_topology_t t = topology.get();
  Topology result;
  const int packages = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE);
  for (int i = 0; i < packages; ++i) {
    Socket s = socket_within(t, hwloc_get_obj_by_type(t, HWLOC_OBJ_PACKAGE, i)->cpuset);
    if (!s.cpus.empty()) result.sockets.push_back(std::move(s));
  }
  if (result.sockets.empty()) result.sockets.push_back(socket_within(t, hwloc_topology_get_topology_cpuset(t)));
  if (result.cores() == 0) throw Error(Errc::invalid_argument, "hwloc found no core on this node");
  return result;
}

std::vector<int> all_cpus(const Topology& topology) {
  std::vector<int> cpus;
  for (const Socket& s : topology.sockets) cpus.insert(cpus.end(), s.cpus.begin(), s.cpus.end());
  return cpus;
}

}  // namespace herald::balance
