// The four tile kernels of the tiled Cholesky factorisation (lower), as names, flop counts and calls.
//
//   for k: POTRF(A[k][k]); for m > k: TRSM(A[k][k], A[m][k]);
//          for m > k: SYRK(A[m][k], A[m][m]); for k < n < m: GEMM(A[m][k], A[n][k], A[m][n])
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

namespace herald::cholesky {

enum class Kernel { potrf, trsm, syrk, gemm };
inline constexpr std::array<Kernel, 4> all_kernels{Kernel::potrf, Kernel::trsm, Kernel::syrk, Kernel::gemm};
std::string_view name(Kernel k) noexcept;

// Flops of each kernel on tiles of these extents: potrf of an r x r tile; trsm of an m x k tile against a
// k x k triangle; syrk of an m x m tile by an m x k one; gemm of an m x n tile by m x k and n x k ones.
double flops(Kernel kernel, std::int64_t m, std::int64_t n, std::int64_t k) noexcept;

// The kernels on column-major tiles whose leading dimension is their row count. potrf returns LAPACK's
// info (0, or the order of the leading minor that is not positive definite). Need BLAS.
template <class T>
int potrf(std::int64_t r, std::span<T> a);
template <class T>
void trsm(std::int64_t m, std::int64_t k, std::span<const T> l, std::span<T> a);  // a := a l^-T
template <class T>
void syrk(std::int64_t m, std::int64_t k, std::span<const T> a, std::span<T> c);  // c := c - a a^T
template <class T>
void gemm(std::int64_t m, std::int64_t n, std::int64_t k, std::span<const T> a, std::span<const T> b,
          std::span<T> c);  // c := c - a b^T

// Keeps BLAS to one thread per calling thread: the runtime's threads are the parallelism.
void single_threaded_blas() noexcept;

}  // namespace herald::cholesky
