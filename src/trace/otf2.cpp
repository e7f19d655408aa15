// The OTF2 archive. OTF2 nests a location's regions (every Leave closes the latest Enter), while herald's
// spans on one thread overlap: a worker fetches several inputs at once, a broadcast's messages are in
// flight together. So each thread's spans are dealt out to lanes, as few as keep every lane's spans apart,
// and each lane is a location ("rank 3 main", "rank 3 main +1", ...). The messages of coll's broadcasts are
// OTF2's nonblocking MPI events (MpiIsend ... MpiIsendComplete, MpiIrecvRequest ... MpiIrecv) on a location
// of their own per rank, on one communicator of all the trace's ranks.
#include <herald/error.hpp>
#include <herald/trace.hpp>

#ifdef HERALD_HAVE_OTF2
#include <otf2/otf2.h>
#endif

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace herald::trace {

#ifndef HERALD_HAVE_OTF2

bool otf2_available() noexcept { return false; }

void write_otf2(const Recording&, const std::filesystem::path&, const std::string&) {
  throw Error(Errc::invalid_argument, "herald was built without libotf2: no OTF2 archive (trace.json is written)");
}

#else

bool otf2_available() noexcept { return true; }

namespace {

// One record of a location, in time order.
struct Record {
  std::uint64_t time;
  int order;  // at one instant: leaves (0) before enters (1)
  enum class What { enter, leave, isend, isend_complete, irecv_request, irecv } what;
  std::uint32_t region = 0;
  const Event* event = nullptr;
  std::uint64_t request = 0;
};

struct Location {
  std::uint64_t id;
  int rank;
  std::string name;
  std::vector<Record> records;
};

OTF2_FlushType pre_flush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) { return OTF2_FLUSH; }
OTF2_TimeStamp post_flush(void*, OTF2_FileType, OTF2_LocationRef) { return 0; }

void check(OTF2_ErrorCode rc, const char* what) {
  if (rc != OTF2_SUCCESS)
    throw Error(Errc::invalid_argument, std::string("writing the OTF2 archive: ") + what + " failed: " +
                                            OTF2_Error_GetDescription(rc));
}

bool is_span(Kind k) {
  return k == Kind::task || k == Kind::transfer || k == Kind::broadcast || k == Kind::schedule || k == Kind::bcast ||
         k == Kind::dyn_send || k == Kind::dyn_land || k == Kind::submit;
}

std::string region_name(const Log& log, const Event& e) {
  const std::string& name = e.name < log.strings.size() ? log.strings[e.name] : log.strings[0];
  switch (e.kind) {
    case Kind::task: return name.empty() ? "task" : name;
    case Kind::submit: return "submit " + name;
    case Kind::transfer: return "fetch";
    case Kind::broadcast: return "broadcast " + name;
    case Kind::schedule: return "schedule";
    case Kind::bcast: return "bcast " + name;
    case Kind::dyn_send:
    case Kind::dyn_land: return "dyn " + name;
    default: return std::string(to_string(e.kind));
  }
}

class Archive {
 public:
  explicit Archive(const Recording& run) : run_(run) {
    origin_ = std::numeric_limits<double>::infinity();
    for (const Log& log : run_.logs)
      for (const Event& e : log.events) origin_ = std::min(origin_, reference(log, e.begin));
    if (!std::isfinite(origin_)) origin_ = 0;
    for (const Log& log : run_.logs) place(log);
  }

  void write(const std::filesystem::path& directory, const std::string& name) {
    std::filesystem::remove_all(directory / name);
    std::filesystem::remove(directory / (name + ".otf2"));
    OTF2_Archive* archive = OTF2_Archive_Open(directory.c_str(), name.c_str(), OTF2_FILEMODE_WRITE, 1024 * 1024,
                                              4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!archive) throw Error(Errc::invalid_argument, "cannot create the OTF2 archive in " + directory.string());
    try {
      static const OTF2_FlushCallbacks flush{pre_flush, post_flush};
      check(OTF2_Archive_SetFlushCallbacks(archive, &flush, nullptr), "setting its flush callbacks");
      check(OTF2_Archive_SetSerialCollectiveCallbacks(archive), "setting its collective callbacks");
      check(OTF2_Archive_SetCreator(archive, "herald"), "naming its creator");
      check(OTF2_Archive_OpenEvtFiles(archive), "opening its event files");
      for (Location& l : locations_) events(archive, l);
      check(OTF2_Archive_CloseEvtFiles(archive), "closing its event files");
      check(OTF2_Archive_OpenDefFiles(archive), "opening its definition files");
      for (Location& l : locations_) {
        OTF2_DefWriter* d = OTF2_Archive_GetDefWriter(archive, l.id);
        check(OTF2_Archive_CloseDefWriter(archive, d), "closing a definition writer");
      }
      check(OTF2_Archive_CloseDefFiles(archive), "closing its definition files");
      definitions(archive);
    } catch (...) {
      OTF2_Archive_Close(archive);
      throw;
    }
    check(OTF2_Archive_Close(archive), "closing it");
  }

 private:
  enum Attribute : std::uint32_t { task, bytes, peer, id, root, attribute_count };

  double reference(const Log& log, double local) const {
    return run_.clocks[static_cast<std::size_t>(log.rank)].to_reference(local);
  }
  std::uint64_t ticks(const Log& log, double local) const {
    return static_cast<std::uint64_t>(std::llround(std::max(0.0, reference(log, local) - origin_) * 1e9));
  }
  std::uint32_t string(const std::string& text) {
    const auto [at, added] = strings_.try_emplace(text, static_cast<std::uint32_t>(strings_.size()));
    return at->second;
  }
  std::uint32_t region(const std::string& name) {
    const auto [at, added] = regions_.try_emplace(name, static_cast<std::uint32_t>(regions_.size()));
    if (added) string(name);
    return at->second;
  }

  // Deals a rank's spans out to lanes per thread, and its messages to a location of their own.
  void place(const Log& log) {
    std::vector<const Event*> spans;
    Location messages{location_id(log.rank, 0xffff), log.rank, "rank " + std::to_string(log.rank) + " messages", {}};
    for (const Event& e : log.events) {
      if (is_span(e.kind)) spans.push_back(&e);
      if (e.kind == Kind::send || e.kind == Kind::recv) {
        const std::uint64_t request = ++requests_;
        const bool send = e.kind == Kind::send;
        messages.records.push_back({ticks(log, e.begin), 1, send ? Record::What::isend : Record::What::irecv_request,
                                    0, &e, request});
        messages.records.push_back({ticks(log, e.end), 1, send ? Record::What::isend_complete : Record::What::irecv,
                                    0, &e, request});
      }
    }
    std::sort(spans.begin(), spans.end(), [](const Event* a, const Event* b) {
      return a->thread != b->thread ? a->thread < b->thread : a->begin < b->begin;
    });
    std::map<std::uint16_t, std::vector<std::size_t>> lanes_of;  // thread -> its locations
    std::map<std::size_t, double> lane_end;                        // location -> its last leave
    for (const Event* e : spans) {
      std::vector<std::size_t>& lanes = lanes_of[e->thread];
      std::size_t* free = nullptr;
      for (std::size_t& l : lanes)
        if (lane_end[l] <= e->begin) {
          free = &l;
          break;
        }
      if (!free) {
        const std::string thread = e->thread < log.threads.size() ? log.threads[e->thread] : "thread";
        const std::string lane = lanes.empty() ? "" : " +" + std::to_string(lanes.size());
        locations_.push_back({location_id(log.rank, locations_of_[log.rank]++), log.rank,
                              "rank " + std::to_string(log.rank) + " " + thread + lane, {}});
        lanes.push_back(locations_.size() - 1);
        free = &lanes.back();
      }
      Location& l = locations_[*free];
      lane_end[*free] = std::max(e->end, e->begin);
      const std::uint32_t r = region(region_name(log, *e));
      l.records.push_back({ticks(log, e->begin), 1, Record::What::enter, r, e, 0});
      l.records.push_back({ticks(log, std::max(e->end, e->begin)), 0, Record::What::leave, r, e, 0});
    }
    locations_.push_back(std::move(messages));  // every rank's: the communicator's members
  }

  std::uint64_t location_id(int rank, std::uint32_t local) const {
    return (static_cast<std::uint64_t>(rank) << 16) | local;
  }

  void attributes(OTF2_AttributeList* list, const Event& e) {
    auto add = [&](Attribute a, std::int64_t v) { OTF2_AttributeList_AddInt64(list, a, v); };
    switch (e.kind) {
      case Kind::task: add(task, e.a); break;
      case Kind::submit: add(task, e.a); break;
      case Kind::transfer: add(peer, e.a), add(bytes, e.c), add(task, e.d); break;
      case Kind::broadcast: add(id, e.a), add(root, e.b), add(bytes, e.c); break;
      case Kind::bcast: add(id, e.a), add(root, e.c), add(bytes, e.d); break;
      case Kind::dyn_send:
      case Kind::dyn_land: add(id, e.a), add(peer, e.b), add(bytes, e.c); break;
      default: break;
    }
  }

  void events(OTF2_Archive* archive, Location& l) {
    std::stable_sort(l.records.begin(), l.records.end(), [](const Record& a, const Record& b) {
      return a.time != b.time ? a.time < b.time : a.order < b.order;
    });
    OTF2_EvtWriter* w = OTF2_Archive_GetEvtWriter(archive, l.id);
    if (!w) throw Error(Errc::invalid_argument, "writing the OTF2 archive: no event writer for " + l.name);
    OTF2_AttributeList* list = OTF2_AttributeList_New();
    for (const Record& r : l.records) {
      const Event& e = *r.event;
      OTF2_ErrorCode rc = OTF2_SUCCESS;
      switch (r.what) {
        case Record::What::enter:
          attributes(list, e);
          rc = OTF2_EvtWriter_Enter(w, list, r.time, r.region);
          break;
        case Record::What::leave: rc = OTF2_EvtWriter_Leave(w, nullptr, r.time, r.region); break;
        case Record::What::isend:
          rc = OTF2_EvtWriter_MpiIsend(w, nullptr, r.time, static_cast<std::uint32_t>(e.c), 0,
                                       static_cast<std::uint32_t>(e.a), static_cast<std::uint64_t>(e.d), r.request);
          break;
        case Record::What::isend_complete: rc = OTF2_EvtWriter_MpiIsendComplete(w, nullptr, r.time, r.request); break;
        case Record::What::irecv_request: rc = OTF2_EvtWriter_MpiIrecvRequest(w, nullptr, r.time, r.request); break;
        case Record::What::irecv:
          rc = OTF2_EvtWriter_MpiIrecv(w, nullptr, r.time, static_cast<std::uint32_t>(e.c), 0,
                                       static_cast<std::uint32_t>(e.a), static_cast<std::uint64_t>(e.d), r.request);
          break;
      }
      check(rc, "writing an event");
    }
    OTF2_AttributeList_Delete(list);
    events_[l.id] = l.records.size();
    check(OTF2_Archive_CloseEvtWriter(archive, w), "closing an event writer");
  }

  void definitions(OTF2_Archive* archive) {
    OTF2_GlobalDefWriter* d = OTF2_Archive_GetGlobalDefWriter(archive);
    std::uint64_t last = 0;
    for (const Location& l : locations_)
      if (!l.records.empty()) last = std::max(last, l.records.back().time);
    check(OTF2_GlobalDefWriter_WriteClockProperties(d, 1000000000, 0, last + 1, OTF2_UNDEFINED_TIMESTAMP),
          "writing the clock");
    const std::uint32_t empty = string(""), machine = string("machine"), node = string("node"),
                        world = string("all ranks");
    const std::uint32_t attribute_names[attribute_count] = {string("task"), string("bytes"), string("peer"),
                                                            string("id"), string("root")};
    std::vector<std::uint32_t> rank_names;
    for (const Log& log : run_.logs) rank_names.push_back(string("rank " + std::to_string(log.rank)));
    for (const Location& l : locations_) string(l.name);
    // Strings first: every other definition refers to them.
    std::vector<const std::string*> by_id(strings_.size());
    for (const auto& [text, sid] : strings_) by_id[sid] = &text;
    for (std::size_t i = 0; i < by_id.size(); ++i)
      check(OTF2_GlobalDefWriter_WriteString(d, static_cast<std::uint32_t>(i), by_id[i]->c_str()), "writing a string");
    for (std::uint32_t a = 0; a < attribute_count; ++a)
      check(OTF2_GlobalDefWriter_WriteAttribute(d, a, attribute_names[a], empty, OTF2_TYPE_INT64), "writing an attribute");
    std::vector<const std::string*> regions(regions_.size());  // in the order of their ids, as readers want
    for (const auto& [name, rid] : regions_) regions[rid] = &name;
    for (std::uint32_t rid = 0; rid < regions.size(); ++rid)
      check(OTF2_GlobalDefWriter_WriteRegion(d, rid, strings_.at(*regions[rid]), strings_.at(*regions[rid]), empty, OTF2_REGION_ROLE_FUNCTION,
                                             OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE, empty, 0, 0),
            "writing a region");
    check(OTF2_GlobalDefWriter_WriteSystemTreeNode(d, 0, machine, node, OTF2_UNDEFINED_SYSTEM_TREE_NODE),
          "writing the system tree");
    for (const Log& log : run_.logs)
      check(OTF2_GlobalDefWriter_WriteLocationGroup(d, static_cast<std::uint32_t>(log.rank),
                                                    rank_names[static_cast<std::size_t>(log.rank)],
                                                    OTF2_LOCATION_GROUP_TYPE_PROCESS, 0, OTF2_UNDEFINED_LOCATION_GROUP),
            "writing a process");
    for (const Location& l : locations_)
      check(OTF2_GlobalDefWriter_WriteLocation(d, l.id, strings_.at(l.name), OTF2_LOCATION_TYPE_CPU_THREAD,
                                               events_[l.id], static_cast<std::uint32_t>(l.rank)),
            "writing a location");
    // The messages' communicator: rank r of it is the trace's rank r, whose messages location stands for it.
    std::vector<std::uint64_t> members;
    for (const Log& log : run_.logs) members.push_back(location_id(log.rank, 0xffff));
    check(OTF2_GlobalDefWriter_WriteGroup(d, 0, world, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                          OTF2_GROUP_FLAG_NONE, static_cast<std::uint32_t>(members.size()),
                                          members.data()),
          "writing the ranks' group");
    std::vector<std::uint64_t> ranks;
    for (std::size_t r = 0; r < run_.logs.size(); ++r) ranks.push_back(r);
    check(OTF2_GlobalDefWriter_WriteGroup(d, 1, world, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                          OTF2_GROUP_FLAG_NONE, static_cast<std::uint32_t>(ranks.size()), ranks.data()),
          "writing the communicator's group");
    check(OTF2_GlobalDefWriter_WriteComm(d, 0, world, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE),
          "writing the communicator");
    check(OTF2_Archive_CloseGlobalDefWriter(archive, d), "closing the definitions");
  }

  const Recording& run_;
  double origin_ = 0;
  std::vector<Location> locations_;
  std::map<int, std::uint32_t> locations_of_;
  std::map<std::string, std::uint32_t> strings_, regions_;
  std::map<std::uint64_t, std::uint64_t> events_;
  std::uint64_t requests_ = 0;
};

}  // namespace

void write_otf2(const Recording& run, const std::filesystem::path& directory, const std::string& name) {
  Archive(run).write(directory, name);
}

#endif

}  // namespace herald::trace
