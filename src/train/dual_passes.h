// The pass loop the two dual coordinate descent trainers share (LMSBN, lmsbn.cc; LMBM, lmbm.cc):
// passes until LIBLINEAR's stopping rules hold (Keerthi et al. 2008; Miao and Rao, Algorithm 1).
#ifndef CHAINTAG_SRC_TRAIN_DUAL_PASSES_H_
#define CHAINTAG_SRC_TRAIN_DUAL_PASSES_H_

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "train/trainer.h"

namespace chaintag::train_internal {

// How a solver's passes are judged, and how the stop reasons name its measures.
struct DualPassRules {
  const char* violation;       // what Pass returns: "largest KKT violation"
  double max_violation = 0.1;  // stop when a pass's largest violation is below this
  double stall = 1e-3;         // stop when the dual moves by less than this (relative) in a pass
  bool dual_rises = false;     // the dual's direction under coordinate descent
  // Report the duality gap every pass, and stop once it is at most this times |primal|.
  std::optional<double> duality_gap;
};

// The dual variables (tokens x labels) must fit the 2^31 a solver holds.
inline absl::Status CheckDualSize(const TrainingData& data, const char* objective) {
  if (data.num_positions() > (int64_t{1} << 31) / std::max(1, data.num_labels())) {
    return absl::ResourceExhaustedError(
        absl::StrCat(objective, ": ", data.num_positions(), " tokens x ", data.num_labels(),
                     " labels exceed the 2^31 dual variables the solver holds"));
  }
  return absl::OkStatus();
}

// Passes of `solver` (Pass(weights) -> largest violation, Primal(w, &mean_loss), Dual(w)) until
// a rule of `rules` holds or max_iterations; every pass goes to on_iteration.
template <typename Solver>
TrainerRun RunDualPasses(Solver& solver, const DualPassRules& rules, int max_iterations,
                         std::vector<double>* weights, const IterationCallback& on_iteration) {
  using Clock = std::chrono::steady_clock;
  auto seconds = [](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };
  TrainerRun run;
  const auto start = Clock::now();
  double previous = (rules.dual_rises ? -1 : 1) * std::numeric_limits<double>::infinity();
  for (int it = 1; it <= max_iterations; ++it) {
    const auto pass_start = Clock::now();
    const double violation = solver.Pass(weights);
    TrainProgress p;
    p.iteration = it;
    double mean_loss = 0.0;
    p.objective = solver.Primal(*weights, &mean_loss);
    p.mean_loss = mean_loss;
    std::optional<double> dual;
    if (rules.duality_gap.has_value()) {
      dual = solver.Dual(*weights);
      p.duality_gap = p.objective - *dual;
    }
    p.pass_seconds = seconds(pass_start);
    p.elapsed_seconds = seconds(start);
    run.iterations = it;
    if (!on_iteration(p, *weights)) {
      run.stop_reason = "early stopping on dev";
      return run;
    }
    if (violation < rules.max_violation) {
      run.stop_reason = absl::StrCat(rules.violation, " ", violation, " < ", rules.max_violation);
      return run;
    }
    if (rules.duality_gap.has_value() &&
        *p.duality_gap <= *rules.duality_gap * std::fabs(p.objective)) {
      run.stop_reason =
          absl::StrCat("duality gap ", *p.duality_gap, " <= ", *rules.duality_gap, " x primal");
      return run;
    }
    if (!dual.has_value()) dual = solver.Dual(*weights);
    const double moved = rules.dual_rises ? *dual - previous : previous - *dual;
    if (moved < rules.stall * std::fabs(*dual)) {
      run.stop_reason = absl::StrCat("dual objective ", rules.dual_rises ? "rose" : "fell",
                                     " by less than ", rules.stall, " (relative) in a pass");
      return run;
    }
    previous = *dual;
  }
  run.stop_reason = "max_iterations";
  return run;
}

}  // namespace chaintag::train_internal

#endif  // CHAINTAG_SRC_TRAIN_DUAL_PASSES_H_
