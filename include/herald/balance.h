/* herald's balancer: one call, herald_balanced(), marks the end of a computation phase.
 *
 * With libherald_balance loaded and the program running on LLVM's OpenMP runtime (libomp), the processes of
 * a node exchange how long their threads worked in the phase and move OpenMP threads from the idle ones to
 * the loaded ones. Without the library, herald_balanced() does nothing: the entry point is a weak reference,
 * so the program links and runs unchanged.
 *
 * Link libherald_balance (CMake: herald::balance, which defines HERALD_BALANCE_LINKED), or leave the program
 * as it is and load the library at run time with LD_PRELOAD. See docs/balance.md. */
#ifndef HERALD_BALANCE_H
#define HERALD_BALANCE_H

#ifdef __cplusplus
extern "C" {
#endif

/* The library's entry point. Call it through herald_balanced(). */
#if defined(HERALD_BALANCE_LINKED) || !(defined(__GNUC__) || defined(__clang__))
void herald_balance_phase_end(void);
static inline void herald_balanced(void) { herald_balance_phase_end(); }
#else
void herald_balance_phase_end(void) __attribute__((weak));
/* Marks the end of a computation phase; call it between parallel regions, on the thread that runs MPI.
 * Every process of a node must call it equally often. A no-op when the library is absent. */
static inline void herald_balanced(void) {
  if (herald_balance_phase_end) herald_balance_phase_end();
}
#endif

#ifdef __cplusplus
}
#endif

#endif /* HERALD_BALANCE_H */
