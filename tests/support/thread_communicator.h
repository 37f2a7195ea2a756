// In-process ranks for tests: RunRanks(P, fn) runs fn(communicator) on P threads whose
// collectives meet through shared slots, standing in for P MPI processes.
#ifndef CHAINTAG_TESTS_SUPPORT_THREAD_COMMUNICATOR_H_
#define CHAINTAG_TESTS_SUPPORT_THREAD_COMMUNICATOR_H_

#include <barrier>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "chaintag/communicator.h"

namespace chaintag::testing {

class ThreadCommunicator : public Communicator {
 public:
  struct Shared {
    explicit Shared(int n) : size(n), slots(n), barrier(n) {}
    int size;
    std::vector<std::string> slots;
    std::barrier<> barrier;
  };
  ThreadCommunicator(Shared* shared, int rank) : shared_(shared), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return shared_->size; }
  void SumInt64(absl::Span<int64_t> values) override {
    Exchange(values, [](int64_t a, int64_t b) {
      return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
    });
  }
  void OrBits(absl::Span<uint64_t> values) override {
    Exchange(values, [](uint64_t a, uint64_t b) { return a | b; });
  }
  std::vector<std::string> AllGather(std::string_view bytes) override {
    shared_->slots[rank_].assign(bytes);
    shared_->barrier.arrive_and_wait();
    std::vector<std::string> all = shared_->slots;
    shared_->barrier.arrive_and_wait();
    return all;
  }
  void Broadcast(std::string* bytes, int root) override {
    if (rank_ == root) shared_->slots[root] = *bytes;
    shared_->barrier.arrive_and_wait();
    *bytes = shared_->slots[root];
    shared_->barrier.arrive_and_wait();
  }
  void Barrier() override { shared_->barrier.arrive_and_wait(); }

 private:
  template <typename T, typename Op>
  void Exchange(absl::Span<T> values, Op op) {
    ++stats_.calls;
    stats_.bytes += static_cast<int64_t>(values.size() * sizeof(T));
    std::vector<std::string> all = AllGather(
        std::string_view(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T)));
    for (size_t i = 0; i < values.size(); ++i) {
      T total{};
      for (const std::string& part : all) {
        T x;
        std::memcpy(&x, part.data() + i * sizeof(T), sizeof(T));
        total = op(total, x);
      }
      values[i] = total;
    }
  }

  Shared* shared_;
  int rank_;
};

// Runs fn(communicator of rank r) for r = 0..ranks-1, each on its own thread.
inline void RunRanks(int ranks, const std::function<void(Communicator*)>& fn) {
  ThreadCommunicator::Shared shared(ranks);
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r) {
    threads.emplace_back([&, r] {
      ThreadCommunicator communicator(&shared, r);
      fn(&communicator);
    });
  }
  for (std::thread& t : threads) t.join();
}

}  // namespace chaintag::testing

#endif  // CHAINTAG_TESTS_SUPPORT_THREAD_COMMUNICATOR_H_
