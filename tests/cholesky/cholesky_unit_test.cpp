// herald-cholesky's parts without MPI: the generated matrix, the kernels' conventions against a dense
// LAPACK factorisation, the residual check (that it passes a right factor and fails a wrong one), the
// kernel-times file and the command line.
#include "kernel_times.hpp"
#include "kernels.hpp"
#include "matrix.hpp"
#include "options.hpp"

#include <herald/error.hpp>

#include <gtest/gtest.h>
#include <lapacke.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace herald::cholesky {
namespace {

Parsed parse(std::vector<std::string> args, int processes = 3) {
  args.insert(args.begin(), "herald-cholesky");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return parse_options(static_cast<int>(argv.size()), argv.data(), processes);
}

// The tiled algorithm run sequentially with the kernels, as the task graph orders it.
template <class T>
int factor_sequential(const Layout& layout, std::vector<std::vector<T>>& t) {
  auto at = [&](std::int64_t m, std::int64_t k) -> std::vector<T>& { return t[Layout::index(m, k)]; };
  for (std::int64_t k = 0; k < layout.tiles(); ++k) {
    const auto bk = layout.extent(k);
    if (int info = potrf<T>(bk, at(k, k)); info != 0) return info;
    for (std::int64_t m = k + 1; m < layout.tiles(); ++m) trsm<T>(layout.extent(m), bk, at(k, k), at(m, k));
    for (std::int64_t m = k + 1; m < layout.tiles(); ++m) {
      syrk<T>(layout.extent(m), bk, at(m, k), at(m, m));
      for (std::int64_t n = k + 1; n < m; ++n) gemm<T>(layout.extent(m), layout.extent(n), bk, at(m, k), at(n, k), at(m, n));
    }
  }
  return 0;
}

template <class T>
std::vector<std::vector<T>> generated(const Layout& layout, const Generator& gen) {
  std::vector<std::vector<T>> t(static_cast<std::size_t>(layout.lower_tiles()));
  for (std::int64_t m = 0; m < layout.tiles(); ++m)
    for (std::int64_t k = 0; k <= m; ++k) {
      auto& tile = t[Layout::index(m, k)];
      tile.resize(static_cast<std::size_t>(layout.extent(m) * layout.extent(k)));
      generate_tile<T>(layout, gen, m, k, tile);
    }
  return t;
}

TEST(CholeskyMatrix, SymmetricAndDominant) {
  const Generator gen{.seed = 7, .diagonal = 50};
  for (int i = 0; i < 50; ++i) {
    double off = 0;
    for (int j = 0; j < 50; ++j) {
      EXPECT_EQ(gen(i, j), gen(j, i));
      if (i != j) {
        EXPECT_GE(gen(i, j), -0.5);
        EXPECT_LT(gen(i, j), 0.5);
        off += std::abs(gen(i, j));
      }
    }
    EXPECT_GT(gen(i, i), off);
  }
  EXPECT_NE(Generator({.seed = 1, .diagonal = 0})(3, 4), Generator({.seed = 2, .diagonal = 0})(3, 4));
}

TEST(CholeskyMatrix, LayoutCoversTheMatrix) {
  for (std::int64_t n = 1; n <= 40; ++n)
    for (std::int64_t b = 1; b <= 45; ++b) {
      const Layout l{n, b};
      std::int64_t covered = 0;
      for (std::int64_t i = 0; i < l.tiles(); ++i) {
        EXPECT_GT(l.extent(i), 0);
        covered += l.extent(i);
      }
      EXPECT_EQ(covered, n) << n << " " << b;
      EXPECT_EQ(Layout::index(l.tiles() - 1, l.tiles() - 1), l.lower_tiles() - 1);
    }
}

// The tiled kernels give LAPACK's dense factor, tile sizes that do and do not divide N, both precisions.
template <class T>
void matches_dense(std::int64_t n, std::int64_t b) {
  const Layout layout{n, b};
  const Generator gen{.seed = 3, .diagonal = static_cast<double>(n)};
  auto tiles = generated<T>(layout, gen);
  ASSERT_EQ(factor_sequential<T>(layout, tiles), 0);
  std::vector<T> dense(static_cast<std::size_t>(n * n));
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < n; ++i) dense[j * n + i] = static_cast<T>(gen(i, j));
  if constexpr (std::is_same_v<T, double>)
    ASSERT_EQ(LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', static_cast<int>(n), dense.data(), static_cast<int>(n)), 0);
  else
    ASSERT_EQ(LAPACKE_spotrf(LAPACK_COL_MAJOR, 'L', static_cast<int>(n), dense.data(), static_cast<int>(n)), 0);
  const double tolerance = std::is_same_v<T, double> ? 1e-10 : 1e-3;
  for (std::int64_t m = 0; m < layout.tiles(); ++m)
    for (std::int64_t k = 0; k <= m; ++k)
      for (std::int64_t c = 0; c < layout.extent(k); ++c)
        for (std::int64_t r = 0; r < layout.extent(m); ++r) {
          const std::int64_t i = m * b + r, j = k * b + c;
          if (i < j) continue;
          ASSERT_NEAR(tiles[Layout::index(m, k)][c * layout.extent(m) + r], dense[j * n + i], tolerance)
              << "n " << n << " tile " << b << " element (" << i << ", " << j << ")";
        }
  EXPECT_LT(scaled_residual<T>(layout, gen, tiles), residual_threshold);
}

TEST(CholeskyKernels, TiledEqualsDense) {
  for (auto [n, b] : {std::pair{64, 16}, {67, 16}, {50, 7}, {33, 40}, {1, 1}, {96, 32}}) {
    matches_dense<double>(n, b);
    matches_dense<float>(n, b);
  }
}

TEST(CholeskyResidual, FailsAWrongFactor) {
  const Layout layout{90, 32};
  const Generator gen{.seed = 5, .diagonal = 90};
  auto tiles = generated<double>(layout, gen);
  ASSERT_EQ(factor_sequential<double>(layout, tiles), 0);
  EXPECT_LT(scaled_residual<double>(layout, gen, tiles), 1.0);
  tiles[Layout::index(2, 1)][5] += 1e-6;  // one element off by a millionth
  EXPECT_GT(scaled_residual<double>(layout, gen, tiles), residual_threshold);
  auto unfactored = generated<double>(layout, gen);  // the matrix itself is no factor
  EXPECT_GT(scaled_residual<double>(layout, gen, unfactored), residual_threshold);
}

TEST(CholeskyKernels, NotPositiveDefiniteGivesInfo) {
  const Layout layout{40, 16};
  auto tiles = generated<double>(layout, {.seed = 1, .diagonal = -40});
  EXPECT_GT(factor_sequential<double>(layout, tiles), 0);
}

TEST(CholeskyKernels, FlopsOfTheTiledAlgorithm) {
  // The kernels' flops over the whole graph add up to N^3/3 plus lower-order terms.
  for (std::int64_t tiles = 1; tiles <= 12; ++tiles) {
    const std::int64_t b = 10, n = tiles * b;
    double total = 0;
    for (std::int64_t k = 0; k < tiles; ++k) {
      total += flops(Kernel::potrf, b, b, b);
      for (std::int64_t m = k + 1; m < tiles; ++m) {
        total += flops(Kernel::trsm, b, b, b) + flops(Kernel::syrk, b, b, b);
        for (std::int64_t j = k + 1; j < m; ++j) total += flops(Kernel::gemm, b, b, b);
      }
    }
    const double cube = static_cast<double>(n) * n * n / 3.0;
    EXPECT_NEAR(total / cube, 1.0, 1.5 / static_cast<double>(tiles) + 1e-12) << tiles;
  }
}

TEST(CholeskyKernelTimes, RoundTripAndRefusals) {
  const auto dir = std::filesystem::temp_directory_path();
  const std::string path = (dir / "herald_cholesky_times.json").string();
  KernelTimes t{.tile = 64, .precision = Precision::double_, .seconds = {1e-4, 2e-4, 3e-4, 4e-4}, .machine = "m"};
  write_kernel_times(t, path);
  const KernelTimes back = read_kernel_times(path, 64, Precision::double_);
  EXPECT_EQ(back.seconds, t.seconds);
  EXPECT_DOUBLE_EQ(back.time(Kernel::gemm, 32, 32, 32), 4e-4 / 8);  // an eighth of the flops
  auto refused = [&](std::int64_t tile, Precision p, const std::string& expected) {
    try {
      (void)read_kernel_times(path, tile, p);
      ADD_FAILURE() << "accepted";
    } catch (const herald::Error& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
  };
  refused(128, Precision::double_, "measured at tile 64, this run uses 128");
  refused(64, Precision::single, "measured in double precision");
  std::ofstream(path) << "{\"schema\": \"herald-cholesky-kernel-times\", \"version\": 1, \"tile\": 64";
  refused(64, Precision::double_, "malformed");
  std::ofstream(path) << "{\"schema\": \"other\", \"version\": 1}";
  refused(64, Precision::double_, "not a version 1 kernel-times file");
  std::filesystem::remove(path);
  refused(64, Precision::double_, "cannot open");
}

TEST(CholeskyOptions, Defaults) {
  const Parsed p = parse({});
  ASSERT_EQ(p.exit_code, -1) << p.message;
  EXPECT_EQ(p.options.n, 2048);
  EXPECT_EQ(p.options.solver, Solver::herald);
  EXPECT_TRUE(p.options.check);
}

TEST(CholeskyOptions, BadInputNamed) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"-n", "0"}, "--n must be a positive matrix order, not 0"},
      {{"-n", "-5"}, "--n must be a positive matrix order, not -5"},
      {{"--tile", "0"}, "--tile must be a positive tile size, not 0"},
      {{"--tile", "-3"}, "--tile must be a positive tile size, not -3"},
      {{"-n", "x"}, "-n"},
      {{"--mapping", "cyclic", "--grid", "2x2"}, "--grid 2x2 has 4 processes, but 2 compute here (3 ranks, one of them herald's head)"},
      {{"--mapping", "cyclic", "--grid", "2by1"}, "--grid takes PxQ"},
      {{"--mapping", "cyclic", "--grid", "0x2"}, "--grid 0x2 has an empty side"},
      {{"--grid", "1x2"}, "with heft the scheduler places every task"},
      {{"--solver", "scalapack", "--grid", "1x2"}, "--grid 1x2 has 2 processes, but 3 compute here"},
      {{"--strategy", "tree"}, "--strategy 'tree' is not one of nobcast, p2p"},
      {{"--solver", "scalapack", "--strategy", "p2p"}, "ScaLAPACK has none"},
      {{"--solver", "lapack"}, "--solver"},
      {{"-n", "100000", "--tile", "1"}, "at most 4096"},
  };
  for (const auto& [args, expected] : cases) {
    const Parsed p = parse(args);
    EXPECT_EQ(p.exit_code, 2) << expected;
    EXPECT_NE(p.message.find(expected), std::string::npos) << p.message;
  }
  EXPECT_EQ(parse({"--mapping", "cyclic", "--grid", "1x2"}).exit_code, -1);
  EXPECT_EQ(parse({"--solver", "scalapack", "--grid", "3x1"}).exit_code, -1);
  EXPECT_EQ(parse({"--mapping", "cyclic", "--grid", "1x1"}, 1).exit_code, -1);  // alone, the head computes
}

TEST(CholeskyOptions, SquarestGrid) {
  for (int count = 1; count <= 2000; ++count) {
    const Grid g = squarest_grid(count);
    ASSERT_EQ(g.size(), count);
    ASSERT_LE(g.rows, g.cols);
    for (int r = g.rows + 1; r * r <= count; ++r) ASSERT_NE(count % r, 0) << count;  // no squarer one
  }
}

}  // namespace
}  // namespace herald::cholesky
