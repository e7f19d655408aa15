/* herald's balancer: one call, herald_balanced(), marks the end of a computation phase.
 *
 * With libherald_balance loaded and the program running on LLVM's OpenMP runtime (libomp), the processes of
 * a node exchange how long their threads worked in the phase and move OpenMP threads from the lightly
 * loaded ones to the loaded ones. Call herald_balanced() between parallel regions, on the thread that calls
 * MPI, equally often on every process of a node.
 *
 * Without the library herald_balanced() does nothing: its target is a weak reference, so the program links
 * and runs unchanged, and the same binary balances when the library is preloaded (LD_PRELOAD). Programs
 * that link the library (CMake: herald::balance, which defines HERALD_BALANCE_LINKED) call it directly.
 * See docs/balance.md. */
#ifndef HERALD_BALANCE_H
#define HERALD_BALANCE_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(HERALD_BALANCE_LINKED) || !(defined(__GNUC__) || defined(__clang__))
void herald_balance_phase_end(void);
static inline void herald_balanced(void) { herald_balance_phase_end(); }
#else
void herald_balance_phase_end(void) __attribute__((weak));
static inline void herald_balanced(void) {
  if (herald_balance_phase_end) herald_balance_phase_end();
}
#endif

#ifdef __cplusplus
}
#endif

#endif /* HERALD_BALANCE_H */
