// Entry points of libherald_balance: the OMPT tool the OpenMP runtime starts, herald_balanced()'s target
// and the status query.
//
// OMPT calls plain C functions without a context argument, so the one Tool of the process lives here,
// created when the runtime initialises the tool and destroyed when it finalises it.
#include "tool.hpp"

#include <herald/balance.h>
#include <herald/balance/status.hpp>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string_view>

namespace herald::balance {
namespace {

// The holder is never destroyed: the runtime finalises the tool from its own exit handler, which may run
// after this library's static destructors, and callbacks may still arrive until then.
std::unique_ptr<Tool>& the_tool() {
  static auto* const holder = new std::unique_ptr<Tool>();
  return *holder;
}

// Callbacks after finalisation find no tool and do nothing.
void on_thread_begin(ompt_thread_t, ompt_data_t* thread_data) {
  if (const auto& tool = the_tool()) tool->thread_begin(thread_data);
}

void on_parallel_begin(ompt_data_t* encountering_task, const ompt_frame_t*, ompt_data_t* parallel, unsigned int,
                       int, const void*) {
  if (const auto& tool = the_tool()) tool->parallel_begin(encountering_task, parallel);
}

void on_parallel_end(ompt_data_t* parallel, ompt_data_t*, int, const void*) {
  if (const auto& tool = the_tool()) tool->parallel_end(parallel);
}

void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t* parallel, ompt_data_t* task, unsigned int,
                      unsigned int index, int flags) {
  if (const auto& tool = the_tool()) tool->implicit_task(endpoint, parallel, task, index, flags);
}

void on_sync_region_wait(ompt_sync_region_t, ompt_scope_endpoint_t endpoint, ompt_data_t*, ompt_data_t*,
                         const void*) {
  if (const auto& tool = the_tool()) tool->sync_wait(endpoint);
}

int initialize(ompt_function_lookup_t lookup, int, ompt_data_t*) {
  Settings settings;
  try {
    settings = settings_from_environment();
  } catch (const std::exception& e) {
    // A misspelt setting must not go unnoticed: stop before the program starts its work. _Exit, because the
    // runtime is initialising and must not run its exit handlers from here.
    std::fprintf(stderr, "herald balance: %s\n", e.what());
    std::fflush(nullptr);
    std::_Exit(EXIT_FAILURE);
  }
  const OpenMpApi api = OpenMpApi::from_runtime_of(reinterpret_cast<const void*>(lookup));
  auto set_callback = reinterpret_cast<ompt_set_callback_t>(lookup("ompt_set_callback"));
  auto get_thread_data = reinterpret_cast<ompt_get_thread_data_t>(lookup("ompt_get_thread_data"));
  if (!api.complete() || set_callback == nullptr || get_thread_data == nullptr) {
    std::fprintf(stderr, "herald balance: this OpenMP runtime lacks what the balancer needs; balancing is off\n");
    return 0;
  }
  the_tool() = std::make_unique<Tool>(std::move(settings), api, get_thread_data);

  const auto always = [&](ompt_callbacks_t event, ompt_callback_t callback) {
    return set_callback(event, callback) == ompt_set_always;
  };
  const bool measured =
      always(ompt_callback_thread_begin, reinterpret_cast<ompt_callback_t>(&on_thread_begin)) &&
      always(ompt_callback_parallel_begin, reinterpret_cast<ompt_callback_t>(&on_parallel_begin)) &&
      always(ompt_callback_parallel_end, reinterpret_cast<ompt_callback_t>(&on_parallel_end)) &&
      always(ompt_callback_implicit_task, reinterpret_cast<ompt_callback_t>(&on_implicit_task)) &&
      always(ompt_callback_sync_region_wait, reinterpret_cast<ompt_callback_t>(&on_sync_region_wait));
  if (!measured) {
    std::fprintf(stderr, "herald balance: this OpenMP runtime cannot report thread work; balancing is off\n");
    for (auto event : {ompt_callback_thread_begin, ompt_callback_parallel_begin, ompt_callback_parallel_end,
                       ompt_callback_implicit_task, ompt_callback_sync_region_wait})
      set_callback(event, nullptr);
    the_tool().reset();
    return 0;
  }
  return 1;
}

void finalize(ompt_data_t*) { the_tool().reset(); }

// Said once, when asked for a log: a marker was called but no runtime started the tool.
bool explain_inactive() {
  bool log = false;
  try {
    log = settings_from_environment().log;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "herald balance: %s\n", e.what());
  }
  if (log)
    std::fprintf(stderr,
                 "herald balance: herald_balanced() called but the OpenMP runtime did not start herald's OMPT "
                 "tool (OMP_TOOL=disabled, or a runtime without OMPT such as libgomp: run on LLVM's libomp, see "
                 "docs/balance.md); nothing is balanced\n");
  return true;
}

}  // namespace

Status status() {
  const auto& tool = the_tool();
  return tool ? tool->status() : Status{};
}

}  // namespace herald::balance

extern "C" {

HERALD_BALANCE_API ompt_start_tool_result_t* ompt_start_tool(unsigned int, const char*) {
  static ompt_start_tool_result_t result{&herald::balance::initialize, &herald::balance::finalize, {}};
  return &result;
}

HERALD_BALANCE_API void herald_balance_phase_end(void) {
  if (const auto& tool = herald::balance::the_tool()) {
    tool->phase_end(false);
    return;
  }
  [[maybe_unused]] static const bool explained = herald::balance::explain_inactive();
}

}  // extern "C"
