// libFuzzer target: arbitrary bytes into the runtime's message decoders.
//   herald_runtime_message_fuzz -max_total_time=60 scratch_corpus/ tests/fuzz/corpus/message/
#include "message_check.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  herald::runtime::detail::fuzz::check_one({reinterpret_cast<const std::byte*>(data), size});
  return 0;
}
