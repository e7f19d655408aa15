// Every sequence of up to `longest` events drawn from `alphabet`, shortest first, each handed to `check`:
// the exhaustive small cases the runtime's pure rules are tested on. Returns how many there were.
#pragma once

#include <cstddef>
#include <vector>

namespace herald::runtime::detail {

template <class Event, class Check>
std::size_t for_every_history(const std::vector<Event>& alphabet, int longest, Check check) {
  const std::size_t size = alphabet.size();
  std::size_t histories = 0;
  std::vector<Event> history;
  for (int length = 0; length <= longest; ++length) {
    std::size_t count = 1;
    for (int i = 0; i < length; ++i) count *= size;
    for (std::size_t code = 0; code < count; ++code) {
      history.clear();
      for (std::size_t c = code, i = 0; i < static_cast<std::size_t>(length); ++i, c /= size)
        history.push_back(alphabet[c % size]);
      check(history);
      ++histories;
    }
  }
  return histories;
}

}  // namespace herald::runtime::detail
