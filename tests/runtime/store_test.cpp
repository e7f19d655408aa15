// A process's replicas (store.hpp), without MPI: what it holds, and the peak of the bytes it holds.
#include "store.hpp"

#include <gtest/gtest.h>

namespace herald::runtime::detail {
namespace {

TEST(Store, PeakBytesCountOwnedReplicasOnceAndNotTheProgramsBuffers) {
  Store store;
  std::byte program[64];
  store.put({0, 1}, Replica::borrowed(program));  // the program's own buffer: not the store's memory
  EXPECT_EQ(store.peak_bytes(), 0u);
  store.put({1, 1}, store.allocate(100));
  store.put({2, 1}, store.allocate(50));
  EXPECT_EQ(store.peak_bytes(), 150u);
  // A version replaced under the same key: the store never held both.
  store.put({2, 1}, store.allocate(50));
  EXPECT_EQ(store.peak_bytes(), 150u);
  ASSERT_TRUE(store.take({1, 1}).has_value());
  EXPECT_FALSE(store.take({1, 1}).has_value());
  store.put({3, 1}, store.allocate(80));
  EXPECT_EQ(store.peak_bytes(), 150u);  // 50 + 80
  store.put({4, 1}, store.allocate(30));
  EXPECT_EQ(store.peak_bytes(), 160u);
}

TEST(Store, APartitionsPiecesCountWithinTheReplicaTheyView) {
  Store store;
  const Replica whole = store.allocate(120);
  store.put({0, 1}, whole);
  for (std::uint32_t p = 0; p < 3; ++p)
    store.put({1 + p, 1}, Replica{whole.bytes.subspan(40 * p, 40), whole.owner, true});
  EXPECT_EQ(store.peak_bytes(), 120u);
  ASSERT_NE(store.find({2, 1}), nullptr);
  EXPECT_EQ(store.find({2, 1})->bytes.data(), whole.bytes.data() + 40);
  // Taking a piece gives back nothing counted; taking the whole gives back its bytes.
  store.take({2, 1});
  store.take({0, 1});
  store.put({9, 1}, store.allocate(120));
  EXPECT_EQ(store.peak_bytes(), 120u);
}

}  // namespace
}  // namespace herald::runtime::detail
