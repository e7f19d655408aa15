// herald's one wire codec, for every message its processes exchange (the dynamic broadcast's frames and
// headers, the task runtime's messages).
//
// Fields are fixed-width little-endian integers, enums by their underlying integer, booleans as one byte
// that is 0 or 1, doubles by their IEEE-754 bits, and byte strings as a 64-bit length and the bytes,
// whatever the host. Every read is checked against what is left, so a malformed message is refused with
// herald::Error(invalid_argument) naming what was read, never read past its end; a count read from the
// wire is checked against the bytes that follow before anything is allocated for it.
#pragma once

#include <herald/error.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace herald::codec {

template <class T>
concept Field = std::is_integral_v<T> || std::is_enum_v<T> || std::is_same_v<T, double>;

namespace detail {

template <class U>
constexpr U byteswap(U v) noexcept {
  U r = 0;
  for (std::size_t i = 0; i < sizeof(U); ++i, v >>= 8) r = static_cast<U>((r << 8) | (v & 0xffu));
  return r;
}

template <class T>
using Bits = std::conditional_t<
    sizeof(T) == 1, std::uint8_t,
    std::conditional_t<sizeof(T) == 2, std::uint16_t, std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>>;

// A field's bits in wire order.
template <Field T>
Bits<T> to_wire(T value) noexcept {
  Bits<T> bits;
  if constexpr (std::is_same_v<T, bool>) {
    bits = value ? 1 : 0;
  } else if constexpr (std::is_same_v<T, double>) {
    bits = std::bit_cast<std::uint64_t>(value);
  } else {
    bits = static_cast<Bits<T>>(value);
  }
  if constexpr (std::endian::native == std::endian::big) bits = byteswap(bits);
  return bits;
}

}  // namespace detail

// Writes fields into room sized for all of them up front (growing a vector once per field costs several
// times the writes themselves, on a hot path). The room must be exactly the size the fields need, checked
// once: a check per field would cost as much as the writes.
class Writer {
 public:
  Writer(std::span<std::byte> room, std::size_t needed) : at_(room.data()) {
    if (room.size() != needed)
      throw std::logic_error("codec writer: " + std::to_string(room.size()) + " bytes of room for " +
                             std::to_string(needed));
  }
  template <Field T>
  Writer& put(T value) noexcept {
    const auto bits = detail::to_wire(value);
    std::memcpy(at_, &bits, sizeof bits);
    at_ += sizeof bits;
    return *this;
  }
  // Bytes as they are, without a length (the reader knows it from elsewhere).
  Writer& put_raw(std::span<const std::byte> bytes) noexcept {
    if (!bytes.empty()) std::memcpy(at_, bytes.data(), bytes.size());
    at_ += bytes.size();
    return *this;
  }

 private:
  std::byte* at_;
};

// Appends fields to a growing buffer, for messages whose size is known only once written.
class Buffer {
 public:
  Buffer() = default;
  // Room for `bytes` before the first growth: a message of known typical size costs one allocation.
  explicit Buffer(std::size_t bytes) { bytes_.reserve(bytes); }
  // Writes into `reuse`, emptied, keeping its room: bytes() hands it back.
  explicit Buffer(std::vector<std::byte>&& reuse) noexcept : bytes_(std::move(reuse)) { bytes_.clear(); }

  template <Field T>
  Buffer& put(T value) {
    const auto bits = detail::to_wire(value);
    const auto* p = reinterpret_cast<const std::byte*>(&bits);
    bytes_.insert(bytes_.end(), p, p + sizeof bits);
    return *this;
  }
  Buffer& put_raw(std::span<const std::byte> bytes) {
    bytes_.insert(bytes_.end(), bytes.begin(), bytes.end());
    return *this;
  }
  // A 64-bit length, then the bytes.
  Buffer& put_bytes(std::span<const std::byte> bytes) {
    put(static_cast<std::uint64_t>(bytes.size()));
    return put_raw(bytes);
  }
  Buffer& put_string(std::string_view s) { return put_bytes(std::as_bytes(std::span(s.data(), s.size()))); }
  // Overwrites the field an earlier put() wrote at `offset` (a count known only once what follows is written).
  template <Field T>
  void put_at(std::size_t offset, T value) {
    if (offset > bytes_.size() || bytes_.size() - offset < sizeof(T))
      throw std::logic_error("codec buffer: put_at past the end");
    const auto bits = detail::to_wire(value);
    std::memcpy(bytes_.data() + offset, &bits, sizeof bits);
  }
  std::size_t size() const noexcept { return bytes_.size(); }
  bool empty() const noexcept { return bytes_.empty(); }
  void clear() noexcept { bytes_.clear(); }
  std::span<const std::byte> view() const noexcept { return bytes_; }
  std::vector<std::byte>& bytes() noexcept { return bytes_; }

 private:
  std::vector<std::byte> bytes_;
};

// Reads fields, each checked against what is left. `what` names the message in errors ("malformed
// <what>: ...").
class Reader {
 public:
  Reader(std::span<const std::byte> bytes, std::string_view what) : bytes_(bytes), what_(what) {}

  template <Field T>
  T get() {
    detail::Bits<T> bits;
    std::memcpy(&bits, take(sizeof bits).data(), sizeof bits);
    if constexpr (std::endian::native == std::endian::big) bits = detail::byteswap(bits);
    if constexpr (std::is_same_v<T, bool>) {
      if (bits > 1) malformed("a flag holds " + std::to_string(bits) + ", not 0 or 1");
      return bits == 1;
    } else if constexpr (std::is_same_v<T, double>) {
      return std::bit_cast<double>(bits);
    } else {
      return static_cast<T>(bits);
    }
  }
  // An enum whose values run from 0 to `last`: anything else is refused, naming `field`.
  template <class E>
    requires std::is_enum_v<E>
  E get_enum(E last, std::string_view field) {
    using U = std::underlying_type_t<E>;
    const auto raw = get<U>();
    bool bad = raw > static_cast<U>(last);
    if constexpr (std::is_signed_v<U>) bad = bad || raw < 0;
    if (bad)
      malformed(std::string(field) + " " + std::to_string(+raw) + " is out of range");
    return static_cast<E>(raw);
  }
  // A 32-bit count of entries of at least `entry_bytes` each, checked against the bytes left before the
  // caller allocates for them.
  std::uint32_t get_count(std::size_t entry_bytes, std::string_view entries) {
    const auto n = get<std::uint32_t>();
    if (entry_bytes > 0 && n > left() / entry_bytes)
      malformed(std::to_string(n) + " " + std::string(entries) + " of at least " + std::to_string(entry_bytes) +
                " bytes each, " + std::to_string(left()) + " bytes left");
    return n;
  }
  std::span<const std::byte> get_raw(std::size_t n) { return take(n); }
  std::span<const std::byte> get_bytes() {
    const auto n = get<std::uint64_t>();
    if (n > left()) malformed(std::to_string(n) + " bytes announced, " + std::to_string(left()) + " left");
    return take(static_cast<std::size_t>(n));
  }
  std::string get_string() {
    const auto b = get_bytes();
    return {reinterpret_cast<const char*>(b.data()), b.size()};
  }

  std::size_t left() const noexcept { return bytes_.size() - at_; }
  std::span<const std::byte> rest() const noexcept { return bytes_.subspan(at_); }
  // Refuses bytes after the last field: a message is exactly its fields.
  void expect_end() const {
    if (left() != 0) malformed(std::to_string(left()) + " bytes after the last field");
  }
  [[noreturn]] void malformed(const std::string& problem) const {
    throw Error(Errc::invalid_argument, "malformed " + std::string(what_) + ": " + problem);
  }

 private:
  std::span<const std::byte> take(std::size_t n) {
    if (n > left())
      malformed(std::to_string(n) + " bytes wanted, " + std::to_string(left()) + " left");
    const auto out = bytes_.subspan(at_, n);
    at_ += n;
    return out;
  }

  std::span<const std::byte> bytes_;
  std::string_view what_;
  std::size_t at_ = 0;
};

}  // namespace herald::codec
