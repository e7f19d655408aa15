#include <herald/balance/settings.hpp>
#include <herald/config.hpp>
#include <herald/error.hpp>
#include <herald/settings.hpp>

#include <algorithm>
#include <cctype>
#include <string>

#include <unistd.h>  // environ

namespace herald::balance {
namespace {

constexpr long max_cores = 65536;

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

Error bad(std::string_view what, std::string_view text, std::string_view why) {
  return Error(Errc::invalid_argument, std::string(what) + " '" + std::string(text) + "' " + std::string(why));
}

int core_count(std::string_view part, std::string_view what, std::string_view text) {
  long long n = 0;
  try {
    n = parse_count(part, what);
  } catch (const Error&) {
    throw bad(what, text, "is not a core count (e.g. 48, 2x24, 24,24)");
  }
  if (n < 1) throw bad(what, text, "has a socket without cores");
  if (n > max_cores) throw bad(what, text, "is more cores than herald handles (65536)");
  return static_cast<int>(n);
}

long positive(const std::string& text, const char* what) {
  const long long n = parse_count(text, what);
  if (n < 1) throw bad(what, text, "must be at least 1");
  if (n > (1LL << 40)) throw bad(what, text, "is too large");
  return static_cast<long>(n);
}

}  // namespace

std::vector<int> parse_socket_cores(std::string_view text, std::string_view what) {
  std::vector<int> cores;
  if (text.empty()) throw bad(what, text, "is empty");
  const std::string v = lower(text);
  if (const auto x = v.find('x'); x != std::string::npos) {
    const int sockets = core_count(std::string_view(v).substr(0, x), what, text);
    const int per_socket = core_count(std::string_view(v).substr(x + 1), what, text);
    if (static_cast<long>(sockets) * per_socket > max_cores)
      throw bad(what, text, "is more cores than herald handles (65536)");
    cores.assign(sockets, per_socket);
    return cores;
  }
  long total = 0;
  std::string_view rest(v);
  for (;;) {
    const auto comma = rest.find(',');
    cores.push_back(core_count(rest.substr(0, comma), what, text));
    total += cores.back();
    if (total > max_cores) throw bad(what, text, "is more cores than herald handles (65536)");
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return cores;
}

Settings parse_settings(const std::function<std::optional<std::string>(const char*)>& lookup) {
  Settings s;
  if (auto v = lookup("HERALD_BALANCE_IMPLICIT")) s.implicit = parse_switch(*v, "HERALD_BALANCE_IMPLICIT");
  if (auto v = lookup("HERALD_BALANCE_LOG")) s.log = parse_switch(*v, "HERALD_BALANCE_LOG");
  if (auto v = lookup("HERALD_BALANCE_BIND")) s.bind = parse_switch(*v, "HERALD_BALANCE_BIND");
  const auto every = lookup("HERALD_BALANCE_EVERY");
  const auto at = lookup("HERALD_BALANCE_AT");
  if (every) s.trigger.every = positive(*every, "HERALD_BALANCE_EVERY");
  if (at) s.trigger.at = positive(*at, "HERALD_BALANCE_AT");
  if (every && at)
    throw Error(Errc::invalid_argument,
                "HERALD_BALANCE_EVERY and HERALD_BALANCE_AT are both set; set one (every X-th call, or once at "
                "the X-th)");
  if (auto v = lookup("HERALD_BALANCE_CLOCK")) {
    const std::string c = lower(*v);
    if (c == "wall") s.clock = Clock::wall;
    else if (c == "cpu") s.clock = Clock::cpu;
    else throw bad("HERALD_BALANCE_CLOCK", *v, "is not a clock (use wall or cpu)");
  }
  if (auto v = lookup("HERALD_BALANCE_CORES")) s.cores = parse_socket_cores(*v, "HERALD_BALANCE_CORES");
  return s;
}

void check_names(std::span<const std::string> names) {
  static constexpr std::string_view prefix = "HERALD_BALANCE_";
  for (const std::string& name : names) {
    if (!std::string_view(name).starts_with(prefix)) continue;
    if (const Setting* s = find_setting(name); s && s->component == "balance") continue;
    std::string list;
    for (const Setting& s : settings())
      if (s.component == "balance") list += (list.empty() ? "" : ", ") + std::string(s.name);
    throw Error(Errc::invalid_argument, "unknown variable " + name + " (known: " + list + ")");
  }
}

Settings settings_from_environment() {
  std::vector<std::string> names;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    names.emplace_back(text.substr(0, text.find('=')));
  }
  check_names(names);
  require_known_settings();
  return parse_settings([](const char* name) { return environment(name); });
}

}  // namespace herald::balance
