#include <herald/balance/settings.hpp>
#include <herald/error.hpp>

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace herald::balance {
namespace {

using Environment = std::map<std::string, std::string>;

Settings parse(const Environment& env) {
  return parse_settings([&](const char* name) -> std::optional<std::string> {
    auto it = env.find(name);
    if (it == env.end() || it->second.empty()) return std::nullopt;
    return it->second;
  });
}

// The error for a bad value names the variable and quotes the value.
void expect_rejected(const std::string& name, const std::string& value) {
  try {
    parse({{name, value}});
    FAIL() << name << "='" << value << "' was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_argument);
    const std::string what = e.what();
    EXPECT_NE(what.find(name), std::string::npos) << what;
    EXPECT_NE(what.find("'" + value + "'"), std::string::npos) << what;
  }
}

TEST(Settings, DefaultsActOnEveryExplicitCall) {
  const Settings s = parse({});
  EXPECT_FALSE(s.implicit);
  EXPECT_FALSE(s.log);
  EXPECT_TRUE(s.bind);
  EXPECT_EQ(s.clock, Clock::wall);
  EXPECT_FALSE(s.cores.has_value());
  for (long call = 1; call <= 5; ++call) EXPECT_TRUE(s.trigger.fires(call));
}

TEST(Settings, ReadsEveryVariable) {
  const Settings s = parse({{"HERALD_BALANCE_IMPLICIT", "1"},
                            {"HERALD_BALANCE_LOG", "yes"},
                            {"HERALD_BALANCE_BIND", "off"},
                            {"HERALD_BALANCE_EVERY", "3"},
                            {"HERALD_BALANCE_CLOCK", "CPU"},
                            {"HERALD_BALANCE_CORES", "2x4"}});
  EXPECT_TRUE(s.implicit);
  EXPECT_TRUE(s.log);
  EXPECT_FALSE(s.bind);
  EXPECT_EQ(s.clock, Clock::cpu);
  EXPECT_EQ(s.cores, (std::vector<int>{4, 4}));
  EXPECT_FALSE(s.trigger.fires(2));
  EXPECT_TRUE(s.trigger.fires(3));
  EXPECT_FALSE(s.trigger.fires(4));
  EXPECT_TRUE(s.trigger.fires(6));
}

TEST(Settings, ActsOnceAtTheGivenCall) {
  const Settings s = parse({{"HERALD_BALANCE_AT", "20"}});
  for (long call = 1; call <= 60; ++call) EXPECT_EQ(s.trigger.fires(call), call == 20) << call;
}

TEST(Settings, ParsesCoresPerSocket) {
  EXPECT_EQ(parse_socket_cores("48", "x"), (std::vector<int>{48}));
  EXPECT_EQ(parse_socket_cores("2x24", "x"), (std::vector<int>{24, 24}));
  EXPECT_EQ(parse_socket_cores("2X3", "x"), (std::vector<int>{3, 3}));
  EXPECT_EQ(parse_socket_cores("24,12", "x"), (std::vector<int>{24, 12}));
}

TEST(Settings, RejectsBadValuesNamingTheVariable) {
  for (const char* v : {"0", "-2", "two", "1.5", "3x"}) expect_rejected("HERALD_BALANCE_EVERY", v);
  for (const char* v : {"0", "abc"}) expect_rejected("HERALD_BALANCE_AT", v);
  for (const char* v : {"maybe", "2", "y"}) expect_rejected("HERALD_BALANCE_IMPLICIT", v);
  expect_rejected("HERALD_BALANCE_LOG", "verbose");
  expect_rejected("HERALD_BALANCE_BIND", "cores");
  expect_rejected("HERALD_BALANCE_CLOCK", "gpu");
  for (const char* v : {"0", "2x", "x4", "2x0", "4,,4", "4,", "-4", "1e3", "99999", "300x300"})
    expect_rejected("HERALD_BALANCE_CORES", v);
}

TEST(Settings, RefusesEveryAndAtTogether) {
  try {
    parse({{"HERALD_BALANCE_EVERY", "2"}, {"HERALD_BALANCE_AT", "5"}});
    FAIL();
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("HERALD_BALANCE_EVERY"), std::string::npos);
    EXPECT_NE(what.find("HERALD_BALANCE_AT"), std::string::npos);
  }
}

TEST(Settings, RefusesUnknownBalanceVariables) {
  const std::vector<std::string> fine{"PATH", "HERALD_SEGMENT_SIZE", "HERALD_BALANCE_LOG", "HERALD_BALANCE_CORES"};
  EXPECT_NO_THROW(check_names(fine));
  const std::vector<std::string> typo{"PATH", "HERALD_BALANCE_EVRY"};
  try {
    check_names(typo);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("HERALD_BALANCE_EVRY"), std::string::npos);
  }
}

}  // namespace
}  // namespace herald::balance
