// Internal: the one way chaintag starts worker threads (training, batch tagging).
#ifndef CHAINTAG_WORKER_THREADS_H_
#define CHAINTAG_WORKER_THREADS_H_

#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
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

}  // namespace chaintag

#endif  // CHAINTAG_WORKER_THREADS_H_
