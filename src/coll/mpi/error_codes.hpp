// MPI error codes made for herald's messages (errors.hpp): one per distinct message, up to a cap.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <unordered_map>

namespace herald::mpi {

class ErrorCodes {
 public:
  int code(int error_class, const std::string& message);
  std::optional<std::string> message(int code) const;
  void intercepted() noexcept { intercepted_ = true; }

 private:
  static constexpr std::size_t max_codes = 256;
  bool usable();
  bool probed_ = false, kept_ = false, intercepted_ = false;
  std::unordered_map<std::string, int> codes_;
  std::unordered_map<int, int> overflow_;  // class -> its shared code, past the cap
  std::unordered_map<int, std::string> messages_;
};

}  // namespace herald::mpi
