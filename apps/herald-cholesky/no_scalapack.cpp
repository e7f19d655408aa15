// Built when ScaLAPACK is missing: --solver scalapack is refused with what to install.
#include "solve.hpp"

#include <stdexcept>

namespace herald::cholesky {
bool have_scalapack() noexcept { return false; }
Result factor_with_scalapack(const Options&, MPI_Comm) { throw std::logic_error("built without ScaLAPACK"); }
}  // namespace herald::cholesky
