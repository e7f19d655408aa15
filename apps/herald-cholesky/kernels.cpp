#include "kernels.hpp"

#ifdef HERALD_CHOLESKY_BLAS
#include <cblas.h>
#include <lapacke.h>
#endif

#include <stdexcept>

namespace herald::cholesky {

std::string_view name(Kernel k) noexcept {
  switch (k) {
    case Kernel::potrf: return "potrf";
    case Kernel::trsm: return "trsm";
    case Kernel::syrk: return "syrk";
    case Kernel::gemm: return "gemm";
  }
  return "?";
}

double flops(Kernel kernel, std::int64_t m, std::int64_t n, std::int64_t k) noexcept {
  const double dm = static_cast<double>(m), dn = static_cast<double>(n), dk = static_cast<double>(k);
  switch (kernel) {
    case Kernel::potrf: return dm * dm * dm / 3.0;
    case Kernel::trsm: return dm * dk * dk;
    case Kernel::syrk: return dm * dm * dk;
    case Kernel::gemm: return 2.0 * dm * dn * dk;
  }
  return 0;
}

#ifdef HERALD_CHOLESKY_BLAS
namespace {
int lapack_potrf(int r, float* a) { return LAPACKE_spotrf_work(LAPACK_COL_MAJOR, 'L', r, a, r); }
int lapack_potrf(int r, double* a) { return LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', r, a, r); }
void blas_trsm(int m, int k, const float* l, float* a) {
  cblas_strsm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, m, k, 1.0f, l, k, a, m);
}
void blas_trsm(int m, int k, const double* l, double* a) {
  cblas_dtrsm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, m, k, 1.0, l, k, a, m);
}
void blas_syrk(int m, int k, const float* a, float* c) {
  cblas_ssyrk(CblasColMajor, CblasLower, CblasNoTrans, m, k, -1.0f, a, m, 1.0f, c, m);
}
void blas_syrk(int m, int k, const double* a, double* c) {
  cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans, m, k, -1.0, a, m, 1.0, c, m);
}
void blas_gemm(int m, int n, int k, const float* a, const float* b, float* c) {
  cblas_sgemm(CblasColMajor, CblasNoTrans, CblasTrans, m, n, k, -1.0f, a, m, b, n, 1.0f, c, m);
}
void blas_gemm(int m, int n, int k, const double* a, const double* b, double* c) {
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, m, n, k, -1.0, a, m, b, n, 1.0, c, m);
}
}  // namespace

template <class T>
int potrf(std::int64_t r, std::span<T> a) {
  return lapack_potrf(static_cast<int>(r), a.data());
}
template <class T>
void trsm(std::int64_t m, std::int64_t k, std::span<const T> l, std::span<T> a) {
  blas_trsm(static_cast<int>(m), static_cast<int>(k), l.data(), a.data());
}
template <class T>
void syrk(std::int64_t m, std::int64_t k, std::span<const T> a, std::span<T> c) {
  blas_syrk(static_cast<int>(m), static_cast<int>(k), a.data(), c.data());
}
template <class T>
void gemm(std::int64_t m, std::int64_t n, std::int64_t k, std::span<const T> a, std::span<const T> b,
          std::span<T> c) {
  blas_gemm(static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), a.data(), b.data(), c.data());
}
void single_threaded_blas() noexcept { openblas_set_num_threads(1); }
#else
// Simulated builds inject the kernels' measured times instead of running them.
[[noreturn]] static void no_blas() { throw std::logic_error("herald-cholesky was built without BLAS"); }
template <class T>
int potrf(std::int64_t, std::span<T>) { no_blas(); }
template <class T>
void trsm(std::int64_t, std::int64_t, std::span<const T>, std::span<T>) { no_blas(); }
template <class T>
void syrk(std::int64_t, std::int64_t, std::span<const T>, std::span<T>) { no_blas(); }
template <class T>
void gemm(std::int64_t, std::int64_t, std::int64_t, std::span<const T>, std::span<const T>, std::span<T>) { no_blas(); }
void single_threaded_blas() noexcept {}
#endif

#define HERALD_CHOLESKY_KERNELS(T)                                                                        \
  template int potrf<T>(std::int64_t, std::span<T>);                                                    \
  template void trsm<T>(std::int64_t, std::int64_t, std::span<const T>, std::span<T>);                  \
  template void syrk<T>(std::int64_t, std::int64_t, std::span<const T>, std::span<T>);                  \
  template void gemm<T>(std::int64_t, std::int64_t, std::int64_t, std::span<const T>, std::span<const T>, \
                        std::span<T>);
HERALD_CHOLESKY_KERNELS(float)
HERALD_CHOLESKY_KERNELS(double)

}  // namespace herald::cholesky
