// herald-dyn-late-receive: receives posted after their messages have arrived, the transparent receive's
// other half, against MPI_Recv of messages waiting inside MPI.
//
// Rank 0 starts --messages sends of one size to rank 1, back to back, by the endpoint's send (one
// recipient) and, in the same repetition, by MPI_Isend. After a barrier (rank 1 has not polled its
// endpoint since the previous repetition), rank 1 receives them one after another with the endpoint's recv
// and with MPI_Recv, while rank 0 waits for its sends. Each side's time per message (for rank 0, starting
// the sends); medians over the repetitions, min and max, and the ratios to MPI. The data is checked in an
// untimed pass first. Sizes are at most herald's inline limit, so that a message is whole in its frame
// before its receive is posted; MPI has it whole below its own eager limit. Message i has tag i.
//
// With --held, rank 1 first polls its endpoint until the last message is there, as a progress thread
// would: every message has then been taken out of its frame and held before its receive is posted.
#ifdef exit
#undef exit
#endif
#include <herald/config.hpp>
#include <herald/dyn/endpoint.hpp>
#include <herald/error.hpp>

#include "cli.hpp"
#include "mpi_main.hpp"
#include "statistics.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace {

enum class Method { herald, mpi };

struct Times {
  double send = 0;     // rank 0, per message
  double receive = 0;  // rank 1, per message
};

// Message `i` of a repetition: bytes that depend on its number, so a message taken by the wrong receive
// shows.
std::byte expected(std::size_t i, std::size_t at) { return static_cast<std::byte>((i * 131 + at * 7 + 3) & 0xff); }

// One repetition of one method; `check` also verifies every byte received (the untimed pass).
Times run_once(Method m, herald::dyn::Endpoint& endpoint, MPI_Comm comm, std::vector<std::vector<std::byte>>& data,
               bool held, bool check) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const std::vector<int> to{1};
  Times t;
  std::vector<herald::dyn::Request> sent;
  std::vector<MPI_Request> isent;
  MPI_Barrier(comm);
  if (rank == 0) {
    sent.reserve(data.size());
    isent.reserve(data.size());
    const double t0 = MPI_Wtime();
    for (std::size_t i = 0; i < data.size(); ++i) {
      const int tag = static_cast<int>(i);
      if (m == Method::herald) {
        sent.push_back(endpoint.send(data[i], to, tag));
      } else {
        MPI_Request request;
        MPI_Isend(data[i].data(), static_cast<int>(data[i].size()), MPI_BYTE, 1, tag, comm, &request);
        isent.push_back(request);
      }
    }
    t.send = (MPI_Wtime() - t0) / static_cast<double>(data.size());
  }
  MPI_Barrier(comm);  // every send has started before rank 1 posts a receive
  if (rank == 0) {
    for (auto& request : sent) request.wait();
    MPI_Waitall(static_cast<int>(isent.size()), isent.data(), MPI_STATUSES_IGNORE);
  }
  if (rank == 1) {
    // A message is matchable only once every earlier one from its origin has arrived.
    const int last = static_cast<int>(data.size()) - 1;
    if (held && m == Method::herald)
      while (!endpoint.iprobe(0, last)) endpoint.progress();
    const double t0 = MPI_Wtime();
    for (std::size_t i = 0; i < data.size(); ++i) {
      const int tag = static_cast<int>(i);
      if (m == Method::herald) {
        endpoint.recv(data[i], 0, tag);
      } else {
        MPI_Recv(data[i].data(), static_cast<int>(data[i].size()), MPI_BYTE, 0, tag, comm, MPI_STATUS_IGNORE);
      }
    }
    t.receive = (MPI_Wtime() - t0) / static_cast<double>(data.size());
    if (check)
      for (std::size_t i = 0; i < data.size(); ++i)
        for (std::size_t at = 0; at < data[i].size(); ++at)
          if (data[i][at] != expected(i, at))
            throw herald::Error(herald::Errc::invalid_argument, std::string(m == Method::herald ? "herald" : "MPI") +
                                                                    " delivered wrong data in message " +
                                                                    std::to_string(i));
  }
  return t;
}

// "median [min, max]" of herald's and of MPI's repetitions, then their ratio, marked when the ranges overlap.
std::string cells(const std::vector<double>& herald, const std::vector<double>& mpi) {
  const herald::bench::Spread a = herald::bench::spread_of(herald), b = herald::bench::spread_of(mpi);
  const bool apart = herald::bench::compare(a, b) != herald::bench::Verdict::not_distinguishable;
  char text[160];
  std::snprintf(text, sizeof text, "%.3f [%.3f, %.3f] | %.3f [%.3f, %.3f] | %.2f%s", a.median, a.min, a.max, b.median,
                b.min, b.max, a.median / b.median, apart ? "" : " (n.d.)");
  return text;
}

int run(int argc, char** argv) {
  CLI::App app{"Receives posted after their messages arrived: herald's transparent receive against MPI_Recv"};
  std::vector<std::string> size_texts{"8", "1K"};
  int reps = 15, messages = 32;
  std::string csv_path = "late_receive.csv";
  bool held = false;
  app.add_option("--sizes", size_texts, "message sizes (K suffix), each at most 8 KiB")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--messages", messages,
                 "messages waiting per repetition (past 64 unfinished sends, herald queues the rest on rank 0 "
                 "until it polls)")
      ->capture_default_str();
  app.add_option("--reps", reps, "repetitions (median, min, max over them)")->capture_default_str();
  app.add_flag("--held", held,
               "rank 1 polls its endpoint until every message is there before posting a receive, as a progress "
               "thread would, so that each is held first");
  app.add_option("--csv", csv_path, "raw results, one row per repetition, side and method")->capture_default_str();
  if (const auto status = herald::cli::parse(app, argc, argv, herald::bench::world_rank_zero())) return *status;
  std::vector<std::size_t> sizes;
  int rank = 0, size = 0;
  herald::bench::check_usage([&] {
    if (reps < 1) throw herald::Error(herald::Errc::invalid_argument, "--reps must be at least 1");
    // Message i has tag i, and every MPI allows tags up to 32767.
    if (messages < 1 || messages > 4096)
      throw herald::Error(herald::Errc::invalid_argument,
                          "--messages " + std::to_string(messages) + " is not in 1..4096");
    const std::size_t max_inline = herald::dyn::Options{}.max_inline;
    for (const auto& t : size_texts) {
      sizes.push_back(herald::parse_bytes(t, "--sizes"));
      if (sizes.back() > max_inline)
        throw herald::Error(herald::Errc::invalid_argument,
                            "--sizes " + t + " is above the " + std::to_string(max_inline) +
                                " bytes that travel inside their frame, so it cannot wait whole for its receive");
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2)
      throw herald::Error(herald::Errc::invalid_argument, "needs exactly 2 ranks, not " + std::to_string(size));
  });

  // Frame slots of the default size whatever HERALD_DYN_FRAME_SLOT says, as the figures in the docs assume.
  herald::dyn::Endpoint endpoint(MPI_COMM_WORLD, {.frame_slot = 16 * 1024});
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  std::ofstream csv;
  if (rank == 0) {
    csv.open(csv_path);
    csv << "bytes,messages,side,method,rep,us_per_message\n";
    std::printf("%d messages waiting per repetition%s, %d repetitions; microseconds per message: median [min, max]\n\n",
                messages, held ? ", held by herald before their receives" : "", reps);
    std::printf("| size | send: herald | send: MPI_Isend | ratio | receive: herald | receive: MPI_Recv | ratio |\n"
                "|---|---|---|---|---|---|---|\n");
  }
  for (std::size_t bytes : sizes) {
    std::vector<std::vector<std::byte>> data(static_cast<std::size_t>(messages), std::vector<std::byte>(bytes));
    auto fill = [&] {
      for (std::size_t i = 0; i < data.size(); ++i)
        for (std::size_t at = 0; at < bytes; ++at) data[i][at] = rank == 0 ? expected(i, at) : std::byte{0};
    };
    for (Method m : {Method::herald, Method::mpi}) {
      fill();
      run_once(m, endpoint, comm, data, held, true);
    }
    std::vector<double> send[2], receive[2];
    for (int rep = 0; rep < reps; ++rep) {
      for (Method m : {Method::herald, Method::mpi}) {
        const Times t = run_once(m, endpoint, comm, data, held, false);
        // Rank 1's time reaches rank 0 for the table (rank 0 adds its 0).
        double receive_time = 0;
        MPI_Reduce(&t.receive, &receive_time, 1, MPI_DOUBLE, MPI_SUM, 0, comm);
        if (rank == 0) {
          const int k = m == Method::herald ? 0 : 1;
          send[k].push_back(t.send * 1e6);
          receive[k].push_back(receive_time * 1e6);
          const char* name = m == Method::herald ? "herald" : "mpi";
          csv << bytes << ',' << messages << ",send," << name << ',' << rep << ',' << t.send * 1e6 << '\n';
          csv << bytes << ',' << messages << ",receive," << name << ',' << rep << ',' << receive_time * 1e6 << '\n';
        }
      }
    }
    if (rank == 0) {
      std::printf("| %zu | %s | %s |\n", bytes, cells(send[0], send[1]).c_str(), cells(receive[0], receive[1]).c_str());
    }
  }
  MPI_Comm_free(&comm);
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return herald::bench::mpi_main(argc, argv, "herald-dyn-late-receive", run); }
