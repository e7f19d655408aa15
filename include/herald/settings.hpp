// The settings registry: every HERALD_* environment variable herald reads, declared once with its type,
// default, allowed values, component and one line of documentation. herald reads them only through it
// (herald::environment() and the parsers of <herald/config.hpp>), `herald-info` lists them, and
// docs/configuration.md is checked against it.
#pragma once

#include <herald/error.hpp>

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace herald {

enum class SettingType { switch_, count, bytes, seconds, choice, path, list, text };

// The type's name as herald-info and the docs print it: "switch", "count", ...
std::string_view setting_type_name(SettingType type);

struct Setting {
  std::string_view name;       // HERALD_...
  SettingType type;
  std::string_view fallback;   // the default, in words ("" when unset means off or none)
  std::string_view allowed;    // choices ("head|replicated"), a range ("1.."), or "" when the type says it all
  std::string_view component;  // coll, dyn, runtime, trace, balance, pmpi, tests, scripts
  std::string_view doc;        // one line
  std::string_view old_name;   // a former name still read, with a warning; "" when none
};

// Every setting, in the order of docs/configuration.md.
std::span<const Setting> settings();

// The setting of that name (or former name), or nullptr.
const Setting* find_setting(std::string_view name);

// The known name nearest `name` by edit distance (for "did you mean ...?"), or "" when none is close.
std::string_view nearest_setting(std::string_view name);

// The name among `names` nearest `name`: the shortest that begins with it (a name cut short), else the
// nearest by edit distance, or "" when none is a few letters off or closer.
std::string_view nearest_name(std::string_view name, std::span<const std::string_view> names);

// herald's one wording for a name that is not among the choices, naming what was given (a variable, an
// option, a kernel): "HERALD_RUNTIME_BCAST 'dyn' is not one of nobcast, p2p, ...; did you mean dynbcast?".
std::string not_one_of(std::string_view what, std::string_view given, std::span<const std::string_view> choices);

// What is wrong with `value` for setting `s`, naming the variable ("HERALD_SEGMENT_SIZE '10Q' has an unknown
// unit (use K, M or G)"), or nullopt when its type and allowed values accept it. Checks switches, counts,
// byte counts, seconds, ranges ("1..") and choices listed in full; a choice that names a family
// ("<an algorithm of the table>"), a path, a list or free text is checked by the layer that reads it.
std::optional<std::string> value_problem(const Setting& s, std::string_view value);

// Where a setting's value comes from, as herald-info reports it.
enum class SettingSource { unset, environment, former_name, program };

struct SettingValue {
  std::optional<std::string> text;  // set and not empty
  SettingSource source = SettingSource::unset;
};

// Looks a registered setting up: the environment under its own name, else under its former name, else the
// program's default (set_program_default). Throws Error(invalid_argument) for a name that is not registered
// (a read that bypasses the registry), except the test suite's own HERALD_TEST_* variables.
SettingValue setting_value(std::string_view name);

// A program's own default for a setting, which the environment still overrides: how a program configures
// herald without touching the environment (herald-bcast-bench gives auto the alpha and beta it measured).
// Takes effect for readers that have not read the setting yet (herald reads most at its first call). Throws
// Error(invalid_argument) for a name that is not registered.
void set_program_default(std::string_view name, std::string value);

// What is wrong with the process's HERALD_* environment: one message per variable herald does not know
// ("HERALD_ALGORITM (set to 'chain') is not a herald setting; did you mean HERALD_ALGORITHM?"), per former name in use
// ("HERALD_RT_BCAST is deprecated: use HERALD_RUNTIME_BCAST") and per value its setting refuses
// (value_problem()). Variables under HERALD_TEST_ belong to herald's test suite and are not checked.
std::vector<std::string> environment_problems(std::span<const std::string> environment);

}  // namespace herald
