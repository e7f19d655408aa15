// herald-dyn-transport-floor: what the dynamic broadcast's transport costs by itself, without herald.
//
// Between ranks 0 and 1, a plain MPI_Send / MPI_Recv against the same bytes sent the way herald's channel
// sends a small message: copied behind a header-sized prefix into one frame, MPI_Isend, and received into
// a ring of persistent receives from any source (taken in ring order, handled slots posted again while the
// receiver waits), then copied out into the user's buffer. Interleaved in every repetition, OSU-style
// timing (a barrier before each message, the slower rank's average); medians and their ratio. The gap
// between this and herald-dynbcast-bench's figure at one recipient is herald's own protocol work.
#ifdef exit
#undef exit
#endif
#include <herald/config.hpp>

#include "cli.hpp"
#include "mpi_main.hpp"
#include "statistics.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr int slot_count = 8;
constexpr std::size_t slot_bytes = 16 * 1024;
constexpr std::size_t prefix_bytes = 68;  // herald's frame and header for a message without a route

// Frames land in a ring of persistent receives, as in herald's channel.
class Ring {
 public:
  explicit Ring(MPI_Comm comm) : bytes_(slot_count * slot_bytes), requests_(slot_count) {
    for (int i = 0; i < slot_count; ++i) {
      MPI_Recv_init(bytes_.data() + i * slot_bytes, slot_bytes, MPI_BYTE, MPI_ANY_SOURCE, 1, comm, &requests_[i]);
      MPI_Start(&requests_[i]);
    }
  }
  ~Ring() {
    rearm();
    for (MPI_Request& r : requests_) {
      MPI_Cancel(&r);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
      MPI_Request_free(&r);
    }
  }
  // Waits for the next frame and copies its payload out.
  void receive(std::vector<char>& into) {
    for (;;) {
      if (unarmed_ >= slot_count / 2) rearm();
      int flag = 0;
      MPI_Test(&requests_[next_], &flag, MPI_STATUS_IGNORE);
      if (flag) break;
      rearm();
    }
    std::memcpy(into.data(), bytes_.data() + next_ * slot_bytes + prefix_bytes, into.size());
    ++unarmed_;
    next_ = (next_ + 1) % slot_count;
  }

 private:
  void rearm() {
    for (; unarmed_ > 0; --unarmed_) MPI_Start(&requests_[(next_ + slot_count - unarmed_) % slot_count]);
  }
  std::vector<char> bytes_;
  std::vector<MPI_Request> requests_;
  int next_ = 0, unarmed_ = 0;
};


int run(int argc, char** argv) {
  CLI::App app{"The dynamic broadcast's transport alone against MPI_Send/MPI_Recv, between ranks 0 and 1"};
  std::vector<std::string> size_texts{"8", "1K"};
  int reps = 15, iterations = 1000;
  app.add_option("--sizes", size_texts, "message sizes (K/M suffixes), each at most 16 KiB less the prefix")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--reps", reps, "repetitions (median over them)")->capture_default_str();
  app.add_option("--iterations", iterations, "messages per repetition")->capture_default_str();
  if (const auto status = herald::cli::parse(app, argc, argv, herald::bench::world_rank_zero())) return *status;
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<std::size_t> sizes;
  herald::bench::check_usage([&] {
    if (size != 2) throw std::invalid_argument("needs exactly 2 ranks");
    if (reps < 1 || iterations < 1) throw std::invalid_argument("--reps and --iterations must be at least 1");
    for (const std::string& text : size_texts) {
      sizes.push_back(herald::parse_bytes(text, "--sizes"));
      if (sizes.back() + prefix_bytes > slot_bytes)
        throw std::invalid_argument("--sizes " + text + " does not fit a slot");
    }
  });
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  {
    Ring ring(comm);
    if (rank == 0) std::printf("| size | MPI_Send/MPI_Recv (us) | frame + slot ring (us) | ratio |\n|---|---|---|---|\n");
    for (std::size_t which = 0; which < sizes.size(); ++which) {
      const std::size_t bytes = sizes[which];
      std::vector<char> user(bytes, 'h'), frame(bytes + prefix_bytes);
      std::vector<double> plain, framed;
      for (int rep = 0; rep < reps; ++rep) {
        for (int method = 0; method < 2; ++method) {
          double total = 0;
          for (int i = 0; i < iterations; ++i) {
            MPI_Barrier(MPI_COMM_WORLD);
            const double t0 = MPI_Wtime();
            if (method == 0 && rank == 0) {
              MPI_Send(user.data(), static_cast<int>(bytes), MPI_BYTE, 1, 0, comm);
            } else if (method == 0) {
              MPI_Recv(user.data(), static_cast<int>(bytes), MPI_BYTE, 0, 0, comm, MPI_STATUS_IGNORE);
            } else if (rank == 0) {
              std::memcpy(frame.data() + prefix_bytes, user.data(), bytes);
              MPI_Request request;
              MPI_Isend(frame.data(), static_cast<int>(frame.size()), MPI_BYTE, 1, 1, comm, &request);
              MPI_Wait(&request, MPI_STATUS_IGNORE);
            } else {
              ring.receive(user);
            }
            total += MPI_Wtime() - t0;
          }
          double mine = total / iterations * 1e6, slower = 0;
          MPI_Allreduce(&mine, &slower, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
          (method == 0 ? plain : framed).push_back(slower);
        }
      }
      if (rank == 0) {
        const double a = herald::bench::spread_of(plain).median, b = herald::bench::spread_of(framed).median;
        std::printf("| %s | %.3f | %.3f | %.2f |\n", size_texts[which].c_str(), a, b, b / a);
      }
    }
    MPI_Barrier(MPI_COMM_WORLD);  // both ranks are done sending before the ring's receives are cancelled
  }
  MPI_Comm_free(&comm);
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return herald::bench::mpi_main(argc, argv, "herald-dyn-transport-floor", run); }
