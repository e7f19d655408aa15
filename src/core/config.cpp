#include <herald/config.hpp>
#include <herald/error.hpp>
#include <herald/settings.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>  // environ

namespace herald {

long long parse_count(std::string_view text, std::string_view what) {
  long long value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0 || text.empty())
    throw Error(Errc::invalid_argument,
                std::string(what) + " '" + std::string(text) + "' is not a non-negative integer");
  return value;
}

bool parse_switch(std::string_view text, std::string_view what) {
  std::string v(text);
  std::ranges::transform(v, v.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (v == "1" || v == "true" || v == "yes" || v == "on") return true;
  if (v == "0" || v == "false" || v == "no" || v == "off") return false;
  throw Error(Errc::invalid_argument, std::string(what) + " '" + std::string(text) +
                                          "' is not a switch: use 1/0, true/false, yes/no or on/off");
}

std::vector<long long> parse_count_list(std::string_view text, std::string_view what) {
  std::vector<long long> counts;
  for (std::size_t start = 0;;) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    counts.push_back(parse_count(text.substr(start, comma - start), what));
    if (comma == text.size()) return counts;
    start = comma + 1;
  }
}

double parse_seconds(std::string_view text, std::string_view what) {
  const std::string copy(text);
  std::size_t used = 0;
  double value = -1;
  try {
    value = std::stod(copy, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != copy.size() || !(value >= 0) || !std::isfinite(value))
    throw Error(Errc::invalid_argument, std::string(what) + " '" + copy + "' is not a non-negative number");
  return value;
}

std::size_t parse_bytes(std::string_view text, std::string_view what) {
  auto bad = [&](const char* why) {
    return Error(Errc::invalid_argument, std::string(what) + " '" + std::string(text) + "' " + why);
  };
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0) throw bad("is not a byte count (e.g. 4096, 64K, 16M, 2G)");
  unsigned long long value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + digits, value);
  if (ec != std::errc()) throw bad("is too large");

  std::string suffix;
  for (char c : text.substr(digits)) suffix += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  unsigned shift = 0;
  if (suffix.empty() || suffix == "B") shift = 0;
  else if (suffix == "K" || suffix == "KB" || suffix == "KIB") shift = 10;
  else if (suffix == "M" || suffix == "MB" || suffix == "MIB") shift = 20;
  else if (suffix == "G" || suffix == "GB" || suffix == "GIB") shift = 30;
  else throw bad("has an unknown unit (use K, M or G)");
  if (value > (std::numeric_limits<std::size_t>::max() >> shift)) throw bad("is too large");
  return static_cast<std::size_t>(value) << shift;
}

namespace {

// The first of the launchers' rank variables that is set: Open MPI, MPICH's Hydra and PMIx, MVAPICH, Slurm.
// Core has no MPI, and a warning about the environment is due before MPI may even be initialised.
bool launched_as_rank_zero() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "MV2_COMM_WORLD_RANK", "SLURM_PROCID"})
    if (const char* v = std::getenv(name)) return std::string_view(v) == "0";
  return true;
}

}  // namespace

int launcher_ranks_on_node() {
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"}) {
    if (const char* text = std::getenv(name)) {
      char* end = nullptr;
      const long n = std::strtol(text, &end, 10);
      if (end != text && *end == '\0' && n > 0 && n <= std::numeric_limits<int>::max()) return static_cast<int>(n);
    }
  }
  return 0;
}

namespace {

std::vector<std::string> problems_now() {
  std::vector<std::string> variables;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry)
    if (std::string_view(*entry).starts_with("HERALD_")) variables.emplace_back(*entry);
  return environment_problems(variables);
}

bool strict_settings() {
  const auto strict = setting_value("HERALD_STRICT_SETTINGS").text;
  return strict && parse_switch(*strict, "HERALD_STRICT_SETTINGS");
}

// Once per process, at the first read of any setting: what is wrong with the HERALD_* environment (a
// misspelt or deprecated name) is said by rank 0. Under HERALD_STRICT_SETTINGS the layers refuse instead
// (require_known_settings()), where their errors reach the caller.
void warn_about_environment() {
  static std::once_flag warned;
  std::call_once(warned, [] {
    try {
      if (strict_settings() || !launched_as_rank_zero()) return;
    } catch (const Error&) {
      return;  // a malformed HERALD_STRICT_SETTINGS: require_known_settings() reports it
    }
    for (const std::string& p : problems_now()) std::fprintf(stderr, "herald: %s\n", p.c_str());
  });
}

}  // namespace

std::optional<std::string> environment(const char* name) {
  warn_about_environment();
  return setting_value(name).text;
}

void require_known_settings() {
  if (!strict_settings()) return;
  if (const std::vector<std::string> problems = problems_now(); !problems.empty())
    throw Error(Errc::invalid_argument, problems.front() + " (HERALD_STRICT_SETTINGS=1)");
}

bool environment_switch(const char* name, bool unset) {
  const auto v = environment(name);
  return v ? parse_switch(*v, name) : unset;
}

}  // namespace herald
