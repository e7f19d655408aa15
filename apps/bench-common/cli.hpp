// CLI11 for the benchmark programs, also when they are built with SimGrid's smpicxx. smpicxx force-includes
// smpi/smpi_helpers.h, which defines exit(x) as a one-argument macro (so that a rank's exit() ends only
// that simulated process); CLI11 declares and callers use App::exit with up to three arguments, which the
// macro would swallow. The macro is set aside while CLI11 is read and restored after, so a plain exit()
// elsewhere still reaches SMPI; call the member as (app.exit)(...) so the macro cannot expand there.
#pragma once

#pragma push_macro("exit")
#undef exit
#include <CLI/CLI.hpp>
#pragma pop_macro("exit")
