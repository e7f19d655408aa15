#include "openmp_api.hpp"

#include <dlfcn.h>
#include <sched.h>

namespace herald::balance {
namespace {

template <class F>
F find(void* handle, const char* name) {
  return reinterpret_cast<F>(dlsym(handle, name));
}

}  // namespace

OpenMpApi OpenMpApi::from_runtime_of(const void* runtime_function) {
  OpenMpApi api;
  Dl_info info{};
  if (runtime_function != nullptr && dladdr(runtime_function, &info) != 0 && info.dli_fname != nullptr) {
    // Already loaded: RTLD_NOLOAD only takes a reference, released right after.
    if (void* runtime = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD)) {
      api.set_num_threads = find<void (*)(int)>(runtime, "omp_set_num_threads");
      api.get_max_threads = find<int (*)()>(runtime, "omp_get_max_threads");
      dlclose(runtime);
    }
  }
  if (!api.complete()) {
    api.set_num_threads = find<void (*)(int)>(RTLD_DEFAULT, "omp_set_num_threads");
    api.get_max_threads = find<int (*)()>(RTLD_DEFAULT, "omp_get_max_threads");
  }
  return api;
}

bool bind_calling_thread(int cpu) {
  if (cpu < 0 || cpu >= CPU_SETSIZE) return false;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return sched_setaffinity(0, sizeof set, &set) == 0;
}

}  // namespace herald::balance
