! The Fortran program of tests/mpi/other_mpi.sh, built with the other MPI's mpif90 than herald's: the same
! lines as other_mpi_program.c. An MPICH Fortran program reaches MPICH's C library only through its Fortran
! one, so a preloaded libherald_pmpi.so built with Open MPI puts its own MPI first in the process.
program other_mpi_program
  use mpi
  implicit none
  integer :: ierr, rank, value, length
  character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: text
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  value = 0
  if (rank == 0) value = 42
  call MPI_Bcast(value, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call MPI_Get_library_version(text, length, ierr)
  if (index(text(1:length), new_line('a')) > 0) length = index(text(1:length), new_line('a')) - 1
  if (rank == 0) print '(a, a)', 'other_mpi: runs ', text(1:length)
  if (value == 42) print '(a, i0, a)', 'other_mpi: rank ', rank, ' passed'
  call MPI_Finalize(ierr)
end program other_mpi_program
