#include "mpi_graph.hpp"

#include "output.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace herald::taskbench {
namespace {

void check(int rc, const char* call) {
  if (rc != MPI_SUCCESS) throw std::runtime_error(std::string(call) + " failed");
}

// One graph's points on this rank, their buffers, and the requests in flight.
class RankGraph {
 public:
  RankGraph(const TaskGraph& g, MPI_Comm comm) : g_(g), comm_(comm) {
    check(MPI_Comm_rank(comm, &rank_), "MPI_Comm_rank");
    check(MPI_Comm_size(comm, &size_), "MPI_Comm_size");
    // A message's tag is its producer's point.
    int* tag_ub = nullptr;
    int has_ub = 0;
    check(MPI_Comm_get_attr(comm, MPI_TAG_UB, &tag_ub, &has_ub), "MPI_Comm_get_attr");
    const long largest_tag = has_ub ? *tag_ub : 32767;
    if (g.max_width - 1 > largest_tag)
      throw std::invalid_argument("-width " + std::to_string(g.max_width) + " needs MPI tags up to " +
                                  std::to_string(g.max_width - 1) + "; this MPI's largest is " +
                                  std::to_string(largest_tag));
    const auto width = static_cast<std::size_t>(g.max_width);
    outputs_.assign(2, std::vector<std::vector<std::byte>>(width));
    inputs_.resize(width);
    input_points_.resize(width);
    scratch_.resize(width);
    for (long p = 0; p < g.max_width; ++p) {
      if (!mine(p)) continue;
      for (auto& parity : outputs_) parity[static_cast<std::size_t>(p)].resize(g.output_bytes_per_task);
      if (g.scratch_bytes_per_task > 0) {
        scratch_[static_cast<std::size_t>(p)].resize(g.scratch_bytes_per_task);
        prepare_scratch(scratch_[static_cast<std::size_t>(p)]);
      }
    }
    if (g.broadcast_bytes > 0) {
      broadcast_.resize(g.broadcast_bytes);
      if (rank_ == 0) write_broadcast(g, broadcast_);
    }
  }

  void run() {
    // The broadcast buffer goes from rank 0 to every rank in each pass, as the runtime's head enters it
    // at the start of each pass: both systems' times include it.
    constexpr std::size_t most = std::numeric_limits<int>::max();
    for (std::size_t at = 0; at < broadcast_.size(); at += most)
      check(MPI_Bcast(broadcast_.data() + at, static_cast<int>(std::min(most, broadcast_.size() - at)), MPI_BYTE, 0,
                      comm_),
            "MPI_Bcast");
    for (long t = 0; t < g_.timesteps; ++t) {
      receive_inputs(t);
      execute_row(t);
      send_outputs(t);
    }
    wait(sends_);
  }

 private:
  int owner(long point) const { return static_cast<int>(point * size_ / g_.max_width); }
  bool mine(long point) const { return owner(point) == rank_; }

  void wait(std::vector<MPI_Request>& requests) {
    check(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
    requests.clear();
  }

  // Posts the receives of row t's remote inputs, then waits for them and for row t-1's sends (whose
  // buffers row t+1 overwrites). A producer's message carries its point as tag; MPI's ordering between
  // two ranks keeps rows apart.
  void receive_inputs(long t) {
    const long offset = g_.offset_at_timestep(t), width = g_.width_at_timestep(t);
    for (long p = offset; p < offset + width; ++p) {
      if (!mine(p)) continue;
      std::vector<long>& points = input_points_[static_cast<std::size_t>(p)];
      points = g_.input_points(t, p);
      auto& buffers = inputs_[static_cast<std::size_t>(p)];
      if (buffers.size() < points.size()) buffers.resize(points.size(), std::vector<std::byte>(g_.output_bytes_per_task));
      for (std::size_t i = 0; i < points.size(); ++i) {
        if (mine(points[i])) continue;
        receives_.emplace_back();
        check(MPI_Irecv(buffers[i].data(), static_cast<int>(buffers[i].size()), MPI_BYTE, owner(points[i]),
                        static_cast<int>(points[i]), comm_, &receives_.back()),
              "MPI_Irecv");
      }
    }
    wait(receives_);
    wait(sends_);
  }

  void execute_row(long t) {
    const long offset = g_.offset_at_timestep(t), width = g_.width_at_timestep(t);
    const auto& previous = outputs_[static_cast<std::size_t>((t + 1) % 2)];
    std::vector<std::span<const std::byte>> received;
    for (long p = offset; p < offset + width; ++p) {
      if (!mine(p)) continue;
      const auto pi = static_cast<std::size_t>(p);
      const std::vector<long>& points = input_points_[pi];  // receive_inputs() listed them
      received.clear();
      for (std::size_t i = 0; i < points.size(); ++i)
        received.push_back(mine(points[i]) ? std::span<const std::byte>(previous[static_cast<std::size_t>(points[i])])
                                           : std::span<const std::byte>(inputs_[pi][i]));
      if (auto fault = check_inputs(g_, t, p, received)) throw std::runtime_error(fault->message());
      if (g_.broadcast_bytes > 0)
        if (auto fault = check_broadcast(g_, t, p, broadcast_)) throw std::runtime_error(fault->message());
      execute_kernel(g_, t, p, scratch_[pi]);
      write_output(t, p, outputs_[static_cast<std::size_t>(t % 2)][pi]);
    }
  }

  void send_outputs(long t) {
    const long offset = g_.offset_at_timestep(t), width = g_.width_at_timestep(t);
    const auto& current = outputs_[static_cast<std::size_t>(t % 2)];
    for (long p = offset; p < offset + width; ++p) {
      if (!mine(p)) continue;
      const auto& output = current[static_cast<std::size_t>(p)];
      for (long c : g_.consumer_points(t, p)) {
        if (mine(c)) continue;
        sends_.emplace_back();
        check(MPI_Isend(output.data(), static_cast<int>(output.size()), MPI_BYTE, owner(c), static_cast<int>(p), comm_,
                        &sends_.back()),
              "MPI_Isend");
      }
    }
  }

  const TaskGraph& g_;
  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 1;
  std::vector<std::vector<std::vector<std::byte>>> outputs_;  // [parity][point], this rank's points only
  std::vector<std::vector<std::vector<std::byte>>> inputs_;   // [point][input]: remote inputs land here
  std::vector<std::vector<long>> input_points_;               // [point]: the current row's inputs
  std::vector<std::vector<std::byte>> scratch_;               // [point]
  std::vector<std::byte> broadcast_;
  std::vector<MPI_Request> receives_, sends_;
};

// The duplicated communicator, freed on every way out.
struct OwnComm {
  MPI_Comm comm = MPI_COMM_NULL;
  explicit OwnComm(MPI_Comm parent) { check(MPI_Comm_dup(parent, &comm), "MPI_Comm_dup"); }
  ~OwnComm() { MPI_Comm_free(&comm); }
  OwnComm(const OwnComm&) = delete;
  OwnComm& operator=(const OwnComm&) = delete;
};

}  // namespace

double run_on_mpi(std::span<const TaskGraph> graphs, MPI_Comm comm, int passes) {
  const OwnComm own(comm);
  std::vector<RankGraph> ranks;
  ranks.reserve(graphs.size());
  for (const TaskGraph& g : graphs) ranks.emplace_back(g, own.comm);
  double elapsed = 0;
  for (int pass = 0; pass < passes; ++pass) {
    check(MPI_Barrier(own.comm), "MPI_Barrier");
    const double start = MPI_Wtime();
    for (RankGraph& r : ranks) r.run();
    check(MPI_Barrier(own.comm), "MPI_Barrier");
    elapsed = MPI_Wtime() - start;
  }
  return elapsed;
}

}  // namespace herald::taskbench
