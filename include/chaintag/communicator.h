// The processes a job runs on (ranks 0..size()-1) and the collective operations data-parallel
// training and tagging need. One process is size() == 1 (or a null Communicator*, which every
// caller treats the same way); MakeMpiCommunicator (src/mpi, built when MPI is found) gives the
// ranks of `mpirun`. Every rank must make the same calls in the same order. A failed exchange
// (a rank died) ends the whole job through MPI's fatal error handler: no rank can go on alone.
#ifndef CHAINTAG_COMMUNICATOR_H_
#define CHAINTAG_COMMUNICATOR_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/types/span.h"

namespace chaintag {

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Element-wise sum (wrapping like the int64 sums of one process) over all ranks, in place.
  virtual void SumInt64(absl::Span<int64_t> values) = 0;
  // Element-wise bitwise OR over all ranks, in place.
  virtual void OrBits(absl::Span<uint64_t> values) = 0;
  // Every rank's `bytes`, in rank order.
  virtual std::vector<std::string> AllGather(std::string_view bytes) = 0;
  // Root's `bytes` on every rank.
  virtual void Broadcast(std::string* bytes, int root) = 0;
  virtual void Barrier() = 0;
  // Rank `from`'s `bytes` on rank `to`; every other rank gets an empty string. Every rank calls
  // it (the default broadcasts; the MPI communicator sends point to point).
  virtual std::string SendTo(std::string_view bytes, int from, int to) {
    std::string b = rank() == from ? std::string(bytes) : std::string();
    Broadcast(&b, from);
    return rank() == to ? b : std::string();
  }
  // What this rank's collectives have cost so far (for the scaling figures): calls, payload
  // bytes handed in, and wall time inside them (waiting for slower ranks included).
  struct Stats {
    int64_t calls = 0;
    int64_t bytes = 0;
    double seconds = 0;
  };
  const Stats& stats() const { return stats_; }

 protected:
  Stats stats_;
};

// Whether `c` spans more than one process.
inline bool IsDistributed(const Communicator* c) { return c != nullptr && c->size() > 1; }

}  // namespace chaintag

#endif  // CHAINTAG_COMMUNICATOR_H_
