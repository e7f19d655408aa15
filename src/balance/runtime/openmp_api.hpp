// The OpenMP routines the balancer calls, taken from the runtime that started the tool.
//
// libherald_balance does not link an OpenMP runtime: a gcc-built program may have libgomp loaded next to
// libomp, and the routines must come from the one running the program's regions.
#pragma once

namespace herald::balance {

struct OpenMpApi {
  void (*set_num_threads)(int) = nullptr;
  int (*get_max_threads)() = nullptr;

  bool complete() const { return set_num_threads != nullptr && get_max_threads != nullptr; }

  // From the shared object that holds `runtime_function` (an entry point the runtime handed the tool);
  // failing that, from the global scope.
  static OpenMpApi from_runtime_of(const void* runtime_function);
};

// Binds the calling thread to one CPU; false if the system refused.
bool bind_calling_thread(int cpu);

}  // namespace herald::balance
