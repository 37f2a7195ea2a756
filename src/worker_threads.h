// Internal: the one way chaintag starts worker threads (training, batch tagging).
#ifndef CHAINTAG_WORKER_THREADS_H_
#define CHAINTAG_WORKER_THREADS_H_

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

namespace chaintag {

// Calls run(k) for k = 0 .. n-1: k = 0 on the calling thread, the others on threads of their own;
// returns when all have finished. When the system refuses a thread, the calling thread runs that
// k itself (later, in order), so the work is done either way. The first exception any run(k)
// throws is rethrown here after every thread has been joined.
template <typename Fn>
void RunOnThreads(int n, Fn&& run) {
  std::exception_ptr error;
  std::mutex error_mutex;
  auto guarded = [&](int k) {
    try {
      run(k);
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  std::vector<int> refused;
  for (int k = 1; k < n; ++k) {
    try {
      pool.emplace_back(guarded, k);
    } catch (const std::system_error&) {
      refused.push_back(k);
    }
  }
  guarded(0);
  for (int k : refused) guarded(k);
  for (std::thread& thread : pool) thread.join();
  if (error) std::rethrow_exception(error);
}

// Threads that live as long as the pool and run one job at a time: Start(job) has every thread k
// call job(k) while the caller goes on; Wait() returns when all have finished and rethrows the
// first exception a job threw. BatchTagger uses it to tag one batch while the caller reads the
// next, without making threads per batch. size() may be below the number asked for when the system
// refuses threads (0: run jobs on the caller's thread instead).
class WorkerPool {
 public:
  explicit WorkerPool(int threads) {
    for (int k = 0; k < threads; ++k) {
      try {
        threads_.emplace_back([this, k] { Loop(k); });
      } catch (const std::system_error&) {
        break;
      }
    }
  }
  ~WorkerPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    start_.notify_all();
    for (std::thread& thread : threads_) thread.join();
  }
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  int size() const { return static_cast<int>(threads_.size()); }
  // At most one job runs at a time: Start after Wait.
  void Start(std::function<void(int)> job) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job_ = std::move(job);
      running_ = static_cast<int>(threads_.size());
      ++generation_;
    }
    start_.notify_all();
  }
  void Wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return running_ == 0; });
    job_ = nullptr;
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  }

 private:
  void Loop(int k) {
    uint64_t seen = 0;
    for (;;) {
      std::unique_lock<std::mutex> lock(mutex_);
      start_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      lock.unlock();
      try {
        job_(k);
      } catch (...) {
        std::lock_guard<std::mutex> error_lock(mutex_);
        if (!error_) error_ = std::current_exception();
      }
      lock.lock();
      if (--running_ == 0) done_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable start_, done_;
  std::function<void(int)> job_;
  uint64_t generation_ = 0;
  int running_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
  std::vector<std::thread> threads_;
};

}  // namespace chaintag

#endif  // CHAINTAG_WORKER_THREADS_H_
