// Replays the header corpus in the ordinary test run: files named ok-* must decode, bad-* must be
// refused with herald::Error, and every strict prefix of an ok-* file must be refused too.
#include "header_check.hpp"

#include "corpus_file.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

namespace herald::dyn::fuzz {
namespace {

using herald::fuzz::read_file;

TEST(HeaderCorpus, EveryFileGetsItsVerdict) {
  const std::filesystem::path dir = HERALD_HEADER_CORPUS;
  int good = 0, bad = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    const auto bytes = read_file(entry.path());
    if (name.rfind("ok-", 0) == 0) {
      ++good;
      EXPECT_TRUE(check_one(bytes)) << name << " was refused";
      for (std::size_t n = 0; n < bytes.size(); ++n)
        EXPECT_FALSE(check_one(std::span(bytes).first(n))) << name << " cut to " << n << " bytes was accepted";
    } else if (name.rfind("bad-", 0) == 0) {
      ++bad;
      EXPECT_FALSE(check_one(bytes)) << name << " was accepted";
    }
  }
  EXPECT_GE(good, 3) << "corpus missing from " << dir;
  EXPECT_GE(bad, 10) << "corpus missing from " << dir;
}

}  // namespace
}  // namespace herald::dyn::fuzz
