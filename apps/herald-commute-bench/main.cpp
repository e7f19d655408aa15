// herald-commute-bench: updates of one datum that become ready at staggered times, in the reverse of the
// order they were submitted, run as commute(data) and as inout(data), interleaved (docs/runtime.md,
// "Commutative updates").
//
//   mpiexec -n P herald-commute-bench [--updates 8] [--stagger 0.02] [--update 0.01] [--repetitions 5]
//
// Update i (1..n, submitted in that order) also reads a gate that a task makes after (n - i + 1) * stagger
// seconds; each update takes `update` seconds. Both are modelled kernels (TaskContext::occupy: on this
// machine their threads sleep, so the times hold on a loaded machine too), spread over the workers, with a
// thread for each. As inout, the updates run in submission order: the first waits for the last gate,
// then all n run one after another, about n * stagger + n * update. As commute, each runs as its gate
// opens, about n * stagger + update. Every update appends its number to the datum, and each run checks
// that all n are there, once each.
#include <herald/runtime/runtime.hpp>

#include "cli.hpp"
#include "statistics.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

double median(const std::vector<double>& v) { return herald::bench::spread_of(v).median; }

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int updates = 8;
  double stagger = 0.02, update = 0.01;
  int repetitions = 5;
  CLI::App app{"Commutative updates made ready at staggered times, against inout"};
  app.add_option("--updates", updates, "updates of the datum")->check(herald::cli::positive)->capture_default_str();
  app.add_option("--stagger", stagger, "seconds between the gates' opening")->check(CLI::NonNegativeNumber)->capture_default_str();
  app.add_option("--update", update, "seconds each update takes")->check(CLI::NonNegativeNumber)->capture_default_str();
  app.add_option("--repetitions", repetitions, "repetitions of each (median)")->check(herald::cli::positive)->capture_default_str();
  if (const auto status = herald::cli::parse(app, argc, argv, rank == 0)) {
    MPI_Finalize();
    return *status;
  }
  using namespace herald::runtime;
  int failures = 0;
  {
    Runtime rt(MPI_COMM_WORLD, {.threads = updates + 1, .scheduler = Scheduler::mapped});
    rt.kernel("gate", [](TaskContext& t) {
      t.occupy(t.argument<double>());
      t.out<std::int64_t>(0)[0] = 1;
    });
    rt.kernel("append", [](TaskContext& t) {
      t.occupy(t.argument<double>());
      auto log = t.inout<std::int64_t>(0);
      log[static_cast<std::size_t>(++log[0])] = t.argument<std::int64_t>(sizeof(double));
    });
    std::vector<double> seconds[2];
    for (int rep = 0; rep < repetitions; ++rep) {
      for (int as_commute = 1; as_commute >= 0; --as_commute) {
        std::vector<std::int64_t> log(static_cast<std::size_t>(updates) + 1, 0), gates(static_cast<std::size_t>(updates), 0);
        double took = 0;
        rt.run([&](Head& head) {
          const int workers = head.workers();
          const double start = MPI_Wtime();
          auto x = head.data(std::span(log), "log");
          head.enter(x);
          std::vector<Data> gate;
          for (int i = 1; i <= updates; ++i) {
            gate.push_back(head.data(std::span(gates).subspan(static_cast<std::size_t>(i - 1), 1), "gate" + std::to_string(i)));
            head.submit("gate", {out(gate.back())}, arguments((updates - i + 1) * stagger), {.worker = i % workers});
          }
          for (int i = 1; i <= updates; ++i)
            head.submit("append", {as_commute ? commute(x) : inout(x), in(gate[static_cast<std::size_t>(i - 1)])},
                        arguments(update, std::int64_t{i}), {.worker = (i + 1) % workers});
          head.exit(x);
          head.wait();
          took = MPI_Wtime() - start;
          std::vector<std::int64_t> ids(log.begin() + 1, log.end());
          std::sort(ids.begin(), ids.end());
          bool right = log[0] == updates;
          for (int i = 0; i < updates && right; ++i) right = ids[static_cast<std::size_t>(i)] == i + 1;
          if (!right) {
            std::fprintf(stderr, "herald-commute-bench: rank %d: %s updates logged %lld of %d, or some twice\n", rank,
                         as_commute ? "commute" : "inout", static_cast<long long>(log[0]), updates);
            ++failures;
          }
        });
        MPI_Allreduce(MPI_IN_PLACE, &took, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        seconds[as_commute].push_back(took);
      }
    }
    if (rank == 0) {
      std::printf("# herald-commute-bench: %d updates, gates %g s apart (reverse submission order), updates of %g s, "
                  "%s control, %d workers\n",
                  updates, stagger, update, to_string(rt.control()), rt.control() == Control::replicated ? rt.size() : std::max(1, rt.size() - 1));
      std::printf("# model: commute %.3f s (n * stagger + update), inout %.3f s (n * stagger + n * update)\n",
                  updates * stagger + update, updates * stagger + updates * update);
      std::printf("repetition,commute_s,inout_s\n");
      for (int r = 0; r < repetitions; ++r) std::printf("%d,%.6f,%.6f\n", r, seconds[1][r], seconds[0][r]);
      const double c = median(seconds[1]), i = median(seconds[0]);
      std::printf("median commute_s %.6f inout_s %.6f ratio inout/commute %.4f\n", c, i, i / c);
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return failures ? 1 : 0;
}
