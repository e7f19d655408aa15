// The C API: MPI_Bcast's signature, derived datatypes, and errors as MPI error codes.
#include <herald/herald.h>

#include <gtest/gtest.h>
#include <mpi.h>

#include <vector>

namespace {

int rank_of() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int size_of() {
  int n = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

TEST(CApi, BroadcastsIntsLikeMpiBcast) {
  const int root = size_of() - 1;
  std::vector<int> values(1001, -1);
  if (rank_of() == root)
    for (int i = 0; i < 1001; ++i) values[i] = i * i;
  ASSERT_EQ(herald_bcast(values.data(), 1001, MPI_INT, root, MPI_COMM_WORLD), MPI_SUCCESS);
  for (int i = 0; i < 1001; ++i) ASSERT_EQ(values[i], i * i);
}

TEST(CApi, NamedAlgorithm) {
  std::vector<double> values(333, 0.0);
  if (rank_of() == 0)
    for (int i = 0; i < 333; ++i) values[i] = i + 0.5;
  ASSERT_EQ(herald_bcast_algorithm(values.data(), 333, MPI_DOUBLE, 0, MPI_COMM_WORLD, "binomial"), MPI_SUCCESS);
  for (int i = 0; i < 333; ++i) ASSERT_EQ(values[i], i + 0.5);
}

// A strided vector: every other int of a 2n array. The gaps must stay untouched.
TEST(CApi, DerivedDatatypeIsPackedAndUnpacked) {
  MPI_Datatype every_other;
  MPI_Type_vector(50, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  const int root = size_of() / 2;
  std::vector<int> values(200, -7);
  if (rank_of() == root)
    for (int i = 0; i < 200; ++i) values[i] = i;
  ASSERT_EQ(herald_bcast(values.data(), 2, every_other, root, MPI_COMM_WORLD), MPI_SUCCESS);
  if (rank_of() != root) {
    // Two vectors of extent 99 ints: elements 0, 2, ..., 98, then 99, 101, ..., 197.
    for (int i = 0; i < 200; ++i) {
      const bool covered = (i < 99 && i % 2 == 0) || (i >= 99 && i < 198 && (i - 99) % 2 == 0);
      EXPECT_EQ(values[i], covered ? i : -7) << (covered ? "element " : "gap ") << i;
    }
  }
  MPI_Type_free(&every_other);
}

// A derived type through node memory: 3 MiB of every other double, more than the ring holds, on a
// communicator of its own, by its first call and by a later one.
TEST(CApi, DerivedDatatypeThroughNodeMemory) {
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  constexpr int n = 3 << 17;  // doubles carried
  MPI_Datatype every_other;
  MPI_Type_vector(n, 1, 2, MPI_DOUBLE, &every_other);
  MPI_Type_commit(&every_other);
  const int root = size_of() - 1;
  std::vector<double> values(2 * n, -1.0);
  if (rank_of() == root)
    for (int i = 0; i < 2 * n; ++i) values[i] = i;
  for (int call = 0; call < 2; ++call) {
    ASSERT_EQ(herald_bcast_algorithm(values.data(), 1, every_other, root, comm, "node_shared"), MPI_SUCCESS);
    int wrong = 0;
    for (int i = 0; i < 2 * n; ++i) wrong += values[i] != (i % 2 == 0 || rank_of() == root ? i : -1.0);
    EXPECT_EQ(wrong, 0) << "call " << call;
  }
  MPI_Type_free(&every_other);
  MPI_Comm_free(&comm);
}

TEST(CApi, ErrorsAreMpiErrorCodes) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int x = 5;
  auto cls = [](int code) {
    int c = 0;
    MPI_Error_class(code, &c);
    return c;
  };
  EXPECT_EQ(cls(herald_bcast(&x, 1, MPI_INT, size_of(), MPI_COMM_WORLD)), MPI_ERR_ROOT);
  EXPECT_EQ(cls(herald_bcast(&x, -1, MPI_INT, 0, MPI_COMM_WORLD)), MPI_ERR_COUNT);
  EXPECT_EQ(cls(herald_bcast(nullptr, 3, MPI_INT, 0, MPI_COMM_WORLD)), MPI_ERR_BUFFER);
  EXPECT_EQ(cls(herald_bcast(&x, 1, MPI_INT, 0, MPI_COMM_NULL)), MPI_ERR_COMM);
  EXPECT_EQ(cls(herald_bcast_algorithm(&x, 1, MPI_INT, 0, MPI_COMM_WORLD, "nope")), MPI_ERR_ARG);
  EXPECT_EQ(x, 5);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

}  // namespace
