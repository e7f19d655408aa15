// CLI11 for herald's programs, and the one way they read a command line with it. What every program
// promises (docs/README.md, "The programs' command lines"): --help prints every option on standard output
// and exits 0; a refused command line (an unknown option, a bad value, a missing required option) prints
// one line on standard error naming the problem and exits 2.
//
// Also under SimGrid's smpicxx, which force-includes smpi/smpi_helpers.h: that header defines exit(x) as a
// one-argument macro (so that a rank's exit() ends only that simulated process); CLI11 declares and
// callers use App::exit with up to three arguments, which the macro would swallow. The macro is set aside
// while CLI11 is read and restored after, so a plain exit() elsewhere still reaches SMPI; call the member
// as (app.exit)(...) so the macro cannot expand there.
#pragma once

#pragma push_macro("exit")
#undef exit
#include <CLI/CLI.hpp>
#pragma pop_macro("exit")

#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

namespace herald::cli {

// The exit status of a refused command line.
inline constexpr int usage_status = 2;

// Checks that say what they want (CLI11 2.1's PositiveNumber and NonNegativeNumber name the largest double
// as their bound): a number above 0, a number of at least 0.
inline CLI::Validator number_check(bool (*fits)(double), const char* what) {
  return CLI::Validator(
      [fits, what](std::string& text) {
        double value = 0;
        if (!CLI::detail::lexical_cast(text, value) || !fits(value)) return "'" + text + "' is not " + what;
        return std::string();
      },
      "");
}
inline const CLI::Validator positive = number_check([](double v) { return v > 0; }, "a positive number");
inline const CLI::Validator non_negative = number_check([](double v) { return v >= 0; }, "a number of at least 0");

// "<program>: <problem> (--help lists the options)", on one line whatever the problem's text holds.
inline std::string refusal(std::string_view program, std::string_view problem) {
  std::string line(program);
  line += ": ";
  for (const char c : problem) {
    if (c == '\n') {
      if (!line.empty() && line.back() != ' ') line += "; ";
    } else {
      line += c;
    }
  }
  while (!line.empty() && (line.back() == ' ' || line.back() == ';')) line.pop_back();
  return line + " (--help lists the options)";
}

// Parses the command line into `app`. Returns nothing when the program should go on; otherwise the status
// to exit with: 0 after --help (the help on `out`), usage_status after a refused command line (one line on
// `err`). An app without a name takes its program's file name, for its help and its refusals.
inline std::optional<int> parse(CLI::App& app, int argc, const char* const* argv, std::ostream& out,
                                std::ostream& err) {
  if (app.get_name().empty() && argc > 0) app.name(std::filesystem::path(argv[0]).filename().string());
  try {
    app.parse(argc, argv);
    return std::nullopt;
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) {  // --help (or --help-all, --version)
      (app.exit)(e, out, err);
      return 0;
    }
    err << refusal(app.get_name(), e.what()) << std::endl;
    return usage_status;
  }
}

// The same on standard output and error, printed only where `speak`: every rank of an MPI program reads
// the same command line and reaches the same outcome, and rank 0 alone tells.
inline std::optional<int> parse(CLI::App& app, int argc, const char* const* argv, bool speak = true) {
  if (speak) return parse(app, argc, argv, std::cout, std::cerr);
  std::ostringstream quiet;
  return parse(app, argc, argv, quiet, quiet);
}

}  // namespace herald::cli
