/* Compiled as C, without linking libherald_balance: herald_balanced() goes through the weak reference. */
#include <herald/balance.h>

void weak_marker_phase_end(void) { herald_balanced(); }
