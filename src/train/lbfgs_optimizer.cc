#include "train/lbfgs_optimizer.h"

#include <lbfgs.h>

#include <algorithm>
#include <cmath>
#include <utility>

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

double Dot(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i) sum += a[i] * b[i];
  return sum;
}

// OWL-QN's pseudo-gradient of f + c1 |x|_1 (Andrew and Gao 2007, section 3.1); g when c1 = 0.
void PseudoGradient(const std::vector<double>& x, const std::vector<double>& g, double c1,
                    std::vector<double>* pg) {
  if (c1 <= 0) {
    *pg = g;
    return;
  }
  pg->resize(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    if (x[i] < 0) {
      (*pg)[i] = g[i] - c1;
    } else if (x[i] > 0) {
      (*pg)[i] = g[i] + c1;
    } else if (g[i] + c1 < 0) {
      (*pg)[i] = g[i] + c1;
    } else if (g[i] - c1 > 0) {
      (*pg)[i] = g[i] - c1;
    } else {
      (*pg)[i] = 0;
    }
  }
}

// Line search constants: sufficient decrease, curvature (Wolfe), step factors, trials.
constexpr double kArmijo = 1e-4, kWolfe = 0.9, kShrink = 0.5, kGrow = 2.1;
constexpr int kMaxTrials = 40;

// chaintag's own L-BFGS (Nocedal 1980) / OWL-QN (Andrew and Gao 2007): the two-loop recursion
// over the last m pairs and a backtracking line search (Wolfe conditions; for OWL-QN, Armijo on
// the orthant projection). Every step is a fixed sequence of serial loops, so a run restarted
// from a saved LbfgsState repeats the iterates of the run that saved it bit for bit.
absl::StatusOr<LbfgsResult> MinimizeRestartable(Objective& objective, const LbfgsSettings& settings,
                                                std::vector<double>* w,
                                                const IterationCallback& on_iteration) {
  const size_t n = w->size();
  const double c1 = settings.c1;
  const LbfgsCheckpoints& checkpoints = settings.checkpoints;
  auto evaluate = [&](const std::vector<double>& x, std::vector<double>* g) {
    g->resize(n);
    double f = objective.Evaluate(x, absl::MakeSpan(*g));
    for (int64_t i : settings.fixed) (*g)[i] = 0;
    if (c1 > 0) {
      for (double v : x) f += c1 * std::abs(v);
    }
    return f;
  };
  LbfgsState st;
  if (checkpoints.resume != nullptr) {
    st = *checkpoints.resume;
    const size_t m = static_cast<size_t>(settings.memory);
    bool sizes_ok = st.x.size() == n && st.gradient.size() == n && st.s.size() == st.y.size() &&
                    st.s.size() <= m && st.past.size() <= static_cast<size_t>(settings.period);
    for (size_t j = 0; sizes_ok && j < st.s.size(); ++j) {
      sizes_ok = st.s[j].size() == n && st.y[j].size() == n;
    }
    if (!sizes_ok) {
      return absl::InvalidArgumentError(absl::StrCat(
          "resume: the optimiser state does not fit ", n, " weights with --lbfgs-memory ",
          settings.memory, " and --period ", settings.period));
    }
  } else {
    st.x = *w;
    st.objective = evaluate(st.x, &st.gradient);
    st.past.push_back(st.objective);
  }
  LbfgsResult result;
  std::vector<double> pg, d(n), x_new(n), g_new, orthant;
  PseudoGradient(st.x, st.gradient, c1, &pg);
  if (st.iteration == 0 &&
      std::sqrt(Dot(pg, pg)) <= settings.epsilon * std::max(1.0, std::sqrt(Dot(st.x, st.x)))) {
    result.reason = Reason(LBFGS_ALREADY_MINIMIZED);
  }
  while (result.reason.empty()) {
    // The two-loop recursion: d = -H pg, H scaled by s'y / y'y of the newest pair.
    for (size_t i = 0; i < n; ++i) d[i] = -pg[i];
    const size_t pairs = st.s.size();
    std::vector<double> alpha(pairs), rho(pairs);
    for (size_t j = pairs; j-- > 0;) {
      rho[j] = 1.0 / Dot(st.y[j], st.s[j]);
      alpha[j] = rho[j] * Dot(st.s[j], d);
      for (size_t i = 0; i < n; ++i) d[i] -= alpha[j] * st.y[j][i];
    }
    if (pairs > 0) {
      const double gamma =
          Dot(st.s[pairs - 1], st.y[pairs - 1]) / Dot(st.y[pairs - 1], st.y[pairs - 1]);
      for (double& v : d) v *= gamma;
    }
    for (size_t j = 0; j < pairs; ++j) {
      const double beta = rho[j] * Dot(st.y[j], d);
      for (size_t i = 0; i < n; ++i) d[i] += (alpha[j] - beta) * st.s[j][i];
    }
    if (c1 > 0) {
      // OWL-QN keeps the direction in the orthant the pseudo-gradient points away from.
      orthant.resize(n);
      for (size_t i = 0; i < n; ++i) {
        if (d[i] * pg[i] >= 0) d[i] = 0;
        orthant[i] = st.x[i] != 0 ? (st.x[i] > 0 ? 1.0 : -1.0) : (pg[i] > 0 ? -1.0 : 1.0);
      }
    }
    const double slope = Dot(pg, d);
    if (!(slope < 0)) {
      result.reason = "line search: not a descent direction";
      break;
    }
    double step = pairs == 0 ? 1.0 / std::sqrt(Dot(d, d)) : 1.0;
    double f_new = 0;
    bool accepted = false;
    for (int trial = 0; trial < kMaxTrials && !accepted; ++trial) {
      for (size_t i = 0; i < n; ++i) {
        x_new[i] = st.x[i] + step * d[i];
        if (c1 > 0 && x_new[i] * orthant[i] <= 0) x_new[i] = 0;
      }
      f_new = evaluate(x_new, &g_new);
      if (c1 > 0) {
        double decrease = 0;
        for (size_t i = 0; i < n; ++i) decrease += pg[i] * (x_new[i] - st.x[i]);
        if (f_new <= st.objective + kArmijo * decrease) {
          accepted = true;
        } else {
          step *= kShrink;
        }
      } else if (!(f_new <= st.objective + kArmijo * step * slope)) {
        step *= kShrink;
      } else if (Dot(g_new, d) < kWolfe * slope) {
        step *= kGrow;
      } else {
        accepted = true;
      }
    }
    if (!accepted) {
      result.reason = Reason(LBFGSERR_MAXIMUMLINESEARCH);
      break;
    }
    std::vector<double> s_new(n), y_new(n);
    for (size_t i = 0; i < n; ++i) {
      s_new[i] = x_new[i] - st.x[i];
      y_new[i] = g_new[i] - st.gradient[i];
    }
    st.x.swap(x_new);
    st.gradient.swap(g_new);
    st.objective = f_new;
    ++st.iteration;
    PseudoGradient(st.x, st.gradient, c1, &pg);
    const double gnorm = std::sqrt(Dot(pg, pg));
    const double xnorm = std::sqrt(Dot(st.x, st.x));
    if (on_iteration) {
      TrainProgress progress;
      progress.iteration = st.iteration;
      progress.objective = st.objective;
      progress.gradient_norm = gnorm;
      if (!on_iteration(progress, st.x)) {
        result.stopped_by_caller = true;
        result.reason = "stopped by the caller";
        break;
      }
    }
    if (gnorm <= settings.epsilon * std::max(1.0, xnorm)) {
      result.reason = Reason(LBFGS_SUCCESS);
      break;
    }
    if (settings.period > 0 && static_cast<int>(st.past.size()) >= settings.period &&
        std::abs((st.past.front() - st.objective) / st.objective) < settings.epsilon) {
      result.reason = Reason(LBFGS_STOP);
      break;
    }
    st.past.push_back(st.objective);
    if (static_cast<int>(st.past.size()) > std::max(1, settings.period)) {
      st.past.erase(st.past.begin());
    }
    if (st.iteration >= settings.max_iterations) {
      result.reason = Reason(LBFGSERR_MAXIMUMITERATION);
      break;
    }
    // A pair without positive curvature would make H indefinite: it is skipped.
    if (Dot(y_new, s_new) > 0) {
      st.s.push_back(std::move(s_new));
      st.y.push_back(std::move(y_new));
      if (static_cast<int>(st.s.size()) > settings.memory) {
        st.s.erase(st.s.begin());
        st.y.erase(st.y.begin());
      }
    }
    if (checkpoints.every > 0 && st.iteration % checkpoints.every == 0 && checkpoints.save) {
      if (absl::Status s = checkpoints.save(st); !s.ok()) return s;
    }
  }
  w->swap(st.x);
  result.iterations = st.iteration;
  result.objective = st.objective;
  return result;
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
  if (settings.checkpoints.enabled())
    return MinimizeRestartable(objective, settings, w, on_iteration);
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
