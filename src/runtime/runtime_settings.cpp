#include "runtime_settings.hpp"

#include <herald/dyn/endpoint.hpp>

#include <herald/config.hpp>
#include <herald/selector.hpp>
#include <herald/settings.hpp>

#include <algorithm>

namespace herald::runtime::detail {
namespace {

// The program's value if it gave one, else the environment's (parsed), else `fallback`.
template <class T, class Parse>
T setting(const std::optional<T>& given, const char* variable, T fallback, Parse parse) {
  if (given) return *given;
  if (auto v = environment(variable)) return parse(*v, variable);
  return fallback;
}

}  // namespace

RuntimeSettings RuntimeSettings::resolve(const Options& options) {
  require_known_settings();
  RuntimeSettings s;  // its members' initializers are the defaults
  s.threads = setting(options.threads, "HERALD_RUNTIME_THREADS", Runtime::default_threads(),
                      [](const std::string& v, const char* name) { return static_cast<int>(parse_count(v, name)); });
  if (s.threads < 0) throw Error(Errc::invalid_argument, "Options::threads must not be negative");
  s.control = options.control ? *options.control : default_control();
  s.scheduler = setting(options.scheduler, "HERALD_RUNTIME_SCHEDULER", s.scheduler,
                        [](const std::string& v, const char* name) { return scheduler_from_string(v, name); });
  s.mapping = options.mapping;
  s.worker_timeout = setting(options.worker_timeout, "HERALD_RUNTIME_TIMEOUT", s.worker_timeout, parse_seconds);
  if (!(s.worker_timeout > 0))
    throw Error(Errc::invalid_argument, "the worker timeout (Options::worker_timeout, HERALD_RUNTIME_TIMEOUT) must be positive");
  s.heartbeat = options.heartbeat.value_or(std::min(1.0, s.worker_timeout / 10));
  if (!(s.heartbeat > 0)) throw Error(Errc::invalid_argument, "Options::heartbeat must be positive");
  s.idle_sleep = setting(options.idle_sleep, "HERALD_RUNTIME_IDLE_SLEEP", s.idle_sleep, parse_seconds);
  if (s.idle_sleep < 0) throw Error(Errc::invalid_argument, "Options::idle_sleep must not be negative");
  if (options.link) {
    s.link = *options.link;
  } else {
    const CostModel model = cost_model_from_environment();
    s.link = Link{.alpha = model.alpha, .beta = model.beta};
  }
  s.broadcast = setting(options.broadcast, "HERALD_RUNTIME_BCAST", s.broadcast,
                        [](const std::string& v, const char* name) { return broadcast_strategy_from_string(v, name); });
  s.broadcast_sync = setting(options.broadcast_sync, "HERALD_RUNTIME_BCAST_SYNC", s.broadcast_sync, parse_switch);
  s.trees = setting(options.trees, "HERALD_RUNTIME_TREES", s.trees,
                    [](const std::string& v, const char* name) { return broadcast_trees_from_string(v, name); });
  s.reduction = setting(options.reduction, "HERALD_RUNTIME_REDUCE", s.reduction,
                        [](const std::string& v, const char* name) { return reduction_strategy_from_string(v, name); });
  if (s.broadcast_sync && s.control == Control::replicated)
    throw Error(Errc::invalid_argument, "synchronised broadcasts (broadcast_sync, HERALD_RUNTIME_BCAST_SYNC) need head control");
  if (auto v = environment("HERALD_RUNTIME_LOG")) s.log = parse_switch(*v, "HERALD_RUNTIME_LOG");
  if (auto v = environment("HERALD_RUNTIME_INJECT")) {
    const auto colon = v->find(':');
    const std::string kind = v->substr(0, colon);
    if (colon == std::string::npos || (kind != "handler" && kind != "alloc" && kind != "mpi" && kind != "stall"))
      throw Error(Errc::invalid_argument,
                  "HERALD_RUNTIME_INJECT='" + *v + "': expected <kind>:<rank>, kind handler, alloc, mpi or stall");
    s.inject.emplace(kind, static_cast<int>(parse_count(v->substr(colon + 1), "HERALD_RUNTIME_INJECT's rank")));
  }
  s.trace = options.trace ? *options.trace : environment("HERALD_TRACE").value_or("");
  return s;
}

ControlSettings RuntimeSettings::control_settings(dyn::Endpoint* endpoint, std::string read_kernel, int lanes) const {
  return {.scheduler = scheduler,
          .link = link,
          .lanes = static_cast<std::size_t>(std::max(1, lanes)),
          .mapping = mapping,
          .timeout = worker_timeout,
          .heartbeat = heartbeat,
          .broadcast = broadcast,
          .sync = broadcast_sync,
          .log = log,
          .trees = trees,
          .idle_sleep = idle_sleep,
          .endpoint = endpoint,
          .shape = endpoint ? ShapeOf([endpoint](int n, std::size_t bytes) { return endpoint->shape(n, bytes); }) : ShapeOf(),
          .read_kernel = std::move(read_kernel)};
}

}  // namespace herald::runtime::detail
