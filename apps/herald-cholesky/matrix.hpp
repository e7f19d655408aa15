// The matrix: its tiles, the reproducible SPD matrix every solver factorises, and the residual check.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

namespace herald::cholesky {

// An N x N matrix in T x T tiles of `tile` rows and columns; the last row and column of tiles hold what is
// left when `tile` does not divide N. Tiles are column-major with their own row count as leading dimension.
struct Layout {
  std::int64_t n = 0;
  std::int64_t tile = 1;
  std::int64_t tiles() const noexcept { return (n + tile - 1) / tile; }
  std::int64_t extent(std::int64_t i) const noexcept { return std::min(tile, n - i * tile); }  // of tile row i
  // Tiles of the lower triangle (m >= k) are numbered row by row.
  std::int64_t lower_tiles() const noexcept { return tiles() * (tiles() + 1) / 2; }
  static std::int64_t index(std::int64_t m, std::int64_t k) noexcept { return m * (m + 1) / 2 + k; }
};

// The generated matrix: symmetric, entries uniform in [-0.5, 0.5) from a hash of the seed and the pair
// (i, j) (so any process can generate any part of it alone), and `diagonal` added to the diagonal. The
// default, N, makes it strictly diagonally dominant and so positive definite; a negative one does not.
struct Generator {
  std::uint64_t seed = 1;
  double diagonal = 0;
  double operator()(std::int64_t i, std::int64_t j) const noexcept;
};

// Tile (m, k) of that matrix into `out` (extent(m) x extent(k), column-major).
template <class T>
void generate_tile(const Layout& layout, const Generator& a, std::int64_t m, std::int64_t k, std::span<T> out) {
  const std::int64_t rows = layout.extent(m), cols = layout.extent(k);
  for (std::int64_t c = 0; c < cols; ++c)
    for (std::int64_t r = 0; r < rows; ++r)
      out[c * rows + r] = static_cast<T>(a(m * layout.tile + r, k * layout.tile + c));
}

// LAPACK's testing threshold for the scaled residual (xPOT01 and the drivers' checks).
inline constexpr double residual_threshold = 60.0;

// ||A - L L^T||_1 / (||A||_1 N eps) for the factor's lower tiles (indexed as Layout::index) against the
// generated matrix, in T's precision. Needs BLAS: not available in simulated builds.
template <class T>
double scaled_residual(const Layout& layout, const Generator& a, std::span<const std::vector<T>> factor);

}  // namespace herald::cholesky
