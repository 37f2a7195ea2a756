#include "mpi/mpi_communicator.h"

#include <mpi.h>

#include <algorithm>
#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/environment.hpp>
#include <boost/mpi/inplace.hpp>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace chaintag {
namespace {

// Collectives take int counts; larger arrays go in slices.
constexpr int64_t kSlice = int64_t{1} << 28;

// MPI_Init on first use, MPI_Finalize at exit.
boost::mpi::communicator World() {
  // Only the thread that calls Train talks to MPI; the trainers' worker threads never do.
  static boost::mpi::environment environment(boost::mpi::threading::funneled);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  return boost::mpi::communicator();
}

// Counts one collective in `stats` for as long as it lives.
class Timed {
 public:
  Timed(Communicator::Stats* stats, int64_t bytes) : stats_(stats) {
    ++stats_->calls;
    stats_->bytes += bytes;
  }
  ~Timed() {
    stats_->seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  Communicator::Stats* stats_;
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

class MpiCommunicator : public Communicator {
 public:
  MpiCommunicator() : world_(World()) {}
  int rank() const override { return world_.rank(); }
  int size() const override { return world_.size(); }

  void SumInt64(absl::Span<int64_t> values) override {
    Timed timed(&stats_, static_cast<int64_t>(values.size() * sizeof(int64_t)));
    for (size_t at = 0; at < values.size(); at += kSlice) {
      const int n = static_cast<int>(std::min<int64_t>(kSlice, values.size() - at));
      boost::mpi::all_reduce(world_, boost::mpi::inplace(values.data() + at), n,
                             std::plus<int64_t>());
    }
  }

  void OrBits(absl::Span<uint64_t> values) override {
    Timed timed(&stats_, static_cast<int64_t>(values.size() * sizeof(uint64_t)));
    for (size_t at = 0; at < values.size(); at += kSlice) {
      const int n = static_cast<int>(std::min<int64_t>(kSlice, values.size() - at));
      boost::mpi::all_reduce(world_, boost::mpi::inplace(values.data() + at), n,
                             std::bit_or<uint64_t>());
    }
  }

  std::vector<std::string> AllGather(std::string_view bytes) override {
    Timed timed(&stats_, static_cast<int64_t>(bytes.size()));
    std::vector<int64_t> sizes;
    boost::mpi::all_gather(world_, static_cast<int64_t>(bytes.size()), sizes);
    std::vector<std::string> parts(sizes.size());
    for (size_t r = 0; r < sizes.size(); ++r) parts[r].resize(sizes[r]);
    // Rank by rank as broadcasts of slices, so no count exceeds an int.
    for (int r = 0; r < size(); ++r) {
      if (r == rank()) parts[r].assign(bytes);
      for (int64_t at = 0; at < sizes[r]; at += kSlice) {
        const int n = static_cast<int>(std::min<int64_t>(kSlice, sizes[r] - at));
        MPI_Bcast(parts[r].data() + at, n, MPI_CHAR, r, world_);
      }
    }
    return parts;
  }

  void Broadcast(std::string* bytes, int root) override {
    int64_t n = static_cast<int64_t>(bytes->size());
    boost::mpi::broadcast(world_, n, root);
    if (rank() != root) bytes->resize(n);
    Timed timed(&stats_, n);
    for (int64_t at = 0; at < n; at += kSlice) {
      MPI_Bcast(bytes->data() + at, static_cast<int>(std::min<int64_t>(kSlice, n - at)), MPI_CHAR,
                root, world_);
    }
  }

  std::string SendTo(std::string_view bytes, int from, int to) override {
    if (rank() != from && rank() != to) return std::string();
    if (from == to) return std::string(bytes);
    constexpr int kTag = 29;
    if (rank() == from) {
      Timed timed(&stats_, static_cast<int64_t>(bytes.size()));
      int64_t n = static_cast<int64_t>(bytes.size());
      MPI_Send(&n, 1, MPI_INT64_T, to, kTag, world_);
      for (int64_t at = 0; at < n; at += kSlice) {
        MPI_Send(bytes.data() + at, static_cast<int>(std::min<int64_t>(kSlice, n - at)), MPI_CHAR,
                 to, kTag, world_);
      }
      return std::string();
    }
    Timed timed(&stats_, 0);
    int64_t n = 0;
    MPI_Recv(&n, 1, MPI_INT64_T, from, kTag, world_, MPI_STATUS_IGNORE);
    std::string out(static_cast<size_t>(n), '\0');
    for (int64_t at = 0; at < n; at += kSlice) {
      MPI_Recv(out.data() + at, static_cast<int>(std::min<int64_t>(kSlice, n - at)), MPI_CHAR, from,
               kTag, world_, MPI_STATUS_IGNORE);
    }
    return out;
  }

  void Barrier() override {
    Timed timed(&stats_, 0);
    world_.barrier();
  }

 private:
  boost::mpi::communicator world_;
};

}  // namespace

bool LaunchedByMpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "PMI_RANK"}) {
    if (std::getenv(name) != nullptr) return true;
  }
  return false;
}

std::unique_ptr<Communicator> MakeMpiCommunicator() { return std::make_unique<MpiCommunicator>(); }

void AbortMpiJob(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

}  // namespace chaintag
