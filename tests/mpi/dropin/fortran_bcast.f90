! A Fortran program (mpif.h-style `use mpi`) that knows nothing of herald: MPI_BCAST of doubles from every
! root at four sizes, and one from MPI_BOTTOM with a datatype of absolute addresses. 4 * P + 1 broadcasts.
program fortran_bcast
  use mpi
  implicit none
  integer, parameter :: sizes(4) = [0, 1, 1000, 200000]
  integer :: ierr, me, np, i, s, n, root, failures, total, bottom_type
  integer(kind=MPI_ADDRESS_KIND) :: where(1)
  integer :: lengths(1)
  double precision, allocatable :: x(:)
  integer :: marks(17)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  failures = 0
  do s = 1, 4
    n = sizes(s)
    allocate(x(max(n, 1)))
    do root = 0, np - 1
      x = -1d0
      if (me == root) x(1:n) = [(dble(i) * 0.5d0 + root, i = 1, n)]
      call MPI_Bcast(x, n, MPI_DOUBLE_PRECISION, root, MPI_COMM_WORLD, ierr)
      if (ierr /= MPI_SUCCESS) failures = failures + 1
      do i = 1, n
        if (x(i) /= dble(i) * 0.5d0 + root) failures = failures + 1
      end do
    end do
    deallocate(x)
  end do
  ! MPI_BOTTOM: the buffer is described by its absolute address in the datatype.
  marks = -1
  if (me == np - 1) marks = [(i * 7, i = 1, 17)]
  call MPI_Get_address(marks, where(1), ierr)
  lengths(1) = 17
  call MPI_Type_create_hindexed(1, lengths, where, MPI_INTEGER, bottom_type, ierr)
  call MPI_Type_commit(bottom_type, ierr)
  call MPI_Bcast(MPI_BOTTOM, 1, bottom_type, np - 1, MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS) failures = failures + 1
  do i = 1, 17
    if (marks(i) /= i * 7) failures = failures + 1
  end do
  call MPI_Type_free(bottom_type, ierr)
  call MPI_Allreduce(failures, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (me == 0) then
    if (total == 0) then
      print '(a)', 'fortran: passed'
    else
      print '(a,i0,a)', 'fortran: FAILED (', total, ' wrong values)'
    end if
  end if
  call MPI_Finalize(ierr)
end program fortran_bcast
