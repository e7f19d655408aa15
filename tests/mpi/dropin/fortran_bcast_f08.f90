! The same through `use mpi_f08` (handles are derived types; ierror is optional): MPI_Bcast of integers from
! every root at three sizes. 3 * P broadcasts.
program fortran_bcast_f08
  use mpi_f08
  implicit none
  integer, parameter :: sizes(3) = [1, 999, 70000]
  integer :: me, np, i, s, n, root, failures, total
  integer, allocatable :: x(:)
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, me)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  failures = 0
  do s = 1, 3
    n = sizes(s)
    allocate(x(n))
    do root = 0, np - 1
      x = -1
      if (me == root) x = [(i * 3 + root, i = 1, n)]
      call MPI_Bcast(x, n, MPI_INTEGER, root, MPI_COMM_WORLD)
      do i = 1, n
        if (x(i) /= i * 3 + root) failures = failures + 1
      end do
    end do
    deallocate(x)
  end do
  call MPI_Allreduce(failures, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (me == 0) then
    if (total == 0) then
      print '(a)', 'fortran08: passed'
    else
      print '(a,i0,a)', 'fortran08: FAILED (', total, ' wrong values)'
    end if
  end if
  call MPI_Finalize()
end program fortran_bcast_f08
