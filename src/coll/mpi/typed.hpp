// MPI_Bcast's semantics (buffer, count, datatype) on top of herald's byte broadcasts, shared by the C API and
// the PMPI library.
#pragma once

#include <herald/bcast.hpp>

#include <mpi.h>

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace herald::mpi {

// The bytes a typed broadcast moves. Contiguous datatypes are used in place (from the true lower bound);
// others are packed at the root into a staging buffer and unpacked at the other ranks by finish(), in pieces
// of at most 2^30 bytes so that MPI's int counts never overflow. A derived datatype is duplicated for the
// buffer's life: the caller may free its handle while a nonblocking broadcast is pending, as MPI allows.
class TypedBuffer {
 public:
  // Validates count, datatype (committed) and buffer (throws herald::Error); packs when `root`.
  TypedBuffer(void* buffer, int count, MPI_Datatype type, bool root);
  ~TypedBuffer();
  TypedBuffer(TypedBuffer&& other) noexcept;
  TypedBuffer& operator=(TypedBuffer&&) = delete;
  TypedBuffer(const TypedBuffer&) = delete;
  TypedBuffer& operator=(const TypedBuffer&) = delete;

  std::span<std::byte> bytes() noexcept { return bytes_; }
  // A predefined datatype whose elements lie back to back at the buffer (MPI_INT, MPI_DOUBLE, not
  // MPI_DOUBLE_INT): any count of it is count x its size, contiguous. Such a type is never freed, so its
  // handle may be remembered.
  bool plain() const noexcept { return plain_; }
  // After the broadcast: unpacks at non-root ranks.
  void finish();

 private:
  // Packed layout: `whole` pieces of `per_piece` elements, `piece_bytes` each, then the rest.
  struct Layout {
    int per_piece = 0;
    std::size_t piece_bytes = 0;
    std::size_t total = 0;
  };
  Layout layout() const;
  // Calls f(elements, count, packed bytes, their length) for each piece.
  template <class F>
  void for_each_piece(F&& f);
  void pack();

  std::byte* buffer_;
  int count_;
  MPI_Datatype type_ = MPI_DATATYPE_NULL;  // herald's duplicate; null for contiguous data
  MPI_Aint extent_ = 0;
  bool unpack_ = false;
  bool plain_ = false;
  std::vector<std::byte> staging_;
  std::span<std::byte> bytes_;
};

// A nonblocking typed broadcast: the bytes and the request that moves them.
struct TypedRequest {
  TypedBuffer data;
  Request request;
  // Advances; true once complete (unpacked).
  bool test();
};

// MPI_Bcast and MPI_Ibcast on herald. Every rank takes its place in the communicator's call sequence before
// any check that could fail on some ranks only, so that one refused call does not shift later ones. Throw
// herald::Error on bad input.
void typed_bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
                 std::optional<std::string_view> algorithm);
TypedRequest typed_ibcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm);

}  // namespace herald::mpi
