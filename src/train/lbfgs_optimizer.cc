#include "train/lbfgs_optimizer.h"

#include <lbfgs.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace chaintag {
namespace train_internal {
namespace {

struct Context {
  Objective* objective;
  const std::vector<int64_t>* fixed;
  const IterationCallback* on_iteration;
  int64_t n;
  int iterations = 0;
  double last_objective = 0.0;
  bool stopped_by_caller = false;
};

lbfgsfloatval_t EvaluateCallback(void* instance, const lbfgsfloatval_t* x, lbfgsfloatval_t* g,
                                 const int n, const lbfgsfloatval_t /*step*/) {
  auto* context = static_cast<Context*>(instance);
  const double f = context->objective->Evaluate(absl::MakeConstSpan(x, n), absl::MakeSpan(g, n));
  // A zero gradient keeps the weight where it started, in L-BFGS and OWL-QN alike (its
  // correction pairs and pseudo-gradient are then zero in that coordinate).
  for (int64_t i : *context->fixed) g[i] = 0;
  return f;
}

int ProgressCallback(void* instance, const lbfgsfloatval_t* x, const lbfgsfloatval_t* /*g*/,
                     const lbfgsfloatval_t fx, const lbfgsfloatval_t /*xnorm*/,
                     const lbfgsfloatval_t gnorm, const lbfgsfloatval_t /*step*/, int n, int k,
                     int /*ls*/) {
  auto* context = static_cast<Context*>(instance);
  context->iterations = k;
  context->last_objective = fx;
  if (*context->on_iteration) {
    TrainProgress progress;
    progress.iteration = k;
    progress.objective = fx;
    progress.gradient_norm = gnorm;
    if (!(*context->on_iteration)(progress, absl::MakeConstSpan(x, n))) {
      context->stopped_by_caller = true;
      return 1;
    }
  }
  return 0;
}

std::string Reason(int code) {
  switch (code) {
    case LBFGS_SUCCESS:
      return "converged";
    case LBFGS_STOP:
      return "objective improvement below the tolerance";
    case LBFGS_ALREADY_MINIMIZED:
      return "already minimized";
    case LBFGSERR_MAXIMUMITERATION:
      return "maximum iterations";
    case LBFGSERR_ROUNDING_ERROR:
      return "line search: rounding error";
    case LBFGSERR_MINIMUMSTEP:
      return "line search: minimum step";
    case LBFGSERR_MAXIMUMSTEP:
      return "line search: maximum step";
    case LBFGSERR_MAXIMUMLINESEARCH:
      return "line search: maximum evaluations";
    case LBFGSERR_WIDTHTOOSMALL:
      return "line search: interval too small";
    case LBFGSERR_INCREASEGRADIENT:
      return "line search: increasing gradient";
    default:
      return absl::StrCat("libLBFGS code ", code);
  }
}

}  // namespace

absl::Status LbfgsStartFailure(int code, int64_t n, int memory) {
  if (code == LBFGSERR_OUTOFMEMORY) {
    // libLBFGS holds 2 * memory correction pairs and about 6 more vectors of n doubles.
    const int64_t mb = ((2 * int64_t{memory} + 6) * n * 8 >> 20) + 1;
    return absl::ResourceExhaustedError(
        absl::StrCat("L-BFGS: out of memory allocating its state for ", n, " weights (about ", mb,
                     " MB with --lbfgs-memory ", memory,
                     "); free memory, lower --lbfgs-memory or drop rare "
                     "features (--min-feature-count)"));
  }
  return absl::InvalidArgumentError(absl::StrCat("L-BFGS failed: libLBFGS code ", code));
}

absl::StatusOr<LbfgsResult> MinimizeLbfgs(Objective& objective, const LbfgsSettings& settings,
                                          std::vector<double>* w,
                                          const IterationCallback& on_iteration) {
  const int64_t n = objective.size();
  if (static_cast<int64_t>(w->size()) != n) {
    return absl::InvalidArgumentError(
        absl::StrCat("L-BFGS: expected ", n, " weights, found ", w->size()));
  }
  if (n > INT32_MAX) return absl::InvalidArgumentError("L-BFGS: more than 2^31 weights");
  lbfgs_parameter_t param;
  lbfgs_parameter_init(&param);
  param.m = settings.memory;
  param.epsilon = settings.epsilon;
  param.past = settings.period;
  param.delta = settings.epsilon;
  param.max_iterations = settings.max_iterations;
  if (settings.c1 > 0) {
    param.orthantwise_c = settings.c1;
    param.orthantwise_start = 0;
    param.orthantwise_end = static_cast<int>(n);
    // OWL-QN in libLBFGS works only with the backtracking line search.
    param.linesearch = LBFGS_LINESEARCH_BACKTRACKING;
  }
  Context context{&objective, &settings.fixed, &on_iteration, n};
  lbfgsfloatval_t fx = 0;
  const int code = lbfgs(static_cast<int>(n), w->data(), &fx, EvaluateCallback, ProgressCallback,
                         &context, &param);
  // Codes from LBFGSERR_UNKNOWNERROR up to the parameter checks mean the run never started.
  if (code >= LBFGSERR_UNKNOWNERROR && code <= LBFGSERR_INVALID_ORTHANTWISE_END) {
    return LbfgsStartFailure(code, n, settings.memory);
  }
  LbfgsResult result;
  result.iterations = context.iterations;
  result.objective = context.iterations > 0 ? context.last_objective : fx;
  result.code = code;
  result.stopped_by_caller = context.stopped_by_caller;
  // libLBFGS returns LBFGS_STOP both for its improvement test and when the callback stops it.
  result.reason = context.stopped_by_caller ? "stopped by the caller" : Reason(code);
  return result;
}

}  // namespace train_internal
}  // namespace chaintag
