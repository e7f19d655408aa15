// The runtime's settings resolved without MPI: the program's value over the environment's over the default,
// and every bad value refused by name.
#include "runtime_settings.hpp"

#include <herald/error.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace herald::runtime::detail {
namespace {

// Sets one variable for a test's scope, and unsets it after.
class Variable {
 public:
  Variable(const char* name, const char* value) : name_(name) { ::setenv(name, value, 1); }
  ~Variable() { ::unsetenv(name_); }
  Variable(const Variable&) = delete;
  Variable& operator=(const Variable&) = delete;

 private:
  const char* name_;
};

std::string refusal(const Options& options) {
  try {
    (void)RuntimeSettings::resolve(options);
  } catch (const Error& e) {
    return e.what();
  }
  return "accepted";
}

// The variables these tests read, unset so that the caller's environment cannot change what they see.
void unset_all() {
  for (const char* name : {"HERALD_RUNTIME_THREADS", "HERALD_RUNTIME_CONTROL", "HERALD_RUNTIME_SCHEDULER",
                           "HERALD_RUNTIME_TIMEOUT", "HERALD_RUNTIME_IDLE_SLEEP", "HERALD_RUNTIME_BCAST",
                           "HERALD_RUNTIME_BCAST_SYNC", "HERALD_RUNTIME_TREES", "HERALD_RUNTIME_REDUCE",
                           "HERALD_RUNTIME_LOG", "HERALD_RUNTIME_INJECT", "HERALD_TRACE"})
    ::unsetenv(name);
}

TEST(RuntimeSettings, DefaultsWhereNothingIsGiven) {
  unset_all();
  const RuntimeSettings s = RuntimeSettings::resolve({});
  EXPECT_EQ(s.threads, Runtime::default_threads());
  EXPECT_EQ(s.control, Control::head);
  EXPECT_EQ(s.scheduler, Scheduler::heft);
  EXPECT_EQ(s.worker_timeout, 60);
  EXPECT_EQ(s.heartbeat, 1);  // a tenth of the timeout, at most 1 s
  EXPECT_EQ(s.idle_sleep, 50e-6);
  EXPECT_EQ(s.broadcast, BroadcastStrategy::nobcast);
  EXPECT_FALSE(s.broadcast_sync);
  EXPECT_EQ(s.trees, BroadcastTrees::dyn);
  EXPECT_EQ(s.reduction, ReductionStrategy::automatic);
  EXPECT_FALSE(s.log);
  EXPECT_TRUE(s.trace.empty());
  EXPECT_FALSE(s.inject);
}

TEST(RuntimeSettings, TheEnvironmentWhereTheProgramGivesNothing) {
  unset_all();
  Variable threads("HERALD_RUNTIME_THREADS", "3"), control("HERALD_RUNTIME_CONTROL", "replicated"),
      scheduler("HERALD_RUNTIME_SCHEDULER", "round_robin"), timeout("HERALD_RUNTIME_TIMEOUT", "5"),
      bcast("HERALD_RUNTIME_BCAST", "dynbcast"), reduce("HERALD_RUNTIME_REDUCE", "scatter"),
      trees("HERALD_RUNTIME_TREES", "planned"), log("HERALD_RUNTIME_LOG", "1"),
      inject("HERALD_RUNTIME_INJECT", "stall:2"), trace("HERALD_TRACE", "/tmp/somewhere");
  const RuntimeSettings s = RuntimeSettings::resolve({});
  EXPECT_EQ(s.threads, 3);
  EXPECT_EQ(s.control, Control::replicated);
  EXPECT_EQ(s.scheduler, Scheduler::round_robin);
  EXPECT_EQ(s.worker_timeout, 5);
  EXPECT_EQ(s.heartbeat, 0.5);
  EXPECT_EQ(s.broadcast, BroadcastStrategy::dynbcast);
  EXPECT_EQ(s.reduction, ReductionStrategy::scatter);
  EXPECT_EQ(s.trees, BroadcastTrees::planned);
  EXPECT_TRUE(s.log);
  ASSERT_TRUE(s.inject);
  EXPECT_EQ(s.inject->first, "stall");
  EXPECT_EQ(s.inject->second, 2);
  EXPECT_EQ(s.trace, "/tmp/somewhere");
  // The program's own values win.
  const RuntimeSettings given = RuntimeSettings::resolve(
      {.threads = 0, .control = Control::head, .scheduler = Scheduler::mapped, .worker_timeout = 100, .heartbeat = 2,
       .broadcast = BroadcastStrategy::p2p, .trees = BroadcastTrees::spread, .trace = "", .reduction = ReductionStrategy::tree});
  EXPECT_EQ(given.threads, 0);
  EXPECT_EQ(given.control, Control::head);
  EXPECT_EQ(given.scheduler, Scheduler::mapped);
  EXPECT_EQ(given.worker_timeout, 100);
  EXPECT_EQ(given.heartbeat, 2);
  EXPECT_EQ(given.broadcast, BroadcastStrategy::p2p);
  EXPECT_EQ(given.trees, BroadcastTrees::spread);
  EXPECT_TRUE(given.trace.empty());
  EXPECT_EQ(given.reduction, ReductionStrategy::tree);
}

TEST(RuntimeSettings, BadValuesAreRefusedByName) {
  unset_all();
  {
    Variable v("HERALD_RUNTIME_BCAST", "dyn");
    EXPECT_NE(refusal({}).find("HERALD_RUNTIME_BCAST"), std::string::npos) << refusal({});
  }
  {
    Variable v("HERALD_RUNTIME_TREES", "chain");
    EXPECT_NE(refusal({}).find("HERALD_RUNTIME_TREES"), std::string::npos) << refusal({});
  }
  {
    Variable v("HERALD_RUNTIME_SCHEDULER", "hef");
    EXPECT_NE(refusal({}).find("HERALD_RUNTIME_SCHEDULER"), std::string::npos) << refusal({});
  }
  {
    Variable v("HERALD_RUNTIME_TIMEOUT", "0");
    EXPECT_NE(refusal({}).find("HERALD_RUNTIME_TIMEOUT"), std::string::npos) << refusal({});
  }
  {
    Variable v("HERALD_RUNTIME_INJECT", "stall");
    EXPECT_NE(refusal({}).find("HERALD_RUNTIME_INJECT='stall'"), std::string::npos) << refusal({});
  }
  {
    // An unknown variable only where the program asks for strict settings.
    Variable v("HERALD_RUNTIME_NOT_A_SETTING", "1");
    EXPECT_EQ(refusal({}), "accepted");
    Variable strict("HERALD_STRICT_SETTINGS", "1");
    EXPECT_NE(refusal({}).find("HERALD_RUNTIME_NOT_A_SETTING"), std::string::npos) << refusal({});
  }
  EXPECT_NE(refusal({.threads = -1}).find("Options::threads"), std::string::npos);
  EXPECT_NE(refusal({.heartbeat = 0}).find("Options::heartbeat"), std::string::npos);
  EXPECT_NE(refusal({.idle_sleep = -1}).find("Options::idle_sleep"), std::string::npos);
  EXPECT_NE(refusal({.control = Control::replicated, .broadcast_sync = true}).find("need head control"), std::string::npos);
}

}  // namespace
}  // namespace herald::runtime::detail
