// herald-info: every HERALD_* setting herald knows (the settings registry, <herald/settings.hpp>), its value
// in this environment and where the value comes from, the build (herald's version, the MPI library, the
// optional parts) and what is wrong with the environment (docs/configuration.md, "herald-info"). --json
// prints the same for tools. Runs without mpiexec: of MPI it asks only the library's version, which MPI
// answers before MPI_Init.
#include <herald/algorithms.hpp>
#include <herald/error.hpp>
#include <herald/selector.hpp>
#include <herald/settings.hpp>
#include <herald/tuning.hpp>

#include <mpi.h>
#include <nlohmann/json.hpp>

#include "cli.hpp"

#include <unistd.h>  // environ

#include <algorithm>
#include <array>
#include <filesystem>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr std::array<std::string_view, 8> components = {"coll", "dyn", "runtime", "trace", "balance",
                                                        "pmpi", "tests", "scripts"};

// The model auto starts from when a cost-model variable is not set: a readable tuning file's, else the
// preset HERALD_PRESET names, else herald's built-in one (the order of coll's context).
struct ModelOrigin {
  std::string source = "default";  // "tuning file", "preset" or "default"
  std::string from;                // the file or the preset
  herald::CostModel model{};
};

// A file measured with another MPI library is refused by every job here (or, with HERALD_TUNING_FALLBACK=1,
// set aside): herald-info says so and goes on as the job would without it. `library` is the first line of
// MPI_Get_library_version.
ModelOrigin model_origin(const std::string& library, std::vector<std::string>& problems) {
  ModelOrigin origin;
  if (const auto path = herald::setting_value("HERALD_TUNING_FILE").text) {
    std::ifstream in(*path);
    if (!in) {
      problems.push_back("tuning file '" + *path + "' (HERALD_TUNING_FILE) cannot be read");
    } else {
      std::ostringstream text;
      text << in.rdbuf();
      try {
        const herald::Tuning tuning = herald::parse_tuning(text.str(), *path);
        // As a job records its library (this_job_layout): up to the first comma, without trailing blanks.
        std::string name = library.substr(0, library.find(','));
        while (!name.empty() && (name.back() == ' ' || name.back() == '\t')) name.pop_back();
        const herald::TuningLayout job{.mpi_library = name, .ranks = 1, .ranks_per_node = 0};
        if (const auto mismatch = herald::layout_mismatch(tuning.layout, job)) {
          problems.push_back("tuning file '" + *path + "': " + *mismatch);
        } else {
          origin.model = tuning.intra_node;
          origin.source = "tuning file";
          origin.from = *path;
          return origin;
        }
      } catch (const herald::Error& e) {
        problems.push_back(e.message());
      }
    }
  }
  // A preset that is not one of the choices is among the environment's problems already.
  if (const auto name = herald::setting_value("HERALD_PRESET").text;
      name && !herald::value_problem(*herald::find_setting("HERALD_PRESET"), *name)) {
    origin.model = herald::cost_preset(*name).model;
    origin.source = "preset";
    origin.from = *name;
  }
  return origin;
}

// What a job would refuse at its first call beyond what the registry checks (environment_problems): an
// algorithm name not in coll's table, a trace directory that cannot be written, a tuning file to write
// where no file can be made. The tuning file to read is model_origin's.
void add_layer_problems(std::vector<std::string>& problems) {
  // setting_value, not herald::environment(): that would also warn on stderr, as a job does.
  auto value = [](const char* name) { return herald::setting_value(name).text; };
  if (const auto algorithm = value("HERALD_ALGORITHM")) {
    try {
      herald::check_algorithm_choice(*algorithm, "HERALD_ALGORITHM");
    } catch (const herald::Error& e) {
      problems.push_back(e.message());
    }
  }
  // Whether something can be made in `folder`: made and removed again (permission bits alone do not tell,
  // for root nor on /proc).
  auto can_make_in = [](const std::filesystem::path& folder) {
    std::string probe = (folder / ".herald-info-XXXXXX").string();
    if (::mkdtemp(probe.data()) == nullptr) return false;
    ::rmdir(probe.c_str());
    return true;
  };
  // A directory or file is writable where it is, or can be made below the nearest folder that exists.
  auto writable = [&](const std::filesystem::path& path, bool directory) -> std::optional<std::string> {
    std::error_code ec;
    if (std::filesystem::exists(path, ec)) {
      if (directory != std::filesystem::is_directory(path, ec))
        return directory ? "is not a directory" : "is a directory";
      const bool ok = directory ? can_make_in(path) : ::access(path.c_str(), W_OK) == 0;
      return ok ? std::nullopt : std::optional<std::string>("cannot be written");
    }
    std::filesystem::path parent = std::filesystem::absolute(path, ec).parent_path();
    while (!parent.empty() && !std::filesystem::exists(parent, ec) && parent != parent.root_path())
      parent = parent.parent_path();
    if (!std::filesystem::is_directory(parent, ec) || !can_make_in(parent))
      return "cannot be made (nothing can be made in " + parent.string() + ")";
    return std::nullopt;
  };
  for (const auto& [name, directory] : {std::pair{"HERALD_TRACE", true}, std::pair{"HERALD_TUNING_LEARN", false}})
    if (const auto path = value(name))
      if (const auto why = writable(*path, directory)) problems.push_back(std::string(name) + " '" + *path + "' " + *why);
}

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

// The value of a cost-model setting in `model`, or nothing for a setting outside the model.
std::optional<std::string> model_value(std::string_view name, const herald::CostModel& model) {
  if (name == "HERALD_ALPHA") return number(model.alpha);
  if (name == "HERALD_BETA") return number(model.beta);
  if (name == "HERALD_GAP") return number(model.port_seconds());
  // A job across nodes prices its hops within a node with the file's (or preset's) model of the node.
  if (name == "HERALD_NODE_ALPHA") return number(model.node_alpha.value_or(model.alpha));
  if (name == "HERALD_NODE_BETA") return number(model.node_beta.value_or(model.beta));
  if (name == "HERALD_NETWORK") return std::string(model.network == herald::Network::fair_sharing ? "fair" : "ports");
  if (name == "HERALD_OVERHEAD") return number(model.overhead);
  if (name == "HERALD_EAGER_BYTES") return std::to_string(model.eager_bytes);
  return std::nullopt;
}

struct Row {
  const herald::Setting* setting;
  std::optional<std::string> value;
  std::string source;  // environment, former name, program default, tuning file, preset, default
  std::string from;    // the former name read, the tuning file, the preset; "" otherwise
};

Row row_of(const herald::Setting& s, const ModelOrigin& origin) {
  Row row{&s, std::nullopt, "default", ""};
  herald::SettingValue v = herald::setting_value(s.name);
  switch (v.source) {
    case herald::SettingSource::environment: row.source = "environment"; break;
    case herald::SettingSource::former_name:
      row.source = "former name";
      row.from = std::string(s.old_name);
      break;
    case herald::SettingSource::program: row.source = "program default"; break;
    case herald::SettingSource::unset:
      if (auto model = model_value(s.name, origin.model)) {
        v.text = std::move(model);
        row.source = origin.source;
        row.from = origin.from;
      }
      break;
  }
  row.value = std::move(v.text);
  return row;
}

struct Build {
  std::string version = HERALD_INFO_VERSION;
  std::string mpi_library;  // the first line of MPI_Get_library_version
  std::string mpi_version;  // the standard it implements, "3.1"
  bool otf2 = HERALD_INFO_OTF2 != 0;
  bool balance = HERALD_INFO_BALANCE != 0;
#ifdef SMPI_H  // SimGrid's mpi.h, which smpicxx builds compile against
  bool simgrid = true;
#else
  bool simgrid = false;
#endif
};

Build this_build() {
  Build build;
  char library[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  if (MPI_Get_library_version(library, &length) == MPI_SUCCESS) {
    build.mpi_library.assign(library, static_cast<std::size_t>(std::max(length, 0)));
    build.mpi_library = build.mpi_library.substr(0, build.mpi_library.find('\n'));
    while (!build.mpi_library.empty() && (build.mpi_library.back() == ' ' || build.mpi_library.back() == '\0'))
      build.mpi_library.pop_back();
  }
  int major = 0, minor = 0;
  if (MPI_Get_version(&major, &minor) == MPI_SUCCESS)
    build.mpi_version = std::to_string(major) + "." + std::to_string(minor);
  return build;
}

// In the order the text shows: a tool reading it by key does not mind, a person reading it does.
using Json = nlohmann::ordered_json;

Json as_json(const Build& build, const std::vector<Row>& rows, const std::vector<std::string>& problems) {
  auto text_or_null = [](std::string_view text) { return text.empty() ? Json() : Json(text); };
  Json settings = Json::array();
  for (const Row& row : rows) {
    const herald::Setting& s = *row.setting;
    settings.push_back({{"name", s.name},
                        {"value", row.value ? Json(*row.value) : Json()},
                        {"source", row.source},
                        {"from", text_or_null(row.from)},
                        {"type", herald::setting_type_name(s.type)},
                        {"allowed", s.allowed},
                        {"default", s.fallback},
                        {"component", s.component},
                        {"doc", s.doc},
                        {"former_name", text_or_null(s.old_name)}});
  }
  return {{"version", build.version},
          {"build",
           {{"mpi_library", build.mpi_library},
            {"mpi_version", build.mpi_version},
            {"otf2", build.otf2},
            {"ompt_balancer", build.balance},
            {"simgrid_smpi", build.simgrid}}},
          {"settings", std::move(settings)},
          {"problems", problems}};
}

void print_text(std::ostream& out, const Build& build, const std::vector<Row>& rows,
                const std::vector<std::string>& problems) {
  auto yes = [](bool b) { return b ? "yes" : "no"; };
  out << "herald " << build.version << "\n"
      << "MPI: " << build.mpi_library << " (MPI " << build.mpi_version << ")\n"
      << "built with: OTF2 traces " << yes(build.otf2) << ", OMPT thread balancer " << yes(build.balance)
      << ", SimGrid SMPI " << yes(build.simgrid) << "\n";
  std::string_view component;
  for (const Row& row : rows) {
    const herald::Setting& s = *row.setting;
    if (s.component != component) {
      component = s.component;
      out << "\n[" << component << "]\n";
    }
    out << s.name;
    if (row.value)
      out << " = " << *row.value << " (" << row.source << (row.from.empty() ? "" : " " + row.from)
          << (row.source == "former name" ? ", deprecated" : "") << ")\n";
    else
      out << " unset\n";
    out << "    " << herald::setting_type_name(s.type);
    if (!s.allowed.empty()) out << " " << s.allowed;
    out << "; default: " << (s.fallback.empty() ? "none" : s.fallback);
    if (!s.old_name.empty()) out << "; formerly " << s.old_name;
    out << "\n    " << s.doc << "\n";
  }
  out << "\n";
  if (problems.empty()) {
    out << "environment: no problems\n";
  } else {
    out << "environment problems:\n";
    for (const std::string& p : problems) out << "  " << p << "\n";
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Every HERALD_* setting: its value here and where it comes from, its type, allowed values, default "
               "and meaning; the build; what is wrong with the environment (docs/configuration.md)"};
  bool json = false;
  std::string component;
  std::string choices;
  for (std::string_view c : components) choices += (choices.empty() ? "" : ", ") + std::string(c);
  app.add_flag("--json", json, "print the same as one JSON object, for tools");
  app.add_option("--component", component, "only the settings of this component: " + choices)
      ->check(CLI::Validator(
          [&choices](std::string& text) {
            return std::ranges::find(components, text) != components.end()
                       ? std::string()
                       : "'" + text + "' is not one of " + choices;
          },
          ""))
      ->type_name("COMPONENT");
  if (const auto status = herald::cli::parse(app, argc, argv)) return *status;

  try {
    std::vector<std::string> variables;
    for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry)
      if (std::string_view(*entry).starts_with("HERALD_")) variables.emplace_back(*entry);
    std::vector<std::string> problems = herald::environment_problems(variables);
    add_layer_problems(problems);
    const Build build = this_build();
    const ModelOrigin origin = model_origin(build.mpi_library, problems);

    std::vector<Row> rows;
    for (const herald::Setting& s : herald::settings())
      if (component.empty() || s.component == component) rows.push_back(row_of(s, origin));

    if (json)
      std::cout << as_json(build, rows, problems).dump(2) << "\n";
    else
      print_text(std::cout, build, rows, problems);
    return problems.empty() ? 0 : 1;  // a script can stop on a bad environment before it launches a job
  } catch (const std::exception& e) {
    std::cerr << "herald-info: " << e.what() << "\n";
    return 1;
  }
}
