// The settings registry: names declared once, former names, "did you mean", the environment's problems and
// the precedence of the environment over a program's default.
#include <herald/config.hpp>
#include <herald/error.hpp>
#include <herald/settings.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <string>
#include <vector>

namespace herald {
namespace {

TEST(Settings, EachNameDeclaredOnce) {
  std::set<std::string_view> names;
  for (const Setting& s : settings()) {
    EXPECT_TRUE(s.name.starts_with("HERALD_")) << s.name;
    EXPECT_TRUE(names.insert(s.name).second) << s.name << " declared twice";
    if (!s.old_name.empty()) { EXPECT_TRUE(names.insert(s.old_name).second) << s.old_name << " declared twice"; }
    EXPECT_FALSE(s.doc.empty()) << s.name;
    EXPECT_FALSE(s.component.empty()) << s.name;
    EXPECT_NE(setting_type_name(s.type), "") << s.name;
    EXPECT_EQ(find_setting(s.name), &s);
  }
  EXPECT_EQ(find_setting("HERALD_NOT_A_SETTING"), nullptr);
  EXPECT_EQ(find_setting("HERALD_RT_BCAST")->name, "HERALD_RUNTIME_BCAST");
}

TEST(Settings, SuggestsTheNearestName) {
  EXPECT_EQ(nearest_setting("HERALD_ALGORITM"), "HERALD_ALGORITHM");
  EXPECT_EQ(nearest_setting("HERALD_SEGMENTSIZE"), "HERALD_SEGMENT_SIZE");
  EXPECT_EQ(nearest_setting("HERALD_BALANCE_EVRY"), "HERALD_BALANCE_EVERY");
  EXPECT_EQ(nearest_setting("HERALD_SOMETHING_ELSE_ENTIRELY"), "");
}

TEST(Settings, NamesWhatIsWrongWithTheEnvironment) {
  const std::vector<std::string> env = {"HERALD_ALGORITM=chain", "HERALD_ALGORITHM=chain", "HERALD_RT_LOG=1",
                                        "HERALD_TEST_ANYTHING=1", "PATH=/bin", "HERALD_ZZZZZZZZZZZZ=1"};
  const std::vector<std::string> problems = environment_problems(env);
  ASSERT_EQ(problems.size(), 3u);
  EXPECT_EQ(problems[0],
            "HERALD_ALGORITM (set to 'chain') is not a herald setting; did you mean HERALD_ALGORITHM? (herald-info "
            "lists them all)");
  EXPECT_EQ(problems[1], "HERALD_RT_LOG is deprecated: use HERALD_RUNTIME_LOG");
  EXPECT_EQ(problems[2], "HERALD_ZZZZZZZZZZZZ (set to '1') is not a herald setting (herald-info lists them all)");
  EXPECT_TRUE(environment_problems(std::vector<std::string>{"HERALD_VERBOSE=1", "HERALD_TEST_X=2"}).empty());
}

TEST(Settings, NamesTheNearestChoice) {
  const std::vector<std::string_view> choices{"nobcast", "p2p", "mpibcast", "mpibcast:herald", "dynbcast", "auto"};
  EXPECT_EQ(nearest_name("dyn", choices), "dynbcast");  // cut short: the shortest it begins
  EXPECT_EQ(nearest_name("mpibcast:", choices), "mpibcast:herald");
  EXPECT_EQ(nearest_name("nobcst", choices), "nobcast");  // misspelt: by letters
  EXPECT_EQ(nearest_name("scatter", choices), "");
  EXPECT_EQ(not_one_of("HERALD_RUNTIME_BCAST", "dyn", choices),
            "HERALD_RUNTIME_BCAST 'dyn' is not one of nobcast, p2p, mpibcast, mpibcast:herald, dynbcast, auto; did "
            "you mean dynbcast?");
  EXPECT_EQ(not_one_of("-control", "hydra", std::vector<std::string_view>{"head", "replicated"}),
            "-control 'hydra' is not one of head, replicated");
}

// Every type's rule, on a value it takes and on one it refuses, by the setting's own name.
TEST(Settings, ValuesAreCheckedByTheirSettingsType) {
  auto problem = [](std::string_view name, std::string_view value) {
    return value_problem(*find_setting(name), value).value_or("");
  };
  EXPECT_EQ(problem("HERALD_VERBOSE", "On"), "");
  EXPECT_EQ(problem("HERALD_VERBOSE", "maybe"),
            "HERALD_VERBOSE 'maybe' is not a switch: use 1/0, true/false, yes/no or on/off");
  EXPECT_EQ(problem("HERALD_SEGMENT_SIZE", "64K"), "");
  EXPECT_EQ(problem("HERALD_SEGMENT_SIZE", "10Q"), "HERALD_SEGMENT_SIZE '10Q' has an unknown unit (use K, M or G)");
  EXPECT_EQ(problem("HERALD_KNOMIAL_RADIX", "2"), "");
  EXPECT_EQ(problem("HERALD_KNOMIAL_RADIX", "1"), "HERALD_KNOMIAL_RADIX '1' is outside 2..");
  EXPECT_EQ(problem("HERALD_KNOMIAL_RADIX", "two"), "HERALD_KNOMIAL_RADIX 'two' is not a non-negative integer");
  EXPECT_EQ(problem("HERALD_MAX_MESSAGE_BYTES", "2G"), "HERALD_MAX_MESSAGE_BYTES '2G' is outside 1..2147483647");
  EXPECT_EQ(problem("HERALD_MAX_MESSAGE_BYTES", "1M"), "");
  EXPECT_EQ(problem("HERALD_DYN_WINDOW", "0"), "");  // "0: no bound" is not a range
  EXPECT_EQ(problem("HERALD_ALPHA", "1e-6"), "");
  EXPECT_EQ(problem("HERALD_ALPHA", "fast"), "HERALD_ALPHA 'fast' is not a non-negative number");
  EXPECT_EQ(problem("HERALD_RUNTIME_CONTROL", "replicated"), "");
  EXPECT_EQ(problem("HERALD_RUNTIME_CONTROL", "replicate"),
            "HERALD_RUNTIME_CONTROL 'replicate' is not one of head, replicated; did you mean replicated?");
  // A family of names (coll's algorithm table), a path, free text: the layer that reads them checks them.
  EXPECT_EQ(problem("HERALD_ALGORITHM", "binomal"), "");
  EXPECT_EQ(problem("HERALD_TRACE", "/proc/nope"), "");
  EXPECT_EQ(problem("HERALD_EMULATE_NODES", "x"), "");
  // Every choice listed in full takes each of its own values.
  for (const Setting& s : settings()) {
    if (s.type != SettingType::choice || s.allowed.empty() || s.allowed.find('<') != std::string_view::npos) continue;
    for (std::size_t start = 0; start <= s.allowed.size();) {
      const std::size_t bar = std::min(s.allowed.find('|', start), s.allowed.size());
      EXPECT_EQ(value_problem(s, s.allowed.substr(start, bar - start)), std::nullopt) << s.name;
      start = bar + 1;
    }
  }
}

TEST(Settings, TheEnvironmentsValuesAreAmongItsProblems) {
  const std::vector<std::string> env = {"HERALD_SEGMENT_SIZE=10Q", "HERALD_VERBOSE=", "HERALD_RUNTIME_BCAST=dyn"};
  const std::vector<std::string> problems = environment_problems(env);  // an empty value is unset
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[0], "HERALD_RUNTIME_BCAST 'dyn' is not one of nobcast, p2p, mpibcast, mpibcast:herald, "
                         "dynbcast, auto; did you mean dynbcast?");
  EXPECT_EQ(problems[1], "HERALD_SEGMENT_SIZE '10Q' has an unknown unit (use K, M or G)");
}

// An error passed on inside another message names its code once.
TEST(Settings, AnErrorsMessageLeavesItsCodeOut) {
  const Error e(Errc::invalid_root, "root 5 is not a rank of 4");
  EXPECT_STREQ(e.what(), "invalid_root: root 5 is not a rank of 4");
  EXPECT_EQ(e.message(), "root 5 is not a rank of 4");
  EXPECT_EQ(Error(Errc::mpi, "").message(), "");
}

TEST(Settings, EnvironmentWinsOverFormerNameOverProgramDefault) {
  ::unsetenv("HERALD_RUNTIME_LOG");
  ::unsetenv("HERALD_RT_LOG");
  EXPECT_EQ(setting_value("HERALD_RUNTIME_LOG").source, SettingSource::unset);
  set_program_default("HERALD_RUNTIME_LOG", "1");
  EXPECT_EQ(setting_value("HERALD_RUNTIME_LOG").source, SettingSource::program);
  EXPECT_EQ(setting_value("HERALD_RUNTIME_LOG").text, "1");
  ::setenv("HERALD_RT_LOG", "0", 1);
  EXPECT_EQ(setting_value("HERALD_RUNTIME_LOG").source, SettingSource::former_name);
  EXPECT_EQ(setting_value("HERALD_RUNTIME_LOG").text, "0");
  ::setenv("HERALD_RUNTIME_LOG", "yes", 1);
  EXPECT_EQ(setting_value("HERALD_RUNTIME_LOG").source, SettingSource::environment);
  EXPECT_TRUE(environment_switch("HERALD_RUNTIME_LOG"));
  ::setenv("HERALD_RUNTIME_LOG", "", 1);  // empty is unset
  EXPECT_EQ(setting_value("HERALD_RUNTIME_LOG").source, SettingSource::former_name);
  ::unsetenv("HERALD_RUNTIME_LOG");
  ::unsetenv("HERALD_RT_LOG");
  set_program_default("HERALD_RUNTIME_LOG", "");
  EXPECT_EQ(setting_value("HERALD_RUNTIME_LOG").source, SettingSource::unset);
}

TEST(Settings, ReadsOnlyWhatIsDeclared) {
  EXPECT_THROW(setting_value("HERALD_UNDECLARED"), Error);
  EXPECT_THROW(environment("HERALD_UNDECLARED"), Error);
  EXPECT_THROW(set_program_default("HERALD_UNDECLARED", "1"), Error);
  EXPECT_THROW(setting_value("HERALD_RT_LOG"), Error) << "code reads the current name, not the former one";
  // The test suite's own variables are read undeclared.
  ::setenv("HERALD_TEST_SETTINGS_PROBE", "7", 1);
  EXPECT_EQ(environment("HERALD_TEST_SETTINGS_PROBE"), "7");
  ::unsetenv("HERALD_TEST_SETTINGS_PROBE");
  EXPECT_EQ(environment("HERALD_TEST_SETTINGS_PROBE"), std::nullopt);
}

}  // namespace
}  // namespace herald
