// Reading and writing tuning files (include/herald/tuning.hpp); the schema is in docs/tuning.md.
#include <herald/algorithms.hpp>
#include <herald/error.hpp>
#include <herald/tuning.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace herald {
namespace {

using nlohmann::json;

// A file's parameter: 0 there means unset (the algorithm's default).
template <typename T = std::size_t>
std::optional<T> set_if_positive(std::size_t value) {
  return value > 0 ? std::optional(static_cast<T>(value)) : std::nullopt;
}

// Reads one file; every failure names the file and the field.
class Reader {
 public:
  explicit Reader(std::string_view source) : source_(source) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw Error(Errc::invalid_argument, "tuning file '" + source_ + "': " + what);
  }

  const json& field(const json& object, const char* name, const std::string& where) const {
    if (!object.is_object()) fail(where + " is not an object");
    const auto it = object.find(name);
    if (it == object.end()) fail(where + " has no \"" + name + "\"");
    return *it;
  }

  double seconds(const json& object, const char* name, const std::string& where, bool positive) const {
    const json& v = field(object, name, where);
    if (!v.is_number()) fail(where + "." + name + " is not a number");
    const double x = v.get<double>();
    if (!std::isfinite(x) || x < 0 || (positive && x == 0))
      fail(where + "." + name + " must be " + (positive ? "positive" : "non-negative") + ", not " + v.dump());
    return x;
  }

  std::size_t count(const json& object, const char* name, const std::string& where) const {
    const json& v = field(object, name, where);
    if (!v.is_number_unsigned()) fail(where + "." + name + " is not a non-negative integer");
    return v.get<std::size_t>();
  }

  int positive_int(const json& object, const char* name, const std::string& where) const {
    const std::size_t n = count(object, name, where);
    if (n < 1 || n > static_cast<std::size_t>(std::numeric_limits<int>::max()))
      fail(where + "." + name + " must be a positive int, not " + std::to_string(n));
    return static_cast<int>(n);
  }

  std::string text(const json& object, const char* name, const std::string& where) const {
    const json& v = field(object, name, where);
    if (!v.is_string()) fail(where + "." + name + " is not a string");
    return v.get<std::string>();
  }

  CostModel model(const json& v, const std::string& where) const {
    CostModel m{.alpha = seconds(v, "alpha", where, true),
                .beta = seconds(v, "beta", where, true),
                .gap = seconds(v, "gap", where, false)};  // written as port_seconds(): always there
    // What herald-tune measures besides; a file without them (an older herald-tune's) keeps the defaults.
    if (v.contains("network")) {
      const std::string network = text(v, "network", where);
      if (network == "fair") m.network = Network::fair_sharing;
      else if (network != "ports") fail(where + ".network '" + network + "' is neither 'ports' nor 'fair'");
    }
    if (v.contains("overhead")) m.overhead = seconds(v, "overhead", where, false);
    if (v.contains("eager_bytes")) m.eager_bytes = count(v, "eager_bytes", where);
    return m;
  }

 private:
  std::string source_;
};

json model_json(const CostModel& m) {
  return {{"alpha", m.alpha},
          {"beta", m.beta},
          {"gap", m.port_seconds()},
          {"network", m.network == Network::fair_sharing ? "fair" : "ports"},
          {"overhead", m.overhead},
          {"eager_bytes", m.eager_bytes}};
}

}  // namespace

Tuning parse_tuning(std::string_view text, std::string_view source) {
  const Reader r(source);
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    r.fail(std::string("not JSON: ") + e.what());
  }
  const std::size_t version = r.count(doc, "tuning_version", "the file");
  if (version != tuning_version)
    r.fail("tuning_version " + std::to_string(version) + ", but this herald reads version " +
           std::to_string(tuning_version) + ": measure again with this herald's herald-tune");
  Tuning t;
  const json& layout = r.field(doc, "layout", "the file");
  t.layout = {.mpi_library = r.text(layout, "mpi_library", "layout"),
              .ranks = r.positive_int(layout, "ranks", "layout"),
              .ranks_per_node = r.positive_int(layout, "ranks_per_node", "layout")};
  const json& model = r.field(doc, "model", "the file");
  t.intra_node = r.model(r.field(model, "intra_node", "model"), "model.intra_node");
  if (const auto it = model.find("inter_node"); it != model.end() && !it->is_null())
    t.inter_node = r.model(*it, "model.inter_node");
  const json& cells = r.field(doc, "cells", "the file");
  if (!cells.is_array()) r.fail("cells is not an array");
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const json& c = cells[i];
    const std::string where = "cells[" + std::to_string(i) + "]";
    TuningCell cell{.ranks = r.positive_int(c, "ranks", where),
                    .bytes = r.count(c, "bytes", where),
                    .algorithm = r.text(c, "algorithm", where),
                    .parameters = {.segment = set_if_positive(r.count(c, "segment", where)),
                                   .fanout = set_if_positive<int>(r.count(c, "fanout", where)),
                                   .radix = set_if_positive<int>(r.count(c, "radix", where)),
                                   .node_size = set_if_positive<int>(r.count(c, "node_size", where))},
                    .seconds = r.seconds(c, "seconds", where, false),
                    .native_seconds = r.seconds(c, "native_seconds", where, false)};
    if (c.contains("leaders")) {  // node-aware algorithms only; older files have none
      const std::string stage = r.text(c, "leaders", where);
      try {
        cell.parameters.leaders = parse_leader_stage(stage, "leaders");
      } catch (const Error&) {
        r.fail(where + ".leaders '" + stage + "' is not a stage among node leaders");
      }
    }
    if (cell.algorithm != "native") {
      try {
        find_algorithm(cell.algorithm);
      } catch (const Error&) {
        r.fail(where + ".algorithm '" + cell.algorithm + "' is not an algorithm of this herald");
      }
    }
    t.cells.push_back(std::move(cell));
  }
  std::ranges::sort(t.cells, {}, [](const TuningCell& c) { return std::pair{c.ranks, c.bytes}; });
  for (std::size_t i = 1; i < t.cells.size(); ++i)
    if (t.cells[i].ranks == t.cells[i - 1].ranks && t.cells[i].bytes == t.cells[i - 1].bytes)
      r.fail("two cells for " + std::to_string(t.cells[i].ranks) + " ranks and " + std::to_string(t.cells[i].bytes) +
             " bytes");
  return t;
}

std::string tuning_json(const Tuning& t) {
  json cells = json::array();
  for (const TuningCell& c : t.cells) {
    json cell = {{"ranks", c.ranks},
                 {"bytes", c.bytes},
                 {"algorithm", c.algorithm},
                 {"segment", c.parameters.segment.value_or(0)},
                 {"fanout", c.parameters.fanout.value_or(0)},
                 {"radix", c.parameters.radix.value_or(0)},
                 {"node_size", c.parameters.node_size.value_or(0)},
                 {"seconds", c.seconds},
                 {"native_seconds", c.native_seconds}};
    if (c.parameters.leaders) cell["leaders"] = leader_stage_name(*c.parameters.leaders);
    cells.push_back(std::move(cell));
  }
  const json doc = {
      {"tuning_version", tuning_version},
      {"layout",
       {{"mpi_library", t.layout.mpi_library}, {"ranks", t.layout.ranks}, {"ranks_per_node", t.layout.ranks_per_node}}},
      {"model",
       {{"intra_node", model_json(t.intra_node)},
        {"inter_node", t.inter_node ? model_json(*t.inter_node) : json(nullptr)}}},
      {"cells", cells}};
  return doc.dump(2) + "\n";
}

namespace {

// |log2(a / b)|, sizes and rank counts compared in ratio; from 1, so that 0 bytes is nearest the smallest cell.
double log_distance(std::size_t a, std::size_t b) {
  return std::abs(std::log2(static_cast<double>(std::max<std::size_t>(a, 1))) -
                  std::log2(static_cast<double>(std::max<std::size_t>(b, 1))));
}

// Whether a cell speaks for a job of `fit`. Cells of no more ranks than the file's ranks per node were
// measured within one node; the others across nodes, laid out as the file's job was.
bool applies(const Tuning& t, const TuningFit& fit, const TuningCell& c) {
  const bool within_a_node = c.ranks <= t.layout.ranks_per_node;
  return fit.spans_nodes ? fit.node_cells : within_a_node;
}

// The rank count of the applicable cells nearest `ranks`, within a factor of two (more ranks on a tie), or 0.
int nearest_ranks(const Tuning& t, const TuningFit& fit, int ranks) {
  int best = 0;
  double best_distance = 1.0;
  for (const TuningCell& c : t.cells) {
    if (!applies(t, fit, c)) continue;
    const double distance = log_distance(static_cast<std::size_t>(ranks), static_cast<std::size_t>(c.ranks));
    if (distance > best_distance) continue;
    if (best == 0 || distance < best_distance || (distance == best_distance && c.ranks > best)) {
      best = c.ranks;
      best_distance = distance;
    }
  }
  return best;
}

}  // namespace

const TuningCell* find_cell(const Tuning& t, const TuningFit& fit, int ranks, std::size_t bytes) {
  const int measured_ranks = nearest_ranks(t, fit, ranks);
  if (measured_ranks == 0) return nullptr;
  const TuningCell* best = nullptr;
  double best_distance = 1.0;  // within a factor of two
  for (const TuningCell& c : t.cells) {
    if (c.ranks != measured_ranks || !applies(t, fit, c)) continue;
    const double distance = log_distance(bytes, c.bytes);
    if (distance <= best_distance && (!best || distance < best_distance)) {
      best = &c;
      best_distance = distance;
    }
  }
  return best;
}

const TuningCell* find_cell(const Tuning& t, int ranks, std::size_t bytes) {
  return find_cell(t, TuningFit{.spans_nodes = true, .node_cells = true, .unused = {}}, ranks, bytes);
}

std::optional<std::string> layout_mismatch(const TuningLayout& file, const TuningLayout& job) {
  if (file.mpi_library != job.mpi_library)
    return "measured with '" + file.mpi_library + "', but this job runs '" + job.mpi_library + "'";
  return std::nullopt;
}

TuningFit fit_tuning(const Tuning& t, const TuningLayout& job) {
  TuningFit fit;
  const int per_node = t.layout.ranks_per_node;
  // Every rank of a job across nodes counts fewer ranks on its node than in the job, and every rank of a
  // one-node job counts them all: the same answer everywhere, partly filled last node included.
  fit.spans_nodes = job.ranks_per_node > 0 ? job.ranks_per_node < job.ranks : job.ranks > per_node;
  if (fit.spans_nodes) {
    // The file's ranks per node lay this job out only if the file itself spanned nodes (a one-node file's
    // count is just its job's size) and this job fills whole nodes of that many.
    const bool laid_as_file = t.inter_node && per_node > 0 && job.ranks % per_node == 0;
    fit.node_cells = laid_as_file;
    if (!t.inter_node)
      fit.unused.push_back("it was measured on one node and has no model of the network, which this job across "
                           "nodes prices with herald's defaults (HERALD_PRESET, HERALD_ALPHA, HERALD_BETA set them)");
    else if (!laid_as_file)
      fit.unused.push_back("it was measured with " + std::to_string(per_node) + " ranks per node, and this job of " +
                           std::to_string(job.ranks) + " ranks is not laid out so: its cells across nodes do not apply");
  } else {
    fit.node_cells = false;
  }
  if (!t.cells.empty() && job.ranks >= 2 && (!fit.spans_nodes || fit.node_cells)) {
    const int measured = nearest_ranks(t, fit, job.ranks);
    const std::string ranks = std::to_string(job.ranks);
    if (measured == 0)
      fit.unused.push_back("it has no cells within a factor of two of " + ranks +
                           " ranks: auto prices with the file's model");
    else if (measured != job.ranks)
      fit.unused.push_back("it has no cells for " + ranks + " ranks: auto takes those for " +
                           std::to_string(measured) + " ranks, the nearest");
  }
  return fit;
}

}  // namespace herald
