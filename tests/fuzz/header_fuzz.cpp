// libFuzzer target: arbitrary bytes into the dynamic-broadcast frame and header decoders.
//   herald_dyn_header_fuzz -max_total_time=60 scratch_corpus/ tests/fuzz/corpus/header/
#include "header_check.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  herald::dyn::fuzz::check_one({reinterpret_cast<const std::byte*>(data), size});
  return 0;
}
