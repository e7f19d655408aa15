#include "matrix.hpp"

#include <limits>

#ifdef HERALD_CHOLESKY_BLAS
#include <cblas.h>
#include <lapacke.h>
#endif

namespace herald::cholesky {
namespace {

std::uint64_t mix(std::uint64_t x) noexcept {  // splitmix64's finaliser
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

double Generator::operator()(std::int64_t i, std::int64_t j) const noexcept {
  const auto lo = static_cast<std::uint64_t>(std::min(i, j)), hi = static_cast<std::uint64_t>(std::max(i, j));
  const std::uint64_t h = mix(mix(mix(seed) ^ lo) ^ (hi * 0x632be59bd9b4e019ULL));
  const double uniform = static_cast<double>(h >> 11) * 0x1.0p-53 - 0.5;
  return i == j ? uniform + diagonal : uniform;
}

#ifdef HERALD_CHOLESKY_BLAS
namespace {
void syrk_lower(int n, const float* l, float* c) {
  cblas_ssyrk(CblasColMajor, CblasLower, CblasNoTrans, n, n, -1.0f, l, n, 1.0f, c, n);
}
void syrk_lower(int n, const double* l, double* c) {
  cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans, n, n, -1.0, l, n, 1.0, c, n);
}
double norm1_lower(int n, const float* a) { return LAPACKE_slansy(LAPACK_COL_MAJOR, '1', 'L', n, a, n); }
double norm1_lower(int n, const double* a) { return LAPACKE_dlansy(LAPACK_COL_MAJOR, '1', 'L', n, a, n); }
}  // namespace

template <class T>
double scaled_residual(const Layout& layout, const Generator& gen, std::span<const std::vector<T>> factor) {
  const std::int64_t n = layout.n;
  std::vector<T> a(static_cast<std::size_t>(n * n)), l(static_cast<std::size_t>(n * n), T(0));
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = j; i < n; ++i) a[j * n + i] = static_cast<T>(gen(i, j));
  for (std::int64_t m = 0; m < layout.tiles(); ++m)
    for (std::int64_t k = 0; k <= m; ++k) {
      const auto& t = factor[static_cast<std::size_t>(Layout::index(m, k))];
      const std::int64_t rows = layout.extent(m), cols = layout.extent(k);
      for (std::int64_t c = 0; c < cols; ++c)
        for (std::int64_t r = 0; r < rows; ++r) {
          const std::int64_t i = m * layout.tile + r, j = k * layout.tile + c;
          if (i >= j) l[j * n + i] = t[c * rows + r];  // the diagonal tiles' upper halves are not the factor's
        }
    }
  const double anorm = norm1_lower(static_cast<int>(n), a.data());
  syrk_lower(static_cast<int>(n), l.data(), a.data());  // a := A - L L^T, lower triangle
  const double rnorm = norm1_lower(static_cast<int>(n), a.data());
  // eps as LAPACK's xLAMCH('E'): the unit roundoff, half the spacing numeric_limits calls epsilon.
  return rnorm / (anorm * static_cast<double>(n) * (std::numeric_limits<T>::epsilon() / 2));
}
#else
template <class T>
double scaled_residual(const Layout&, const Generator&, std::span<const std::vector<T>>) {
  return std::numeric_limits<double>::quiet_NaN();
}
#endif

template double scaled_residual<float>(const Layout&, const Generator&, std::span<const std::vector<float>>);
template double scaled_residual<double>(const Layout&, const Generator&, std::span<const std::vector<double>>);

}  // namespace herald::cholesky
