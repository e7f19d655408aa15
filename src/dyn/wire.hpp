// What dynamic-broadcast messages look like on the wire.
//
// Every active message is a frame (which handler, how many payload bytes follow) around a handler's body.
// The dynamic broadcast's body is a Header: the origin, the user's tag, the sizes, the segment this message
// carries, and the sub-tree the receiver must serve (source routing). Both decoders check every field
// and throw herald::Error on anything malformed, so a corrupt message is refused before any byte moves.
// All integers are little-endian, whatever the host.
#pragma once

#include <herald/error.hpp>
#include <herald/schedule.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace herald::dyn {

inline constexpr std::uint16_t frame_magic = 0x4448;  // "HD"
inline constexpr std::size_t frame_bytes = 16;         // magic, handler, flags, payload length
inline constexpr std::uint8_t header_version = 1;
inline constexpr std::size_t header_fixed_bytes = 52;  // a header without route entries
inline constexpr std::size_t route_entry_bytes = 20;

// The envelope of an active message. A small payload rides inside the frame, after the body (one MPI
// message instead of two); a large one follows in separate messages.
struct Frame {
  std::uint16_t handler = 0;   // id the receiving side registered
  std::uint64_t payload = 0;   // payload bytes, inline or following
  bool inline_payload = false;
  std::span<const std::byte> body;      // the handler's own bytes (a view into the decoded buffer)
  std::span<const std::byte> carried;   // the payload itself when inline, else empty
};

// With `inline_payload` non-empty the payload is carried in the frame; otherwise `payload` announces
// that many bytes to follow.
std::vector<std::byte> encode_frame(std::uint16_t handler, std::uint64_t payload, std::span<const std::byte> body,
                                    std::span<const std::byte> inline_payload = {});
// The same, written into `out`, which must be exactly frame_bytes + body.size() + inline_payload.size()
// bytes long (a buffer kept at its size needs neither allocating nor clearing).
void write_frame(std::span<std::byte> out, std::uint16_t handler, std::uint64_t payload,
                 std::span<const std::byte> body, std::span<const std::byte> inline_payload = {});
Frame decode_frame(std::span<const std::byte> bytes);

// One recipient in a route: a sub-tree in pre-order is the recipient itself followed by the sub-trees of
// its children, in the order it serves them.
struct RouteEntry {
  int rank = 0;
  int priority = 0;
  std::uint64_t seq = 0;       // the recipient's number for messages from the origin, for ordering
  std::uint32_t subtree = 1;   // entries in this recipient's sub-tree, itself included
  friend bool operator==(const RouteEntry&, const RouteEntry&) = default;
};

struct Header {
  int origin = 0;              // the rank that started the broadcast (the `source` a receive names)
  int tag = 0;                 // the user's tag
  int priority = 0;            // the receiver's priority, as the origin gave it
  std::uint64_t seq = 0;       // the receiver's number for messages from the origin
  std::uint64_t total = 0;     // bytes in the whole message
  ByteRange segment{};         // the bytes this message's payload carries
  bool has_route = false;      // the first message to a receiver carries its sub-tree; later segments do not
  std::vector<RouteEntry> route;  // the receiver's sub-tree in pre-order, the receiver excluded
  friend bool operator==(const Header&, const Header&) = default;
};

std::vector<std::byte> encode_header(const Header& header);
// The bytes encode_header() gives, and the same written into exactly that many bytes at `out`.
std::size_t header_bytes(const Header& header) noexcept;
void write_header(std::span<std::byte> out, const Header& header);

// Throws Error(invalid_argument) naming the problem: too short, wrong version, unknown flags, a segment
// outside the message, a route whose length disagrees with the bytes or whose sub-trees do not nest, a
// negative rank or tag, a rank listed twice or the origin in its own route.
Header decode_header(std::span<const std::byte> bytes);

// Checks that `route` is a well-formed pre-order forest: every sub-tree size is at least 1 and nests
// inside its parent's. Throws Error(invalid_argument) otherwise.
void check_route_shape(std::span<const RouteEntry> route);

}  // namespace herald::dyn
