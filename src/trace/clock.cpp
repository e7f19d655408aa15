// Clocks of several processes put on one: offsets from ping-pongs, the one with the shortest round trip
// (the least time for the reply to be delayed), moving linearly between the two measurements.
#include <herald/error.hpp>
#include <herald/trace.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <limits>
#include <map>
#include <string>

namespace herald::trace {

double ClockFit::to_reference(double local) const noexcept {
  if (!has_end || local_end <= local_start) return local - offset_start;
  const double f = (local - local_start) / (local_end - local_start);
  return local - (offset_start + f * (offset_end - offset_start));
}

void ClockFit::measured(bool at_end, double local, double offset) noexcept {
  if (at_end) {
    local_end = local;
    offset_end = offset;
    has_end = true;
  } else {
    local_start = local;
    offset_start = offset;
  }
}

double offset_from(std::span<const Probe> probes) {
  double best_trip = std::numeric_limits<double>::infinity(), offset = 0;
  for (const Probe& p : probes) {
    const double trip = p.received - p.sent;
    if (trip < best_trip) {
      best_trip = trip;
      offset = p.remote - (p.sent + p.received) / 2;
    }
  }
  return offset;
}

void write_clocks(const Recording& run, const std::filesystem::path& file) {
  nlohmann::json clocks = nlohmann::json::array();
  for (const ClockFit& c : run.clocks) clocks.push_back({c.local_start, c.offset_start, c.error});
  std::ofstream out(file);
  out << nlohmann::json{{"format", "herald-trace-clocks"}, {"version", 1}, {"simulated", run.simulated},
                        {"clocks", clocks}}.dump()
      << "\n";
  if (!out) throw Error(Errc::invalid_argument, "cannot write " + file.string());
}

Recording recover(const std::filesystem::path& directory) {
  const std::filesystem::path raw = directory / "raw";
  Recording run;
  std::ifstream in(raw / "clocks.json");
  if (!in) throw Error(Errc::invalid_argument, "no clocks in " + raw.string() + " (clocks.json): not a trace's directory");
  try {
    const nlohmann::json clocks = nlohmann::json::parse(in);
    run.simulated = clocks.at("simulated").get<bool>();
    for (const auto& c : clocks.at("clocks"))
      run.clocks.push_back({.local_start = c.at(0), .offset_start = c.at(1), .error = c.at(2)});
  } catch (const nlohmann::json::exception& e) {
    throw Error(Errc::invalid_argument, (raw / "clocks.json").string() + " is malformed: " + e.what());
  }
  std::map<int, std::filesystem::path> spills;
  for (const auto& entry : std::filesystem::directory_iterator(raw)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("rank-", 0) == 0 && entry.path().extension() == ".events")
      spills[std::stoi(name.substr(5))] = entry.path();
  }
  const int ranks = static_cast<int>(run.clocks.size());
  for (int r = 0; r < ranks; ++r) {
    // A rank whose file is gone recorded nothing that can be read: an empty log keeps the others' numbers.
    const auto at = spills.find(r);
    run.logs.push_back(at == spills.end() ? decode_spill({}, r) : decode_spill(read_file(at->second), r));
  }
  return run;
}

}  // namespace herald::trace
