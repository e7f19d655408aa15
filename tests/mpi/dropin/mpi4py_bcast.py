"""mpi4py, which knows nothing of herald: comm.Bcast (buffers), comm.bcast (pickled objects) and comm.Ibcast,
from every root at several sizes. Run with libherald_pmpi preloaded (HERALD_EXPECT_PMPI=1: herald must have
handled the broadcasts) and without it (the same checks against the MPI alone)."""
import array
import ctypes
import os
import sys

from mpi4py import MPI

comm = MPI.COMM_WORLD
me, size = comm.Get_rank(), comm.Get_size()
failures = []


def expect(condition, what):
    if not condition:
        failures.append(what)


for root in range(size):
    for n in (0, 1, 1000, 150000):
        data = array.array("d", (i * 0.25 + root for i in range(n)) if me == root else [-1.0] * n)
        comm.Bcast([data, MPI.DOUBLE], root=root)
        expect(all(x == i * 0.25 + root for i, x in enumerate(data)), f"Bcast of {n} doubles from {root}")

        raw = bytearray(bytes((i * 7 + root) % 251 for i in range(n)) if me == root else bytes(n))
        comm.Ibcast([raw, MPI.BYTE], root=root).Wait()
        expect(all(b == (i * 7 + root) % 251 for i, b in enumerate(raw)), f"Ibcast of {n} bytes from {root}")

    obj = {"root": root, "values": list(range(root, root + 50)), "text": "x" * 5000} if me == root else None
    got = comm.bcast(obj, root=root)
    expect(got == {"root": root, "values": list(range(root, root + 50)), "text": "x" * 5000}, f"bcast from {root}")

if os.environ.get("HERALD_EXPECT_PMPI") == "1":
    try:
        calls = ctypes.CDLL(None).herald_pmpi_calls
        calls.restype = ctypes.c_longlong
        expect(calls() >= 9 * size, f"herald handled {calls()} broadcasts, expected at least {9 * size}")
    except AttributeError:
        expect(False, "herald was not in the path")

for failure in failures:
    print(f"rank {me}: {failure}", file=sys.stderr)
total = comm.allreduce(len(failures))
if me == 0:
    print("mpi4py: passed" if total == 0 else f"mpi4py: FAILED ({total} failures)", flush=True)
