#include <herald/codec.hpp>
#include "wire.hpp"
#include <herald/error.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace herald::dyn {
namespace {

[[noreturn]] void malformed(const std::string& what) {
  throw Error(Errc::invalid_argument, "malformed dynamic-broadcast message: " + what);
}

using codec::Reader;
using codec::Writer;

}  // namespace

void write_frame(std::span<std::byte> out, std::uint16_t handler, std::uint64_t payload,
                 std::span<const std::byte> body, std::span<const std::byte> inline_payload) {
  const bool carried = !inline_payload.empty();
  Writer w(out, frame_bytes + body.size() + inline_payload.size());
  w.put(frame_magic);
  w.put(handler);
  w.put(std::uint32_t{carried ? 1u : 0u});
  w.put(carried ? std::uint64_t{inline_payload.size()} : payload);
  w.put_raw(body);
  w.put_raw(inline_payload);
}

std::vector<std::byte> encode_frame(std::uint16_t handler, std::uint64_t payload, std::span<const std::byte> body,
                                    std::span<const std::byte> inline_payload) {
  std::vector<std::byte> out(frame_bytes + body.size() + inline_payload.size());
  write_frame(out, handler, payload, body, inline_payload);
  return out;
}

Frame decode_frame(std::span<const std::byte> bytes) {
  if (bytes.size() < frame_bytes)
    malformed("frame of " + std::to_string(bytes.size()) + " bytes is shorter than its " +
              std::to_string(frame_bytes) + "-byte envelope");
  Reader r(bytes, "dynamic-broadcast message");
  if (r.get<std::uint16_t>() != frame_magic) malformed("frame does not start with herald's magic number");
  Frame frame;
  frame.handler = r.get<std::uint16_t>();
  const auto flags = r.get<std::uint32_t>();
  if ((flags & ~1u) != 0) malformed("unknown frame flags " + std::to_string(flags));
  frame.inline_payload = (flags & 1u) != 0;
  frame.payload = r.get<std::uint64_t>();
  frame.body = r.rest();
  if (frame.inline_payload) {
    if (frame.payload == 0 || frame.payload > frame.body.size())
      malformed("frame carries " + std::to_string(frame.body.size()) + " bytes but an inline payload of " +
                std::to_string(frame.payload));
    const std::size_t length = static_cast<std::size_t>(frame.payload);
    frame.carried = frame.body.last(length);
    frame.body = frame.body.first(frame.body.size() - length);
  }
  return frame;
}

std::size_t header_bytes(const Header& h) noexcept {
  return header_fixed_bytes + h.route.size() * route_entry_bytes;
}

void write_header(std::span<std::byte> out, const Header& h) {
  Writer w(out, header_bytes(h));
  w.put(header_version);
  w.put(static_cast<std::uint8_t>(h.has_route ? 1 : 0));
  w.put(std::uint16_t{0});
  w.put(static_cast<std::int32_t>(h.origin));
  w.put(static_cast<std::int32_t>(h.tag));
  w.put(static_cast<std::int32_t>(h.priority));
  w.put(h.seq);
  w.put(static_cast<std::uint64_t>(h.total));
  w.put(static_cast<std::uint64_t>(h.segment.offset));
  w.put(static_cast<std::uint64_t>(h.segment.length));
  w.put(static_cast<std::uint32_t>(h.route.size()));
  for (const RouteEntry& e : h.route) {
    w.put(static_cast<std::int32_t>(e.rank));
    w.put(static_cast<std::int32_t>(e.priority));
    w.put(e.seq);
    w.put(e.subtree);
  }
}

std::vector<std::byte> encode_header(const Header& h) {
  std::vector<std::byte> out(header_bytes(h));
  write_header(out, h);
  return out;
}

void check_route_shape(std::span<const RouteEntry> route) {
  if (route.size() == 1 && route[0].subtree == 1) return;  // a lone leaf, the common case: nothing to allocate
  // Ends of the sub-trees still open at the current entry, innermost last.
  std::vector<std::size_t> open;
  for (std::size_t i = 0; i < route.size(); ++i) {
    while (!open.empty() && open.back() <= i) open.pop_back();
    const std::size_t limit = open.empty() ? route.size() : open.back();
    const std::uint32_t size = route[i].subtree;
    if (size == 0) malformed("route entry " + std::to_string(i) + " has an empty sub-tree");
    if (size > limit - i)
      malformed("route entry " + std::to_string(i) + " claims a sub-tree of " + std::to_string(size) +
                " entries but only " + std::to_string(limit - i) + " fit in its parent's");
    open.push_back(i + size);
  }
}

Header decode_header(std::span<const std::byte> bytes) {
  if (bytes.size() < header_fixed_bytes)
    malformed("header of " + std::to_string(bytes.size()) + " bytes is shorter than the " +
              std::to_string(header_fixed_bytes) + " bytes every header has");
  Reader r(bytes, "dynamic-broadcast message");
  const auto version = r.get<std::uint8_t>();
  if (version != header_version)
    malformed("header version " + std::to_string(version) + " (this herald speaks " +
              std::to_string(header_version) + ")");
  const auto flags = r.get<std::uint8_t>();
  if ((flags & ~1u) != 0) malformed("unknown header flags " + std::to_string(flags));
  if (r.get<std::uint16_t>() != 0) malformed("reserved header bits are set");

  Header h;
  h.has_route = (flags & 1u) != 0;
  h.origin = r.get<std::int32_t>();
  h.tag = r.get<std::int32_t>();
  h.priority = r.get<std::int32_t>();
  h.seq = r.get<std::uint64_t>();
  const auto total = r.get<std::uint64_t>();
  const auto offset = r.get<std::uint64_t>();
  const auto length = r.get<std::uint64_t>();
  const auto count = r.get<std::uint32_t>();
  if (h.origin < 0) malformed("negative origin " + std::to_string(h.origin));
  if (h.tag < 0) malformed("negative tag " + std::to_string(h.tag));
  if (offset > total || length > total - offset)
    malformed("segment [" + std::to_string(offset) + ", +" + std::to_string(length) + ") lies outside a " +
              std::to_string(total) + "-byte message");
  if constexpr (sizeof(std::size_t) < sizeof(std::uint64_t)) {
    if (total > SIZE_MAX) malformed("message of " + std::to_string(total) + " bytes exceeds this host's size_t");
  }
  h.total = total;
  h.segment = {static_cast<std::size_t>(offset), static_cast<std::size_t>(length)};
  if (!h.has_route && count != 0) malformed("route entries present without the route flag");
  // Compare without multiplying first, so a huge count cannot overflow into a plausible size.
  if (count > r.left() / route_entry_bytes || r.left() != count * route_entry_bytes)
    malformed("route of " + std::to_string(count) + " entries needs " +
              std::to_string(std::uint64_t{count} * route_entry_bytes) + " bytes, " + std::to_string(r.left()) +
              " follow");

  h.route.resize(count);
  for (RouteEntry& e : h.route) {
    e.rank = r.get<std::int32_t>();
    e.priority = r.get<std::int32_t>();
    e.seq = r.get<std::uint64_t>();
    e.subtree = r.get<std::uint32_t>();
    if (e.rank < 0) malformed("negative rank " + std::to_string(e.rank) + " in the route");
    if (e.rank == h.origin) malformed("origin " + std::to_string(h.origin) + " appears in its own route");
  }
  check_route_shape(h.route);
  if (h.route.size() < 2) return h;  // no rank to repeat

  std::vector<int> ranks(h.route.size());
  std::transform(h.route.begin(), h.route.end(), ranks.begin(), [](const RouteEntry& e) { return e.rank; });
  std::sort(ranks.begin(), ranks.end());
  if (auto dup = std::adjacent_find(ranks.begin(), ranks.end()); dup != ranks.end())
    malformed("rank " + std::to_string(*dup) + " appears twice in the route");
  return h;
}

}  // namespace herald::dyn
