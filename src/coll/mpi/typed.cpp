#include "typed.hpp"

#include "call.hpp"
#include "context.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

namespace herald::mpi {
namespace {

// Packed pieces stay well inside an int count.
constexpr int piece_limit = 1 << 30;

// `base` + `offset` bytes, without pointer arithmetic on MPI_BOTTOM (a null pointer in some MPIs).
std::byte* at(std::byte* base, std::size_t offset) {
  return reinterpret_cast<std::byte*>(reinterpret_cast<std::uintptr_t>(base) + offset);
}

// MPI offers no query for "committed", but every MPI checks it, and the buffer against the datatype, on a
// send: one to MPI_PROC_NULL with the caller's arguments moves nothing and refuses what MPI_Bcast would.
// Returns whether the type is predefined.
bool check_arguments(void* buffer, int count, MPI_Datatype type) {
  int integers = 0, addresses = 0, types = 0, combiner = MPI_COMBINER_NAMED;
  HERALD_MPI(MPI_Type_get_envelope(type, &integers, &addresses, &types, &combiner));
  if (combiner == MPI_COMBINER_NAMED) return true;  // predefined types are always committed
  const int rc = PMPI_Send(buffer, count, type, MPI_PROC_NULL, 0, Context::get().self());
  if (rc == MPI_SUCCESS) return false;
  int cls = MPI_ERR_OTHER;
  MPI_Error_class(rc, &cls);
  if (cls == MPI_ERR_TYPE) throw Error(Errc::invalid_datatype, "the datatype is not committed (MPI_Type_commit)");
  if (cls == MPI_ERR_BUFFER)
    throw Error(Errc::invalid_buffer, "the buffer is not valid for this datatype (a null buffer is MPI_BOTTOM, "
                                      "which needs a datatype of absolute addresses)");
  check(rc, "checking the buffer and datatype");
  return false;
}

}  // namespace

TypedBuffer::TypedBuffer(void* buffer, int count, MPI_Datatype type, bool root)
    : buffer_(static_cast<std::byte*>(buffer)), count_(count) {
  if (count < 0) throw Error(Errc::invalid_count, "count " + std::to_string(count) + " is negative");
  if (type == MPI_DATATYPE_NULL) throw Error(Errc::invalid_datatype, "the datatype is MPI_DATATYPE_NULL");
  const bool predefined = check_arguments(buffer, count, type);
  MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
  MPI_Count size = 0;
  HERALD_MPI(MPI_Type_get_extent(type, &lb, &extent));
  HERALD_MPI(MPI_Type_get_true_extent(type, &true_lb, &true_extent));
  HERALD_MPI(MPI_Type_size_x(type, &size));
  // A null buffer is MPI_BOTTOM: valid only when the datatype holds absolute addresses.
  if (buffer == nullptr && count > 0 && size > 0 && true_lb == 0)
    throw Error(Errc::invalid_buffer, "the buffer is null but the count is " + std::to_string(count));
  extent_ = extent;
  plain_ = predefined && true_lb == 0 && size == true_extent && extent == true_extent;

  if (size == true_extent && (count <= 1 || extent == true_extent)) {
    const std::size_t n = static_cast<std::size_t>(size) * static_cast<std::size_t>(count);
    bytes_ = {n ? at(buffer_, static_cast<std::size_t>(true_lb)) : nullptr, n};
    return;
  }
  if (buffer == nullptr) {
    // MPI_BOTTOM: some MPIs' MPI_Pack refuse a null buffer, so the same bytes are addressed from the first
    // one, through a datatype shifted by as much.
    int one = 1;
    MPI_Aint shift = -true_lb;
    HERALD_MPI(PMPI_Type_create_struct(1, &one, &shift, &type, &type_));
    HERALD_MPI(PMPI_Type_commit(&type_));
    buffer_ = at(buffer_, static_cast<std::size_t>(true_lb));
  } else {
    HERALD_MPI(PMPI_Type_dup(type, &type_));
  }
  staging_.resize(layout().total);
  bytes_ = staging_;
  if (root)
    pack();
  else
    unpack_ = true;
}

TypedBuffer::TypedBuffer(TypedBuffer&& other) noexcept
    : buffer_(other.buffer_),
      count_(other.count_),
      type_(std::exchange(other.type_, MPI_DATATYPE_NULL)),
      extent_(other.extent_),
      unpack_(std::exchange(other.unpack_, false)),
      staging_(std::move(other.staging_)),
      bytes_(other.bytes_) {}

TypedBuffer::~TypedBuffer() {
  if (type_ != MPI_DATATYPE_NULL && !finalized()) PMPI_Type_free(&type_);
}

TypedBuffer::Layout TypedBuffer::layout() const {
  const MPI_Comm self = Context::get().self();
  int one = 0;
  HERALD_MPI(PMPI_Pack_size(1, type_, self, &one));
  if (one > piece_limit)
    throw Error(Errc::invalid_datatype, "one element of the datatype packs to " + std::to_string(one) +
                                            " bytes, more than herald packs at once (2^30)");
  Layout l;
  l.per_piece = std::max(1, std::min(count_, piece_limit / std::max(one, 1)));
  int piece = 0, rest = 0;
  HERALD_MPI(PMPI_Pack_size(l.per_piece, type_, self, &piece));
  HERALD_MPI(PMPI_Pack_size(count_ % l.per_piece, type_, self, &rest));
  l.piece_bytes = static_cast<std::size_t>(piece);
  l.total = static_cast<std::size_t>(count_ / l.per_piece) * l.piece_bytes + static_cast<std::size_t>(rest);
  return l;
}

template <class F>
void TypedBuffer::for_each_piece(F&& f) {
  const Layout l = layout();
  for (int first = 0, piece = 0; first < count_; first += l.per_piece, ++piece) {
    const std::size_t offset = static_cast<std::size_t>(piece) * l.piece_bytes;
    f(at(buffer_, static_cast<std::size_t>(first) * static_cast<std::size_t>(extent_)),
      std::min(l.per_piece, count_ - first), staging_.data() + offset,
      static_cast<int>(std::min(l.piece_bytes, staging_.size() - offset)));
  }
}

void TypedBuffer::pack() {
  const MPI_Comm self = Context::get().self();
  for_each_piece([&](std::byte* elements, int n, std::byte* packed, int length) {
    int position = 0;
    HERALD_MPI(PMPI_Pack(elements, n, type_, packed, length, &position, self));
  });
}

void TypedBuffer::finish() {
  if (!unpack_) return;
  unpack_ = false;
  const MPI_Comm self = Context::get().self();
  for_each_piece([&](std::byte* elements, int n, std::byte* packed, int length) {
    int position = 0;
    HERALD_MPI(PMPI_Unpack(packed, length, &position, elements, n, type_, self));
  });
}

bool TypedRequest::test() {
  if (!request.test()) return false;
  data.finish();
  return true;
}

namespace {

// The caller's buffer, or, when this rank refuses it (a null buffer, an uncommitted datatype: checks that
// can fail on some ranks only), a refusal that first plays this rank's part without data (refused()).
TypedBuffer typed_buffer(const Slot& slot, void* buffer, int count, MPI_Datatype type, int root,
                         const Options& options, bool blocking) {
  try {
    return TypedBuffer(buffer, count, type, slot.state->rank() == root);
  } catch (const Error& refusal) {
    int size = 0;
    if (count >= 0 && type != MPI_DATATYPE_NULL && PMPI_Type_size(type, &size) == MPI_SUCCESS)
      refused(slot, static_cast<std::size_t>(count) * static_cast<std::size_t>(size), root, options, refusal,
              blocking);
    throw;
  }
}

}  // namespace

void typed_bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
                 std::optional<std::string_view> algorithm) {
  Context& context = Context::get();
  const Options options{.algorithm = algorithm};
  // A repeat of the last pass-through (Context::repeat_passthrough), in a type remembered as plain.
  if (buffer != nullptr && count > 0) {
    if (const std::size_t size = context.plain_size(type)) {
      const std::size_t bytes = size * static_cast<std::size_t>(count);
      if (const MPI_Comm native = context.repeat_passthrough(comm, bytes, root, options); native != MPI_COMM_NULL) {
        const int rc = PMPI_Bcast(buffer, static_cast<int>(bytes), MPI_BYTE, root, native);
        if (rc != MPI_SUCCESS) check(rc, "MPI_Bcast");
        return;
      }
    }
  }
  const Slot slot = reserve(comm);
  TypedBuffer data = typed_buffer(slot, buffer, count, type, root, options, true);
  if (data.plain() && count > 0) context.remember_plain(type, data.bytes().size() / static_cast<std::size_t>(count));
  bcast(slot, data.bytes(), root, options);
  data.finish();
}

TypedRequest typed_ibcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  const Slot slot = reserve(comm);
  TypedRequest typed{typed_buffer(slot, buffer, count, type, root, {}, false), {}};
  typed.request = ibcast(slot, typed.data.bytes(), root, {});
  return typed;
}

}  // namespace herald::mpi
