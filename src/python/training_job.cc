// Training from Python that Ctrl-C and a progress callback's exception stop at once: chaintag's
// Train runs on a thread of its own while the calling thread waits without the GIL and looks for
// signals every 50 ms. On KeyboardInterrupt the call raises at once; the training thread stops
// at the end of its current iteration (TrainObserver::Interrupted) and its result is dropped.
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

#include "python/convert.h"
#include "python/extras.h"

namespace chaintag::python {

namespace {

// What the training thread and the waiting thread share; the thread keeps it alive after an
// interrupted call has returned.
struct Job : public TrainObserver {
  std::mutex mutex;
  std::condition_variable finished_cv;
  bool finished = false;
  bool cancelled = false;  // the caller has gone: touch no Python object any more
  std::optional<absl::StatusOr<Model>> result;
  py::object callback;                         // guarded by the GIL; None when cancelled
  std::optional<py::error_already_set> error;  // the callback's exception
  std::function<absl::StatusOr<Model>(TrainObserver*)> train;

  void OnIteration(const TrainProgress& p) override {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (cancelled || error.has_value()) return;
    }
    py::gil_scoped_acquire acquire;
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (cancelled || callback.is_none()) return;
    }
    const py::object call = callback;  // a reference of its own while it runs
    try {
      py::dict d;
      d["iteration"] = p.iteration;
      d["objective"] = p.objective;
      d["gradient_norm"] = p.gradient_norm;
      d["active_features"] = p.active_features;
      d["elapsed_seconds"] = p.elapsed_seconds;
      if (p.duality_gap) d["duality_gap"] = *p.duality_gap;
      if (p.mean_loss) d["mean_loss"] = *p.mean_loss;
      if (p.dev_score) {
        d["dev_score"] = *p.dev_score;
        d["dev_metric"] = p.dev_metric;
      }
      call(d);
    } catch (py::error_already_set& e) {
      std::lock_guard<std::mutex> lock(mutex);
      error.emplace(std::move(e));
    }
  }

  absl::Status Interrupted() override {
    std::lock_guard<std::mutex> lock(mutex);
    if (cancelled) return absl::CancelledError("training interrupted");
    if (error.has_value()) return absl::CancelledError("the progress callback raised");
    return absl::OkStatus();
  }
};

}  // namespace

absl::StatusOr<Model> TrainInterruptibly(std::function<absl::StatusOr<Model>(TrainObserver*)> train,
                                         py::object progress) {
  auto job = std::make_shared<Job>();
  job->callback = std::move(progress);
  job->train = std::move(train);
  std::thread([job]() {
    absl::StatusOr<Model> model = job->train(job.get());
    std::lock_guard<std::mutex> lock(job->mutex);
    job->train = nullptr;  // frees what it captured (sentences, options) on this thread
    job->result.emplace(std::move(model));
    job->finished = true;
    job->finished_cv.notify_all();
  }).detach();
  for (;;) {
    {
      py::gil_scoped_release release;
      std::unique_lock<std::mutex> lock(job->mutex);
      if (job->finished_cv.wait_for(lock, std::chrono::milliseconds(50),
                                    [&] { return job->finished || job->error.has_value(); }))
        break;
    }
    if (PyErr_CheckSignals() != 0) {
      // Python objects are released here, under the GIL, not by the training thread later.
      std::optional<py::error_already_set> dropped;
      {
        std::lock_guard<std::mutex> lock(job->mutex);
        job->cancelled = true;
        dropped = std::move(job->error);
        job->error.reset();
      }
      job->callback = py::none();
      throw py::error_already_set();
    }
  }
  std::optional<py::error_already_set> error;
  {
    std::lock_guard<std::mutex> lock(job->mutex);
    error = std::move(job->error);
    job->error.reset();
    job->cancelled = true;
  }
  job->callback = py::none();
  if (error.has_value()) throw std::move(*error);  // training stops at this iteration's end
  std::unique_lock<std::mutex> lock(job->mutex);
  {
    // The job is finished (or, after the callback raised, stopped above); wait for the result.
    py::gil_scoped_release release;
    job->finished_cv.wait(lock, [&] { return job->finished; });
  }
  return std::move(*job->result);
}

}  // namespace chaintag::python
