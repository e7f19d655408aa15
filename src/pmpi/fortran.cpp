// Fortran's MPI_BCAST and MPI_FINALIZE on herald, where the MPI library's Fortran bindings would bypass the
// C symbols the rest of this library replaces.
//
// Open MPI 4.1's Fortran bindings (mpif.h, `use mpi` and `use mpi_f08`) call PMPI_Bcast directly, so a
// Fortran program's broadcasts never reach herald's MPI_Bcast. These entry points take their place: they
// convert the Fortran handles and hand over to the C MPI_Bcast and MPI_Finalize of this library. MPICH's
// mpif.h and `use mpi` bindings already call the C MPI_Bcast; its `use mpi_f08` bindings pass array
// descriptors (TS 29113) and are not replaced, nor is MPI_IBCAST anywhere: its completion (MPI_WAIT and the
// rest) would go to the MPI library, which cannot progress herald's broadcasts.
#include "progress.hpp"

#include <mpi.h>

#ifdef OPEN_MPI
#include <dlfcn.h>

namespace {

// Fortran's MPI_BOTTOM is the address of a common block; C's is a null pointer.
void* c_buffer(void* buffer) {
  static void* const fortran_bottom = dlsym(RTLD_DEFAULT, "mpi_fortran_bottom_");
  return fortran_bottom != nullptr && buffer == fortran_bottom ? MPI_BOTTOM : buffer;
}

void fortran_bcast(void* buffer, const MPI_Fint* count, const MPI_Fint* datatype, const MPI_Fint* root,
                   const MPI_Fint* comm, MPI_Fint* ierror) {
  herald::pmpi::check_library();  // before MPI_Type_f2c and MPI_BOTTOM; one load once checked
  const int rc = MPI_Bcast(c_buffer(buffer), *count, MPI_Type_f2c(*datatype), *root, MPI_Comm_f2c(*comm));
  if (ierror != nullptr) *ierror = rc;  // optional in mpi_f08
}

void fortran_finalize(MPI_Fint* ierror) {
  herald::pmpi::check_library();
  const int rc = MPI_Finalize();
  if (ierror != nullptr) *ierror = rc;
}

}  // namespace

// The names gfortran and other compilers give the mpif.h / `use mpi` procedure, and `use mpi_f08`'s
// (whose handles are one-integer derived types, passed by reference like the integers).
extern "C" {
void mpi_bcast_(void* b, const MPI_Fint* n, const MPI_Fint* t, const MPI_Fint* r, const MPI_Fint* c, MPI_Fint* e) {
  fortran_bcast(b, n, t, r, c, e);
}
void mpi_bcast__(void* b, const MPI_Fint* n, const MPI_Fint* t, const MPI_Fint* r, const MPI_Fint* c, MPI_Fint* e) {
  fortran_bcast(b, n, t, r, c, e);
}
void mpi_bcast(void* b, const MPI_Fint* n, const MPI_Fint* t, const MPI_Fint* r, const MPI_Fint* c, MPI_Fint* e) {
  fortran_bcast(b, n, t, r, c, e);
}
void MPI_BCAST(void* b, const MPI_Fint* n, const MPI_Fint* t, const MPI_Fint* r, const MPI_Fint* c, MPI_Fint* e) {
  fortran_bcast(b, n, t, r, c, e);
}
void mpi_bcast_f08_(void* b, const MPI_Fint* n, const MPI_Fint* t, const MPI_Fint* r, const MPI_Fint* c,
                    MPI_Fint* e) {
  fortran_bcast(b, n, t, r, c, e);
}
void mpi_finalize_(MPI_Fint* e) { fortran_finalize(e); }
void mpi_finalize__(MPI_Fint* e) { fortran_finalize(e); }
void mpi_finalize(MPI_Fint* e) { fortran_finalize(e); }
void MPI_FINALIZE(MPI_Fint* e) { fortran_finalize(e); }
void mpi_finalize_f08_(MPI_Fint* e) { fortran_finalize(e); }
}
#endif
