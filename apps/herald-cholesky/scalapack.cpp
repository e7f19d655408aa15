// The peer: ScaLAPACK's pxPOTRF on the same generated matrix, 2D block-cyclic on a P x Q grid.
#include "matrix.hpp"
#include "solve.hpp"

#include <herald/error.hpp>

#include <algorithm>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

// BLACS and ScaLAPACK have no C headers in Debian; these are their Fortran entry points, with the hidden
// lengths of character arguments passed explicitly, as gfortran expects.
extern "C" {
int Csys2blacs_handle(MPI_Comm comm);
void Cblacs_gridinit(int* context, const char* order, int rows, int cols);
void Cblacs_gridinfo(int context, int* rows, int* cols, int* row, int* col);
void Cblacs_gridexit(int context);
void Cfree_blacs_system_handle(int handle);
void Cblacs_exit(int keep_mpi);
int numroc_(const int* n, const int* nb, const int* iproc, const int* isrcproc, const int* nprocs);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb, const int* irsrc,
               const int* icsrc, const int* context, const int* lld, int* info);
void pdpotrf_(const char* uplo, const int* n, double* a, const int* ia, const int* ja, const int* desc, int* info,
              std::size_t);
void pspotrf_(const char* uplo, const int* n, float* a, const int* ia, const int* ja, const int* desc, int* info,
              std::size_t);
double pdlansy_(const char* norm, const char* uplo, const int* n, const double* a, const int* ia, const int* ja,
                const int* desc, double* work, std::size_t, std::size_t);
float pslansy_(const char* norm, const char* uplo, const int* n, const float* a, const int* ia, const int* ja,
               const int* desc, float* work, std::size_t, std::size_t);
void pdlaset_(const char* uplo, const int* m, const int* n, const double* alpha, const double* beta, double* a,
              const int* ia, const int* ja, const int* desc, std::size_t);
void pslaset_(const char* uplo, const int* m, const int* n, const float* alpha, const float* beta, float* a,
              const int* ia, const int* ja, const int* desc, std::size_t);
void pdsyrk_(const char* uplo, const char* trans, const int* n, const int* k, const double* alpha, const double* a,
             const int* ia, const int* ja, const int* desca, const double* beta, double* c, const int* ic,
             const int* jc, const int* descc, std::size_t, std::size_t);
void pssyrk_(const char* uplo, const char* trans, const int* n, const int* k, const float* alpha, const float* a,
             const int* ia, const int* ja, const int* desca, const float* beta, float* c, const int* ic,
             const int* jc, const int* descc, std::size_t, std::size_t);
}

namespace herald::cholesky {
namespace {

const int one = 1;

void potrf(const int* n, double* a, const int* desc, int* info) { pdpotrf_("L", n, a, &one, &one, desc, info, 1); }
void potrf(const int* n, float* a, const int* desc, int* info) { pspotrf_("L", n, a, &one, &one, desc, info, 1); }
double norm1(const int* n, const double* a, const int* desc, double* work) {
  return pdlansy_("1", "L", n, a, &one, &one, desc, work, 1, 1);
}
double norm1(const int* n, const float* a, const int* desc, float* work) {
  return pslansy_("1", "L", n, a, &one, &one, desc, work, 1, 1);
}
template <class T>
void zero_upper(const int* n, T* a, const int* desc) {
  const int order = *n - 1, col = 2;
  const T zero = 0;
  if constexpr (std::is_same_v<T, double>)
    pdlaset_("U", &order, &order, &zero, &zero, a, &one, &col, desc, 1);
  else
    pslaset_("U", &order, &order, &zero, &zero, a, &one, &col, desc, 1);
}
template <class T>
void subtract_product(const int* n, const T* l, T* c, const int* desc) {  // c := c - l l^T, lower
  const T minus = -1, plus = 1;
  if constexpr (std::is_same_v<T, double>)
    pdsyrk_("L", "N", n, n, &minus, l, &one, &one, desc, &plus, c, &one, &one, desc, 1, 1);
  else
    pssyrk_("L", "N", n, n, &minus, l, &one, &one, desc, &plus, c, &one, &one, desc, 1, 1);
}

// This process's part of the matrix, column-major with `rows` local rows.
template <class T>
void generate_local(const Generator& gen, int nb, const Grid& grid, int row, int col, int rows, int cols,
                    std::vector<T>& out) {
  out.assign(static_cast<std::size_t>(rows) * static_cast<std::size_t>(std::max(cols, 1)), T(0));
  for (int lj = 0; lj < cols; ++lj) {
    const std::int64_t j = (static_cast<std::int64_t>(lj / nb) * grid.cols + col) * nb + lj % nb;
    for (int li = 0; li < rows; ++li) {
      const std::int64_t i = (static_cast<std::int64_t>(li / nb) * grid.rows + row) * nb + li % nb;
      out[static_cast<std::size_t>(lj) * static_cast<std::size_t>(rows) + static_cast<std::size_t>(li)] =
          static_cast<T>(gen(i, j));
    }
  }
}

template <class T>
Result run(const Options& o, MPI_Comm comm) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  const Grid grid = o.grid.value_or(squarest_grid(size));
  // BLACS's grid for this call, released on every path out.
  struct Blacs {
    int handle, context;
    ~Blacs() {
      Cblacs_gridexit(context);
      Cfree_blacs_system_handle(handle);
      Cblacs_exit(1);  // BLACS frees what it holds; MPI stays up (1: do not finalise it)
    }
  } blacs{Csys2blacs_handle(comm), 0};
  blacs.context = blacs.handle;
  Cblacs_gridinit(&blacs.context, "Row", grid.rows, grid.cols);
  const int context = blacs.context;
  int rows_, cols_, row = 0, col = 0;
  Cblacs_gridinfo(context, &rows_, &cols_, &row, &col);
  const int n = static_cast<int>(o.n), nb = static_cast<int>(o.tile), zero = 0;
  const int local_rows = numroc_(&n, &nb, &row, &zero, &grid.rows);
  const int local_cols = numroc_(&n, &nb, &col, &zero, &grid.cols);
  const int lld = std::max(1, local_rows);
  int desc[9], info = 0;
  descinit_(desc, &n, &n, &nb, &nb, &zero, &zero, &context, &lld, &info);
  if (info != 0) throw Error(Errc::invalid_argument, "ScaLAPACK's descinit refused the matrix: info " + std::to_string(info));

  const Generator gen{.seed = o.seed, .diagonal = o.diagonal.value_or(static_cast<double>(o.n))};
  std::vector<T> a;
  generate_local(gen, nb, grid, row, col, local_rows, local_cols, a);

  MPI_Barrier(comm);
  const double start = MPI_Wtime();
  potrf(&n, a.data(), desc, &info);
  MPI_Barrier(comm);
  Result result;
  result.seconds = MPI_Wtime() - start;
  result.strategy = "-";
  result.grid = std::to_string(grid.rows) + "x" + std::to_string(grid.cols);
  result.tiles = static_cast<int>((o.n + o.tile - 1) / o.tile);
  if (info > 0) {
    throw Error(Errc::task_failed, "the matrix is not positive definite: ScaLAPACK's potrf returned info " +
                                       std::to_string(info) + " (its leading minor of order " + std::to_string(info) + ")");
  }
  if (o.check) {
    std::vector<T> original;
    generate_local(gen, nb, grid, row, col, local_rows, local_cols, original);
    std::vector<T> work(static_cast<std::size_t>(2 * (local_rows + local_cols) + 2 * n + nb));
    const double anorm = norm1(&n, original.data(), desc, work.data());
    zero_upper(&n, a.data(), desc);
    subtract_product(&n, a.data(), original.data(), desc);
    const double rnorm = norm1(&n, original.data(), desc, work.data());
    result.residual = rnorm / (anorm * o.n * (std::numeric_limits<T>::epsilon() / 2));
  }
  return result;
}

}  // namespace

bool have_scalapack() noexcept { return true; }

Result factor_with_scalapack(const Options& options, MPI_Comm comm) {
  return options.precision == Precision::single ? run<float>(options, comm) : run<double>(options, comm);
}

}  // namespace herald::cholesky
