// herald-sim: builds one algorithm's schedule, runs it in memory and prints what it costs.
#include <herald/algorithms.hpp>
#include <herald/config.hpp>
#include <herald/error.hpp>
#include <herald/decision.hpp>
#include <herald/simulator.hpp>

#include "cli.hpp"

#include <nlohmann/json.hpp>

#include <iostream>
#include <vector>

namespace {

// The preset's model, with each option the command line gave kept; its typical node as the node size
// unless --node-size is given.
herald::CostModel with_preset(const herald::CostPreset& preset, const herald::CostModel& given, const CLI::App& app,
                              herald::Problem& problem) {
  herald::CostModel m = preset.model;
  auto keep = [&](const char* option, auto member) {
    if (app.count(option) > 0) m.*member = given.*member;
  };
  keep("--alpha", &herald::CostModel::alpha);
  keep("--beta", &herald::CostModel::beta);
  keep("--gap", &herald::CostModel::gap);
  keep("--network", &herald::CostModel::network);
  keep("--overhead", &herald::CostModel::overhead);
  keep("--eager", &herald::CostModel::eager_bytes);
  keep("--node-alpha", &herald::CostModel::node_alpha);
  keep("--node-beta", &herald::CostModel::node_beta);
  if (app.count("--node-size") == 0) problem.parameters.node_size = preset.ranks_per_node;
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Simulate a herald broadcast schedule: delivery check, counts and alpha-beta cost"};
  std::string algorithm = "binomial", bytes_text = "1";
  herald::Problem problem;
  std::string segment_text, leaders_text;
  herald::CostModel model;
  bool json = false;
  app.add_option("--algorithm", algorithm,
                 "algorithm name: " + herald::algorithm_names() +
                     "; or auto: what auto picks under this cost model (algorithm and parameters), simulated")
      ->required();
  app.add_option("--ranks", problem.ranks, "number of ranks P")->required();
  app.add_option("--bytes", bytes_text, "bytes broadcast (K/M/G suffixes)")->required();
  app.add_option("--root", problem.root, "root rank")->capture_default_str();
  app.add_option("--segment", segment_text, "segment size (K/M/G suffixes)");
  app.add_option("--fanout", problem.parameters.fanout, "chains leaving the root (chain)");
  app.add_option("--radix", problem.parameters.radix, "tree radix (knomial)");
  app.add_option("--node-size", problem.parameters.node_size, "ranks per node, consecutive (hierarchical)");
  std::vector<int> fat_tree{0, 0};
  app.add_option("--fat-tree", fat_tree,
                 "fair: L,U: a two-level fat tree of leaves of L nodes, each linked once to each of U top switches "
                 "(SimGrid's FAT_TREE \"2;L,S;1,U;1,1\"; L/U to 1 oversubscribed); a node is --node-size ranks")
      ->delimiter(',')
      ->expected(2);
  int alternatives = 0;
  app.add_option("--alternatives", alternatives,
                 "with --algorithm auto: also simulate the N algorithms auto ranked next, at the parameters it priced "
                 "them with (alternative_K_* lines)")
      ->check(CLI::NonNegativeNumber);
  std::string placement = "blocks";
  app.add_option("--placement", placement,
                 "with --node-size: blocks (a node's ranks consecutive, the algorithms' node size) or cyclic (rank "
                 "r on node r mod nodes, as a launcher's round-robin places them; the layout herald finds)")
      ->check(CLI::IsMember({"blocks", "cyclic"}))
      ->capture_default_str();
  app.add_option("--leaders", leaders_text,
                 "the stage among node leaders of node_pipeline and node_shared: " + herald::leader_stage_names() +
                     " (default chain; auto prices every one)");
  app.add_option("--alpha", model.alpha, "seconds per message")->capture_default_str();
  app.add_option("--gap", model.gap, "seconds a message holds its ports besides its bytes (default: --alpha)");
  app.add_option("--beta", model.beta, "seconds per byte")->capture_default_str();
  std::string network = "ports", eager_text = "0";
  herald::SendWindow window;
  app.add_option("--network", network,
                 "ports (one message per port at a time) or fair (links shared fairly, sends under the window)")
      ->check(CLI::IsMember({"ports", "fair"}))
      ->capture_default_str();
  app.add_option("--overhead", model.overhead, "fair: seconds of a rank's time per send and per receive")
      ->capture_default_str();
  app.add_option("--eager", eager_text, "fair: largest send that completes when posted (K/M/G suffixes)")
      ->capture_default_str();
  app.add_option("--window", window.per_rank, "fair: sends in flight per rank")
      ->check(herald::cli::positive)
      ->capture_default_str();
  app.add_option("--window-per-peer", window.per_peer, "fair: sends in flight per rank to one peer")
      ->check(herald::cli::positive)
      ->capture_default_str();
  app.add_option("--node-alpha", model.node_alpha,
                 "seconds per message within a node, for auto's price of the node-aware algorithms (default: --alpha)");
  app.add_option("--node-beta", model.node_beta, "seconds per byte within a node (default: --beta)");
  std::string preset;
  app.add_option("--preset", preset,
                 "a built-in model of a typical machine (" + herald::cost_preset_names() +
                     "): its network and node figures, and its typical node's ranks as --node-size; the options "
                     "above that are given win");
  app.add_flag("--json", json, "print JSON instead of key=value lines");
  if (const auto status = herald::cli::parse(app, argc, argv)) return *status;

  try {
    problem.bytes = herald::parse_bytes(bytes_text, "--bytes");
    model.eager_bytes = herald::parse_bytes(eager_text, "--eager");
    model.network = network == "fair" ? herald::Network::fair_sharing : herald::Network::ports;
    if (!preset.empty()) model = with_preset(herald::cost_preset(preset, "--preset"), model, app, problem);
    if (!segment_text.empty()) problem.parameters.segment = herald::parse_bytes(segment_text, "--segment");
    if (!leaders_text.empty()) problem.parameters.leaders = herald::parse_leader_stage(leaders_text, "--leaders");
    if (fat_tree[0] != 0 || fat_tree[1] != 0) {
      if (fat_tree[0] < 1 || fat_tree[1] < 1)
        throw herald::Error(herald::Errc::invalid_argument, "--fat-tree takes two positive counts, L,U");
      if (model.network != herald::Network::fair_sharing)
        throw herald::Error(herald::Errc::invalid_argument, "--fat-tree needs --network fair");
    }
    // The nodes the network shares links by, for every algorithm (the node size is a parameter only the
    // node-aware ones read): what herald finds from the host names.
    if (const auto per_node = problem.parameters.node_size; per_node && *per_node >= 1 && problem.ranks >= 1) {
      if (placement == "cyclic") {
        if (problem.ranks % *per_node != 0)
          throw herald::Error(herald::Errc::invalid_argument,
                              "--placement cyclic needs --ranks a multiple of --node-size, not " +
                                  std::to_string(problem.ranks) + " and " + std::to_string(*per_node));
        problem.layout = herald::NodeLayout::cyclic(problem.ranks, problem.ranks / *per_node);
        problem.parameters.node_size.reset();
      } else {
        problem.layout = herald::NodeLayout::blocks(problem.ranks, *per_node);
      }
    } else if (placement == "cyclic") {
      throw herald::Error(herald::Errc::invalid_argument, "--placement cyclic needs --node-size");
    }
    if (alternatives > 0 && algorithm != "auto")
      throw herald::Error(herald::Errc::invalid_argument, "--alternatives needs --algorithm auto");
    const herald::Platform platform{.hosts = problem.layout, .leaf_nodes = fat_tree[0], .uplinks = fat_tree[1]};
    double closed_form = -1;
    std::vector<herald::Choice> others;
    if (algorithm == "auto") {
      // As a call decides with no tuning file (decide()); the layout is --node-size's, without node memory.
      herald::AutoQuestion question;
      question.problem = problem;
      question.model = model;
      const herald::Decision decision = herald::decide(question);
      algorithm = decision.choice.algorithm->name;
      problem.parameters = decision.choice.parameters;
      closed_form = decision.choice.seconds;
      const auto shown = std::min<std::size_t>(static_cast<std::size_t>(alternatives), decision.alternatives.size());
      others.assign(decision.alternatives.begin(), decision.alternatives.begin() + static_cast<std::ptrdiff_t>(shown));
    }
    const auto& info = herald::find_algorithm(algorithm);
    const herald::Schedule schedule = herald::make_schedule(info, problem);
    const herald::Simulation sim = herald::simulate(schedule, model, window, platform);
    const auto& q = schedule.problem;
    nlohmann::ordered_json out{
        {"algorithm", std::string(info.name)},
        {"ranks", q.ranks},
        {"root", q.root},
        {"bytes", q.bytes},
        {"segment", q.parameters.segment.value_or(0)},
        {"fanout", q.parameters.fanout.value_or(0)},
        {"radix", q.parameters.radix.value_or(0)},
        {"node_size", q.parameters.node_size.value_or(0)},
        {"nodes", herald::node_counts(q).nodes},
        {"leaders", herald::leader_stage_name(q.parameters.leaders)},
        {"delivered", sim.delivered ? "yes" : "no"},
        {"messages", sim.messages},
        {"bytes_on_wire", sim.bytes},
        {"redundant_bytes", sim.redundant_bytes},
        {"rounds", sim.rounds},
        {"predicted_us", sim.predicted_seconds * 1e6},
        {"lower_bound_us", sim.lower_bound_seconds * 1e6},
    };
    if (closed_form >= 0) out["auto_priced_us"] = closed_form * 1e6;  // auto's own closed-form price
    if (!sim.delivered) out["problem"] = sim.problem;
    for (std::size_t k = 0; k < others.size(); ++k) {
      herald::Problem given = problem;
      given.parameters = others[k].parameters;
      std::cerr << "herald-sim: alternative " << k + 1 << ": " << others[k].algorithm->name << ", segment "
                << others[k].parameters.segment.value_or(0) << "\n";
      const herald::Schedule alternative = herald::make_schedule(*others[k].algorithm, given);
      const herald::Simulation run = herald::simulate(alternative, model, window, platform);
      const auto& p = alternative.problem.parameters;
      const std::string prefix = "alternative_" + std::to_string(k + 1) + "_";
      out[prefix + "algorithm"] = std::string(others[k].algorithm->name);
      out[prefix + "segment"] = p.segment.value_or(0);
      out[prefix + "leaders"] = herald::leader_stage_name(p.leaders);
      out[prefix + "priced_us"] = others[k].seconds * 1e6;
      out[prefix + "predicted_us"] = run.delivered ? run.predicted_seconds * 1e6 : -1.0;
    }
    if (json) {
      std::cout << out.dump(2) << "\n";
    } else {
      for (auto& [key, value] : out.items())
        std::cout << key << "=" << (value.is_string() ? value.get<std::string>() : value.dump()) << "\n";
    }
    return sim.delivered ? 0 : 3;
  } catch (const herald::Error& e) {
    std::cerr << "herald-sim: " << e.what() << "\n";
    return 2;
  }
}
