#include "kernel_times.hpp"

#include "matrix.hpp"

#include <herald/error.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <stdexcept>
#include <vector>

#include <unistd.h>

namespace herald::cholesky {

double KernelTimes::time(Kernel kernel, std::int64_t m, std::int64_t n, std::int64_t k) const noexcept {
  const double full = flops(kernel, tile, tile, tile);
  return seconds[static_cast<std::size_t>(kernel)] * flops(kernel, m, n, k) / full;
}

namespace {

template <class T>
std::array<double, 4> measure(std::int64_t b, int repetitions) {
  const Layout layout{2 * b, b};
  const Generator a{.seed = 1, .diagonal = static_cast<double>(2 * b)};
  const auto size = static_cast<std::size_t>(b * b);
  std::vector<T> diagonal(size), below(size), other(size), target(size);
  std::array<std::vector<double>, 4> samples;
  for (int rep = 0; rep < repetitions; ++rep) {
    generate_tile<T>(layout, a, 0, 0, diagonal);  // positive definite: potrf succeeds
    generate_tile<T>(layout, a, 1, 0, below);
    generate_tile<T>(layout, a, 1, 0, other);
    generate_tile<T>(layout, a, 1, 1, target);
    auto timed = [&](Kernel k, auto&& run) {
      const auto start = std::chrono::steady_clock::now();
      run();
      samples[static_cast<std::size_t>(k)].push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    };
    timed(Kernel::potrf, [&] {
      if (potrf<T>(b, diagonal) != 0) throw std::runtime_error("calibration: the test tile is not positive definite");
    });
    timed(Kernel::trsm, [&] { trsm<T>(b, b, diagonal, below); });
    timed(Kernel::syrk, [&] { syrk<T>(b, b, below, target); });
    timed(Kernel::gemm, [&] { gemm<T>(b, b, b, below, other, target); });
  }
  std::array<double, 4> medians{};
  for (std::size_t i = 0; i < 4; ++i) {
    auto& s = samples[i];
    std::nth_element(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(s.size() / 2), s.end());
    medians[i] = s[s.size() / 2];
  }
  return medians;
}

std::string host_name() {
  char name[256] = {};
  return gethostname(name, sizeof name - 1) == 0 ? name : "?";
}

}  // namespace

KernelTimes measure_kernel_times(std::int64_t tile, Precision precision, int repetitions) {
  KernelTimes t{.tile = tile, .precision = precision, .machine = host_name()};
  t.seconds = precision == Precision::single ? measure<float>(tile, repetitions) : measure<double>(tile, repetitions);
  return t;
}

void write_kernel_times(const KernelTimes& times, const std::string& path) {
  nlohmann::json j{{"schema", "herald-cholesky-kernel-times"},
                   {"version", 1},
                   {"tile", times.tile},
                   {"precision", to_string(times.precision)},
                   {"machine", times.machine},
                   {"seconds", nlohmann::json::object()}};
  for (Kernel k : all_kernels) j["seconds"][std::string(name(k))] = times.seconds[static_cast<std::size_t>(k)];
  std::ofstream out(path);
  out << j.dump(2) << '\n';
  if (!out) throw Error(Errc::invalid_argument, "cannot write the kernel times to '" + path + "'");
}

KernelTimes read_kernel_times(const std::string& path, std::int64_t tile, Precision precision) {
  std::ifstream in(path);
  if (!in) throw Error(Errc::invalid_argument, "--kernel-times: cannot open '" + path + "'");
  const auto fail = [&](const std::string& why) {
    return Error(Errc::invalid_argument, "--kernel-times '" + path + "': " + why);
  };
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
    if (j.at("schema") != "herald-cholesky-kernel-times" || j.at("version") != 1)
      throw fail("not a version 1 kernel-times file (herald-cholesky --calibrate writes them)");
    KernelTimes t{.tile = j.at("tile").get<std::int64_t>(),
                  .precision = j.at("precision") == "single" ? Precision::single : Precision::double_,
                  .machine = j.value("machine", "?")};
    if (t.tile != tile)
      throw fail("measured at tile " + std::to_string(t.tile) + ", this run uses " + std::to_string(tile));
    if (t.precision != precision)
      throw fail(std::string("measured in ") + to_string(t.precision) + " precision, this run uses " +
                 to_string(precision));
    for (Kernel k : all_kernels) {
      const double s = j.at("seconds").at(std::string(name(k))).get<double>();
      if (!(s > 0)) throw fail("the time of " + std::string(name(k)) + " must be positive");
      t.seconds[static_cast<std::size_t>(k)] = s;
    }
    return t;
  } catch (const nlohmann::json::exception& e) {
    throw fail(std::string("malformed: ") + e.what());
  }
}

}  // namespace herald::cholesky
