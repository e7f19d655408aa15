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
    if (!s.old_name.empty()) EXPECT_TRUE(names.insert(s.old_name).second) << s.old_name << " declared twice";
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
