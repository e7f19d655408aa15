// Sending a protocol message on the channel: encoded, and posted to the handler its kind names.
#pragma once

#include "messages.hpp"

#include <herald/dyn/channel.hpp>

#include <utility>

namespace herald::runtime::detail {

template <class M>
void post(dyn::Channel& channel, int dest, const M& message, std::span<const std::byte> payload = {},
          int priority = 0, dyn::Channel::Done sent = {}) {
  std::vector<std::byte>& body = channel.body_buffer();
  msg::encode_into(body, message);
  channel.post(dest, M::kind, body, payload, priority, std::move(sent));
}

}  // namespace herald::runtime::detail
