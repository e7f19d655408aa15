#include "report.hpp"

#include "contender.hpp"

#include <herald/algorithms.hpp>
#include <herald/error.hpp>
#include <herald/settings.hpp>

#include <mpi.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <thread>

namespace herald::bench {
namespace {

std::string format(const char* spec, double value) {
  char text[64];
  std::snprintf(text, sizeof text, spec, value);
  return text;
}

std::string microseconds(double seconds) { return format("%.2f", seconds * 1e6); }

const Measurement* native_of(std::span<const Measurement> one_size) {
  for (const Measurement& m : one_size)
    if (m.algorithm == "native") return &m;
  return nullptr;
}

// The herald entry with the lowest median, if any.
const Measurement* best_herald(std::span<const Measurement> one_size) {
  const Measurement* best = nullptr;
  for (const Measurement& m : one_size)
    // herald_native runs MPI's algorithm, not one of herald's.
    if (m.algorithm != "native" && m.algorithm != via_herald_native && (best == nullptr || m.spread.median < best->spread.median)) best = &m;
  return best;
}

std::string name_with_choice(const Measurement& m) {
  return m.resolved == m.algorithm ? m.algorithm : m.algorithm + "(" + m.resolved + ")";
}

std::ofstream open_for_writing(const std::string& path) {
  std::ofstream file(path);
  if (!file) throw Error(Errc::invalid_argument, "cannot write '" + path + "'");
  return file;
}

// Groups consecutive measurements of the same size.
template <typename F>
void for_each_size(std::span<const Measurement> all, F&& f) {
  std::size_t begin = 0;
  while (begin < all.size()) {
    std::size_t end = begin;
    while (end < all.size() && all[end].bytes == all[begin].bytes) ++end;
    f(all.subspan(begin, end - begin));
    begin = end;
  }
}

}  // namespace

Machine describe_machine(int ranks) {
  Machine m;
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) m.hostname = host;
  m.cores = std::thread::hardware_concurrency();
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(version, &length);
  // The first line, without the trailing blank or NUL some libraries count in `length`.
  m.mpi_library = std::string(version, strnlen(version, std::min<std::size_t>(length, sizeof version)));
  m.mpi_library = m.mpi_library.substr(0, m.mpi_library.find_first_of("\r\n"));
  m.mpi_library.erase(m.mpi_library.find_last_not_of(" \t") + 1);
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &utc);
  m.date = date;
  std::ifstream loadavg("/proc/loadavg");
  std::string one, five, fifteen;
  if (loadavg >> one >> five >> fifteen) m.load = one + " " + five + " " + fifteen;
  m.ranks = ranks;
  return m;
}

void compare_to_native(std::span<Measurement> one_size) {
  const Measurement* native = native_of(one_size);
  for (Measurement& m : one_size) {
    if (&m == native) {
      m.ratio = 1.0;
      m.verdict = Verdict::peer;
    } else if (native != nullptr) {
      m.ratio = native->spread.median > 0 ? m.spread.median / native->spread.median : 0.0;
      m.verdict = compare(m.spread, native->spread);
    }
  }
}

void print_header(std::ostream& out, const Run& run) {
  const Machine& m = run.machine;
  const Settings& s = run.settings;
  const Calibration& c = run.calibration;
  out << "# herald-bcast-bench: " << m.ranks << " ranks, root " << s.root << ", "
      << (s.nonblocking ? "ibcast + wait" : "bcast") << "\n"
      << "# host " << m.hostname << ", " << m.cores << " cores, " << m.mpi_library << "\n"
      << "# date " << m.date << (m.load.empty() ? "" : ", load average " + m.load) << "\n"
      << "# " << s.repetitions << " repetitions, up to " << s.iterations << " iterations each (at least "
      << s.min_iterations << ", time budget " << s.time_budget * 1e3 << " ms per algorithm and repetition), "
      << s.warmup << " warm-up\n"
      << (s.clock == Clock::sync
              ? "# clock sync: every broadcast starts at one instant T on every rank; latency = average over "
                "iterations of (latest finish over ranks - T)"
              : "# clock osu: latency = max over ranks of the per-iteration average")
      << "; median/min/max over repetitions; ratio = median / native's median\n"
      << (s.shared_buffer ? "# buffer shared by every rank (SMPI_SHARED_MALLOC): the data is NOT validated\n"
                          : "")
      << "# verdict: faster/slower when the min-max ranges do not overlap, else not distinguishable\n"
      << "# prediction: herald's simulator, alpha " << format("%.3g", c.alpha * 1e6) << " us, beta "
      << format("%.3g", c.beta * 1e9) << " ns/byte ("
      << (c.measured ? "measured by ping-pong between ranks 0 and 1" : "given or defaulted") << ")\n"
      << "# gap between back-to-back small sends " << format("%.3g", c.gap * 1e6) << " us"
      << " (a burst of 64 from rank 0 to 1, measured with alpha and beta; 0 when both are given)\n"
      << "# auto's cost model: "
      << (setting_value("HERALD_TUNING_FILE").text ? "the tuning file's (HERALD_TUNING_FILE), "
          : setting_value("HERALD_PRESET").text   ? "the preset's (HERALD_PRESET), "
                                                  : "")
      << "HERALD_ALPHA=" << setting_value("HERALD_ALPHA").text.value_or("unset")
      << " HERALD_BETA=" << setting_value("HERALD_BETA").text.value_or("unset")
      << " (the figures above unless set by the user, or a tuning file or a preset is given)\n";
  char line[256];
  std::snprintf(line, sizeof line, "%10s  %-28s %7s %11s %11s %11s %7s %12s  %s\n", "bytes", "algorithm",
                "iters", "median_us", "min_us", "max_us", "ratio", "predicted_us", "verdict");
  out << line << std::flush;
}

void print_size(std::ostream& out, std::span<const Measurement> one_size) {
  char line[256];
  for (const Measurement& m : one_size) {
    const std::string predicted = m.predicted_seconds ? microseconds(*m.predicted_seconds) : "-";
    std::snprintf(line, sizeof line, "%10zu  %-28s %7d %11s %11s %11s %7s %12s  %s\n", m.bytes,
                  name_with_choice(m).c_str(), m.iterations, microseconds(m.spread.median).c_str(),
                  microseconds(m.spread.min).c_str(), microseconds(m.spread.max).c_str(),
                  format("%.2f", m.ratio).c_str(), predicted.c_str(), std::string(to_string(m.verdict)).c_str());
    out << line;
  }
  if (const Measurement* best = best_herald(one_size)) {
    out << "  best herald at " << best->bytes << " B: " << name_with_choice(*best) << ", ratio "
        << format("%.2f", best->ratio) << " (" << to_string(best->verdict) << ")\n";
  }
  out << std::flush;
}

void print_summary(std::ostream& out, const Run& run) {
  char line[256];
  out << "# summary: " << run.machine.ranks << " ranks, root " << run.settings.root << "\n";
  std::snprintf(line, sizeof line, "%10s %12s  %-28s %12s %7s  %s\n", "bytes", "native_us", "best herald",
                "herald_us", "ratio", "verdict");
  out << line;
  for_each_size(run.measurements, [&](std::span<const Measurement> one_size) {
    const Measurement* native = native_of(one_size);
    const Measurement* best = best_herald(one_size);
    if (native == nullptr || best == nullptr) return;
    std::snprintf(line, sizeof line, "%10zu %12s  %-28s %12s %7s  %s\n", best->bytes,
                  microseconds(native->spread.median).c_str(), name_with_choice(*best).c_str(),
                  microseconds(best->spread.median).c_str(), format("%.2f", best->ratio).c_str(),
                  std::string(to_string(best->verdict)).c_str());
    out << line;
  });
  out << std::flush;
}

void write_csv(const std::string& path, const Run& run) {
  std::ofstream file = open_for_writing(path);
  file << "ranks,root,mode,bytes,algorithm,resolved,segment,fanout,radix,iterations,repetitions,median_us,"
          "min_us,max_us,ratio_to_native,verdict,predicted_us,alpha_s,beta_s_per_byte,leaders\n";
  const Settings& s = run.settings;
  for (const Measurement& m : run.measurements) {
    file << run.machine.ranks << ',' << s.root << ',' << (s.nonblocking ? "nonblocking" : "blocking") << ','
         << m.bytes << ',' << m.algorithm << ',' << m.resolved << ',' << m.parameters.segment.value_or(0) << ','
         << m.parameters.fanout.value_or(0) << ',' << m.parameters.radix.value_or(0) << ',' << m.iterations << ',' << m.samples.size()
         << ',' << format("%.4f", m.spread.median * 1e6) << ',' << format("%.4f", m.spread.min * 1e6) << ','
         << format("%.4f", m.spread.max * 1e6) << ',' << format("%.4f", m.ratio) << ','
         << to_string(m.verdict, true) << ','
         << (m.predicted_seconds ? format("%.4f", *m.predicted_seconds * 1e6) : std::string()) << ','
         << format("%.6e", run.calibration.alpha) << ',' << format("%.6e", run.calibration.beta) << ','
         << leader_stage_name(m.parameters.leaders) << '\n';
  }
  if (!file) throw Error(Errc::invalid_argument, "writing '" + path + "' failed");
}

void write_json(const std::string& path, const Run& run) {
  using nlohmann::ordered_json;
  const Settings& s = run.settings;
  const Calibration& c = run.calibration;
  ordered_json out;
  out["machine"] = {{"hostname", run.machine.hostname},
                    {"cores", run.machine.cores},
                    {"mpi_library", run.machine.mpi_library},
                    {"date", run.machine.date},
                    {"load_average", run.machine.load},
                    {"ranks", run.machine.ranks}};
  out["settings"] = {{"command_line", s.command_line},
                     {"algorithms", s.algorithms},
                     {"sizes", s.sizes},
                     {"root", s.root},
                     {"mode", s.nonblocking ? "nonblocking" : "blocking"},
                     {"clock", s.clock == Clock::sync ? "sync" : "osu"},
                     {"shared_buffer", s.shared_buffer},
                     {"iterations", s.iterations},
                     {"min_iterations", s.min_iterations},
                     {"time_budget_s", s.time_budget},
                     {"repetitions", s.repetitions},
                     {"warmup", s.warmup},
                     {"segment", s.parameters.segment.value_or(0)},
                     {"fanout", s.parameters.fanout.value_or(0)},
                     {"radix", s.parameters.radix.value_or(0)},
                     {"leaders", leader_stage_name(s.parameters.leaders)}};
  out["calibration"] = {{"alpha_s", c.alpha},           {"beta_s_per_byte", c.beta},
                        {"gap_s", c.gap},
                        {"measured", c.measured},       {"small_bytes", c.small_bytes},
                        {"small_one_way_s", c.small_seconds}, {"large_bytes", c.large_bytes},
                        {"large_one_way_s", c.large_seconds}};
  ordered_json rows = ordered_json::array();
  for (const Measurement& m : run.measurements) {
    ordered_json row = {{"bytes", m.bytes},
                        {"algorithm", m.algorithm},
                        {"resolved", m.resolved},
                        {"segment", m.parameters.segment.value_or(0)},
                        {"fanout", m.parameters.fanout.value_or(0)},
                        {"radix", m.parameters.radix.value_or(0)},
                        {"leaders", leader_stage_name(m.parameters.leaders)},
                        {"iterations", m.iterations},
                        {"samples_us", ordered_json::array()},
                        {"median_us", m.spread.median * 1e6},
                        {"min_us", m.spread.min * 1e6},
                        {"max_us", m.spread.max * 1e6},
                        {"ratio_to_native", m.ratio},
                        {"verdict", to_string(m.verdict, true)}};
    for (double sample : m.samples) row["samples_us"].push_back(sample * 1e6);
    row["predicted_us"] = m.predicted_seconds ? ordered_json(*m.predicted_seconds * 1e6) : ordered_json();
    row["lower_bound_us"] = m.lower_bound_seconds ? ordered_json(*m.lower_bound_seconds * 1e6) : ordered_json();
    rows.push_back(std::move(row));
  }
  out["measurements"] = std::move(rows);
  std::ofstream file = open_for_writing(path);
  file << out.dump(2) << '\n';
  if (!file) throw Error(Errc::invalid_argument, "writing '" + path + "' failed");
}

}  // namespace herald::bench
