// LMBM training (Miao and Rao, Algorithm 1 on a chain): the primal against a direct enumeration
// of every wrong label, weak duality and a closing gap, the dual and primal optima against an
// enumeration of KKT patterns, the optimum of a generic smoothed-primal solver, the effect of eta0,
// and Train -> save -> load -> tag with 1 and 2 threads.
#include "train/lmbm.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "chaintag/model.h"
#include "chaintag/tagging.h"
#include "chaintag/train.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/parameters.h"
#include "support/toy_corpus.h"
#include "train/training_data.h"

namespace chaintag {
namespace {

using train_internal::LmbmSolver;

std::vector<Sentence> Toy(int sentences, uint64_t seed, bool noisy = false) {
  const std::vector<std::string> det = {"the", "a"}, adj = {"big", "red"}, noun = {"dog", "cat"},
                                 verb = {"saw", "ran"};
  testing::ToyCorpusBuilder b(seed);
  for (int i = 0; i < sentences; ++i) {
    b.Begin();
    b.Add(b.Pick(det), "B-NP");
    if (b.Random() % 2) b.Add(b.Pick(adj), noisy && b.Random() % 3 == 0 ? "B-NP" : "I-NP");
    b.Add(b.Pick(noun), "I-NP");
    b.Add(b.Pick(verb), "B-VP");
  }
  return b.Take();
}

FeatureSpec Spec() {
  absl::StatusOr<FeatureSpec> spec = FeatureSpec::Parse("U00:%x[0,0]\nU01:%x[-1,0]\nB\n");
  EXPECT_TRUE(spec.ok()) << spec.status();
  return *spec;
}

train_internal::TrainingData Data(const std::vector<Sentence>& corpus) {
  absl::StatusOr<train_internal::TrainingData> data =
      train_internal::BuildTrainingData(Spec(), corpus, 1);
  EXPECT_TRUE(data.ok()) << data.status();
  return *std::move(data);
}

// The primal written out independently: each position's score of every label against the gold
// neighbours, every wrong label's hinge, and the two regularisers.
double DirectPrimal(const train_internal::TrainingData& d, const std::vector<double>& w, double c2,
                    double eta0) {
  const ModelParameters& p = d.parameters;
  const int n = d.num_labels();
  double loss = 0.0;
  for (int s = 0; s < d.num_sentences(); ++s) {
    const int64_t first = d.sentence_offsets[s], last = d.sentence_offsets[s + 1] - 1;
    for (int64_t t = first; t <= last; ++t) {
      std::vector<double> score(n, 0.0);
      for (int32_t a : d.attributes_at(t)) {
        for (int32_t f = p.attribute_offsets[a]; f < p.attribute_offsets[a + 1]; ++f)
          score[p.feature_labels[f]] += w[f];
      }
      for (int y = 0; y < n; ++y) {
        score[y] +=
            t == first ? w[p.start_offset() + y] : w[p.transition_offset() + d.gold[t - 1] * n + y];
        score[y] +=
            t == last ? w[p.end_offset() + y] : w[p.transition_offset() + y * n + d.gold[t + 1]];
      }
      for (int y = 0; y < n; ++y) {
        if (y != d.gold[t]) loss += std::max(0.0, 1.0 - score[d.gold[t]] + score[y]);
      }
    }
  }
  double all = 0.0, pairs = 0.0;
  for (int64_t j = 0; j < p.size(); ++j) {
    all += w[j] * w[j];
    if (j >= p.transition_offset() && j < p.start_offset()) pairs += w[j] * w[j];
  }
  return c2 * (all + eta0 * pairs) + loss;
}

// A fixed tiny corpus: 5 tokens, 3 labels, so 10 hinge terms (3^10 KKT patterns to enumerate).
std::vector<Sentence> Tiny() {
  testing::ToyCorpusBuilder b(0);
  b.Begin();
  b.Add("the", "B-NP");
  b.Add("dog", "I-NP");
  b.Add("saw", "B-VP");
  b.Begin();
  b.Add("dog", "B-NP");
  b.Add("saw", "B-VP");
  return b.Take();
}

// One dense vector a per (position t, wrong label y), in that order, written out independently of
// the solver: the margin s_t(y_t) - s_t(y) against the gold neighbours is a . w.
using Terms = std::vector<std::vector<double>>;
Terms DirectTerms(const train_internal::TrainingData& d) {
  const ModelParameters& p = d.parameters;
  const int n = d.num_labels();
  Terms terms;
  for (int s = 0; s < d.num_sentences(); ++s) {
    const int64_t first = d.sentence_offsets[s], last = d.sentence_offsets[s + 1] - 1;
    for (int64_t t = first; t <= last; ++t) {
      auto add = [&](std::vector<double>& a, int label, double sign) {
        for (int32_t attr : d.attributes_at(t)) {
          for (int32_t f = p.attribute_offsets[attr]; f < p.attribute_offsets[attr + 1]; ++f)
            if (p.feature_labels[f] == label) a[f] += sign;
        }
        a[t == first ? p.start_offset() + label
                     : p.transition_offset() + d.gold[t - 1] * n + label] += sign;
        a[t == last ? p.end_offset() + label : p.transition_offset() + label * n + d.gold[t + 1]] +=
            sign;
      };
      for (int y = 0; y < n; ++y) {
        if (y == d.gold[t]) continue;
        std::vector<double> a(p.size(), 0.0);
        add(a, d.gold[t], 1.0);
        add(a, y, -1.0);
        terms.push_back(std::move(a));
      }
    }
  }
  return terms;
}

std::vector<double> Etas(const train_internal::TrainingData& d, double eta0) {
  const ModelParameters& p = d.parameters;
  std::vector<double> eta(p.size(), 1.0);
  for (int64_t j = p.transition_offset(); j < p.start_offset(); ++j) eta[j] = 1.0 + eta0;
  return eta;
}

// The solver's alpha (positions x labels) in DirectTerms' order.
std::vector<double> DualsOfTerms(const train_internal::TrainingData& d,
                                 absl::Span<const double> alpha) {
  std::vector<double> out;
  const int n = d.num_labels();
  for (int64_t t = 0; t < d.num_positions(); ++t) {
    for (int y = 0; y < n; ++y) {
      if (y != d.gold[t]) out.push_back(alpha[t * n + y]);
    }
  }
  return out;
}

// w(alpha)_j = sum_k alpha_k a_kj / eta_j (the stationarity condition of the Lagrangian).
std::vector<double> WeightsOf(const Terms& a, const std::vector<double>& eta,
                              const std::vector<double>& alpha) {
  std::vector<double> w(eta.size(), 0.0);
  for (size_t k = 0; k < a.size(); ++k) {
    for (size_t j = 0; j < w.size(); ++j) w[j] += alpha[k] * a[k][j] / eta[j];
  }
  return w;
}

// The dual with C = 1 / (2 c2), in the units of the primal divided by 2 c2:
// sum alpha - 1/2 sum_j eta_j w(alpha)_j^2.
double DualValue(const Terms& a, const std::vector<double>& eta, const std::vector<double>& alpha) {
  const std::vector<double> w = WeightsOf(a, eta, alpha);
  double value = 0.0;
  for (const double x : alpha) value += x;
  for (size_t j = 0; j < w.size(); ++j) value -= 0.5 * eta[j] * w[j] * w[j];
  return value;
}

// The box-constrained dual's maximum, by enumerating every pattern of each alpha_k at 0, at C or
// free, solving the free ones from the stationarity equations and keeping the patterns that
// satisfy the KKT conditions (sufficient for this concave problem; a pattern with a nonsingular
// free block always exists at an optimum).
double EnumeratedDualOptimum(const Terms& a, const std::vector<double>& eta, double c,
                             std::vector<double>* best_alpha) {
  const size_t m = a.size();
  std::vector<std::vector<double>> q(m, std::vector<double>(m, 0.0));
  for (size_t k = 0; k < m; ++k) {
    for (size_t l = 0; l < m; ++l) {
      for (size_t j = 0; j < eta.size(); ++j) q[k][l] += a[k][j] * a[l][j] / eta[j];
    }
  }
  double best = -1e300;
  int patterns = 1;
  for (size_t k = 0; k < m; ++k) patterns *= 3;
  for (int code = 0; code < patterns; ++code) {
    std::vector<int> state(m);  // 0: alpha = 0, 1: alpha = C, 2: free
    for (int k = 0, rest = code; k < static_cast<int>(m); ++k, rest /= 3) state[k] = rest % 3;
    std::vector<double> alpha(m, 0.0);
    std::vector<size_t> free;
    for (size_t k = 0; k < m; ++k) {
      if (state[k] == 1) alpha[k] = c;
      if (state[k] == 2) free.push_back(k);
    }
    // Solve Q_FF alpha_F = 1 - Q_FU C by Gaussian elimination with partial pivoting.
    const size_t f = free.size();
    std::vector<std::vector<double>> m_ab(f, std::vector<double>(f + 1));
    for (size_t r = 0; r < f; ++r) {
      double rhs = 1.0;
      for (size_t k = 0; k < m; ++k) rhs -= q[free[r]][k] * alpha[k];
      for (size_t col = 0; col < f; ++col) m_ab[r][col] = q[free[r]][free[col]];
      m_ab[r][f] = rhs;
    }
    bool singular = false;
    for (size_t col = 0; col < f && !singular; ++col) {
      size_t pivot = col;
      for (size_t r = col + 1; r < f; ++r) {
        if (std::fabs(m_ab[r][col]) > std::fabs(m_ab[pivot][col])) pivot = r;
      }
      if (std::fabs(m_ab[pivot][col]) < 1e-10) {
        singular = true;
        break;
      }
      std::swap(m_ab[pivot], m_ab[col]);
      for (size_t r = 0; r < f; ++r) {
        if (r == col) continue;
        const double factor = m_ab[r][col] / m_ab[col][col];
        for (size_t k = col; k <= f; ++k) m_ab[r][k] -= factor * m_ab[col][k];
      }
    }
    if (singular) continue;
    bool feasible = true;
    for (size_t r = 0; r < f; ++r) {
      const double x = m_ab[r][f] / m_ab[r][r];
      if (x < -1e-12 || x > c + 1e-12) feasible = false;
      alpha[free[r]] = std::clamp(x, 0.0, c);
    }
    if (!feasible) continue;
    for (size_t k = 0; k < m && feasible; ++k) {
      double gradient = 1.0;  // d/d alpha_k of the dual
      for (size_t l = 0; l < m; ++l) gradient -= q[k][l] * alpha[l];
      if (state[k] == 0 && gradient > 1e-9) feasible = false;
      if (state[k] == 1 && gradient < -1e-9) feasible = false;
    }
    if (!feasible) continue;
    const double value = DualValue(a, eta, alpha);
    if (value > best) {
      best = value;
      *best_alpha = alpha;
    }
  }
  EXPECT_GT(best, -1e300) << "no KKT pattern found";
  return best;
}

// The smoothed primal c2 sum eta w^2 + sum_k tau log(1 + exp((1 - a_k . w) / tau)) and its
// gradient.
double Smoothed(const Terms& a, const std::vector<double>& eta, double c2, double tau,
                const std::vector<double>& w, std::vector<double>* gradient) {
  gradient->assign(w.size(), 0.0);
  double value = 0.0;
  for (size_t j = 0; j < w.size(); ++j) {
    value += c2 * eta[j] * w[j] * w[j];
    (*gradient)[j] = 2.0 * c2 * eta[j] * w[j];
  }
  for (const std::vector<double>& ak : a) {
    double margin = 0.0;
    for (size_t j = 0; j < w.size(); ++j) margin += ak[j] * w[j];
    const double z = (1.0 - margin) / tau;
    // Stable softplus and logistic.
    value += tau * (z > 0 ? z + std::log1p(std::exp(-z)) : std::log1p(std::exp(z)));
    const double sigma = z > 0 ? 1.0 / (1.0 + std::exp(-z)) : std::exp(z) / (1.0 + std::exp(z));
    for (size_t j = 0; j < w.size(); ++j) (*gradient)[j] -= sigma * ak[j];
  }
  return value;
}

TEST(LmbmSolverTest, PrimalEqualsDirectEnumerationAtRandomWeights) {
  const train_internal::TrainingData d = Data(Toy(6, 1, /*noisy=*/true));
  std::mt19937_64 rng(2);
  std::normal_distribution<double> normal(0.0, 1.0);
  for (int trial = 0; trial < 5; ++trial) {
    std::vector<double> w(d.parameters.size());
    for (double& x : w) x = normal(rng);
    const LmbmSolver solver(d, 0.3, 2.5, 1);
    EXPECT_NEAR(solver.Primal(w, nullptr), DirectPrimal(d, w, 0.3, 2.5), 1e-9);
    // The same primal from the hinge terms' vectors.
    const std::vector<double> eta = Etas(d, 2.5);
    double by_terms = 0.0;
    for (size_t j = 0; j < w.size(); ++j) by_terms += 0.3 * eta[j] * w[j] * w[j];
    for (const std::vector<double>& a : DirectTerms(d)) {
      double margin = 0.0;
      for (size_t j = 0; j < w.size(); ++j) margin += a[j] * w[j];
      by_terms += std::max(0.0, 1.0 - margin);
    }
    EXPECT_NEAR(by_terms, DirectPrimal(d, w, 0.3, 2.5), 1e-9);
  }
}

TEST(LmbmSolverTest, DualStaysBelowPrimalRisesAndMeetsItAtTheOptimum) {
  const train_internal::TrainingData d = Data(Toy(8, 3, /*noisy=*/true));
  LmbmSolver solver(d, 0.2, 1.0, 4);
  std::vector<double> w(d.parameters.size(), 0.0);
  double previous = -1e300;
  for (int pass = 0; pass < 300; ++pass) {
    solver.Pass(&w);
    const double primal = solver.Primal(w, nullptr), dual = solver.Dual(w);
    EXPECT_LE(dual, primal + 1e-9);
    EXPECT_GE(dual, previous - 1e-9);  // coordinate ascent on the dual
    previous = dual;
  }
  const double primal = solver.Primal(w, nullptr);
  EXPECT_NEAR(solver.Dual(w), primal, 1e-6 * std::max(1.0, primal));
}

TEST(LmbmSolverTest, DualAndPrimalOptimaEqualAnEnumerationOfEveryKktPattern) {
  const train_internal::TrainingData d = Data(Tiny());
  const double c2 = 0.25, eta0 = 2.0, c = 1.0 / (2.0 * c2);
  const Terms a = DirectTerms(d);
  ASSERT_EQ(a.size(), 10u);
  const std::vector<double> eta = Etas(d, eta0);
  std::vector<double> best_alpha;
  const double optimum = 2.0 * c2 * EnumeratedDualOptimum(a, eta, c, &best_alpha);
  // Strong duality at the enumerated alpha: the primal at w(alpha) equals it, so it is optimal.
  const std::vector<double> best_w = WeightsOf(a, eta, best_alpha);
  ASSERT_NEAR(DirectPrimal(d, best_w, c2, eta0), optimum, 1e-9);

  LmbmSolver solver(d, c2, eta0, 11);
  std::vector<double> w(d.parameters.size(), 0.0);
  for (int pass = 0; pass < 400; ++pass) {
    solver.Pass(&w);
    if (pass < 3) {
      // The incrementally kept weights and the dual value are those the duals determine.
      const std::vector<double> from_alpha = WeightsOf(a, eta, DualsOfTerms(d, solver.alpha()));
      for (size_t j = 0; j < w.size(); ++j) EXPECT_NEAR(w[j], from_alpha[j], 1e-12);
      EXPECT_NEAR(solver.Dual(w), 2.0 * c2 * DualValue(a, eta, DualsOfTerms(d, solver.alpha())),
                  1e-12);
    }
  }
  for (const double x : solver.alpha()) {
    EXPECT_GE(x, 0.0);
    EXPECT_LE(x, c);
  }
  EXPECT_NEAR(solver.Dual(w), optimum, 1e-7);
  EXPECT_NEAR(solver.Primal(w, nullptr), optimum, 1e-7);
  for (size_t j = 0; j < w.size(); ++j) EXPECT_NEAR(w[j], best_w[j], 1e-4) << j;  // unique
}

TEST(LmbmSolverTest, ReachesTheOptimumOfAGenericSmoothedPrimalSolver) {
  const train_internal::TrainingData d = Data(Toy(5, 5, /*noisy=*/true));
  const double c2 = 0.5, eta0 = 3.0;
  LmbmSolver solver(d, c2, eta0, 6);
  std::vector<double> w(d.parameters.size(), 0.0);
  for (int pass = 0; pass < 500; ++pass) solver.Pass(&w);
  const double dcd = DirectPrimal(d, w, c2, eta0);

  // Generic solver, blind to the dual: accelerated gradient descent on the primal with every hinge
  // replaced by tau log(1 + exp((1 - a.w) / tau)), which lies within [hinge, hinge + tau log 2].
  // S is mu = 2 c2 strongly convex, so S(v) - min S <= |grad S(v)|^2 / (2 mu), and
  // P* >= min S - m tau log 2 certifies a lower bound on the primal optimum P*.
  const Terms a = DirectTerms(d);
  const std::vector<double> eta = Etas(d, eta0);
  const double tau = 1e-4, mu = 2.0 * c2;
  double lipschitz = 2.0 * c2 * (1.0 + eta0);
  for (const std::vector<double>& ak : a) {
    for (const double x : ak) lipschitz += x * x / (4.0 * tau);
  }
  const double momentum =
      (std::sqrt(lipschitz) - std::sqrt(mu)) / (std::sqrt(lipschitz) + std::sqrt(mu));
  std::vector<double> v(w.size(), 0.0), previous = v, y = v, g;
  double smoothed = 0.0, residual = 1e300;
  for (int it = 0; it < 400000 && residual > 1e-12; ++it) {
    for (size_t j = 0; j < v.size(); ++j) y[j] = v[j] + momentum * (v[j] - previous[j]);
    Smoothed(a, eta, c2, tau, y, &g);
    previous = v;
    for (size_t j = 0; j < v.size(); ++j) v[j] = y[j] - g[j] / lipschitz;
    if (it % 100 == 99) {
      smoothed = Smoothed(a, eta, c2, tau, v, &g);
      double g2 = 0.0;
      for (const double x : g) g2 += x * x;
      residual = g2 / (2.0 * mu);
    }
  }
  const double upper = DirectPrimal(d, v, c2, eta0);
  const double lower = smoothed - residual - static_cast<double>(a.size()) * tau * std::log(2.0);
  EXPECT_LE(upper - lower, 5e-3);  // the generic solver has converged, by its own certificate
  EXPECT_GE(dcd, lower - 1e-9);    // nothing beats the optimum
  EXPECT_LE(dcd, upper + 1e-6);    // and DCD gets at least as low as the generic solver
  // Strong convexity (P(x) - P* >= c2 |x - x*|^2) bounds how far apart the two weight vectors are.
  double distance = 0.0;
  for (size_t j = 0; j < w.size(); ++j) distance += (w[j] - v[j]) * (w[j] - v[j]);
  EXPECT_LE(std::sqrt(distance), std::sqrt(std::max(0.0, dcd - lower) / c2) +
                                     std::sqrt(std::max(0.0, upper - lower) / c2) + 1e-9);
}

TEST(LmbmSolverTest, Eta0ShrinksTheLabelLabelWeightsOnly) {
  const train_internal::TrainingData d = Data(Toy(10, 7, /*noisy=*/true));
  auto train = [&](double eta0) {
    LmbmSolver solver(d, 0.1, eta0, 8);
    std::vector<double> w(d.parameters.size(), 0.0);
    for (int pass = 0; pass < 200; ++pass) solver.Pass(&w);
    return w;
  };
  auto norm = [&](const std::vector<double>& w, int64_t begin, int64_t end) {
    double s = 0.0;
    for (int64_t j = begin; j < end; ++j) s += w[j] * w[j];
    return s;
  };
  const ModelParameters& p = d.parameters;
  const std::vector<double> free = train(0.0), tied = train(100.0);
  EXPECT_LT(norm(tied, p.transition_offset(), p.start_offset()),
            0.1 * norm(free, p.transition_offset(), p.start_offset()));
  EXPECT_GT(norm(free, p.transition_offset(), p.start_offset()), 0.0);
  // The unary weights take over what the transitions no longer say.
  EXPECT_GT(norm(tied, 0, p.transition_offset()), 0.0);
}

TEST(LmbmTrainTest, TrainsDeterministicallySavesLoadsAndDecodesAsAChain) {
  const std::vector<Sentence> train = Toy(40, 9);
  TrainOptions o;
  o.objective = Objective::kLmbm;
  o.c2 = 0.01;
  o.eta0 = 0.5;
  o.max_iterations = 100;
  absl::StatusOr<Model> model = Train(o, Spec(), train, nullptr, nullptr);
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(model->family(), ModelFamily::kLmbm);
  EXPECT_EQ(ModelFamilyName(model->family()), "lmbm");
  EXPECT_EQ(model->Metadata("algorithm"), "dcd");
  EXPECT_EQ(model->Metadata("eta0"), "0.5");
  absl::StatusOr<Model> again = Train(o, Spec(), train, nullptr, nullptr);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->ToBytes(), model->ToBytes());
  // The thread count is recorded in the metadata; the weights do not depend on it.
  for (const int threads : {1, 2}) {
    o.threads = threads;
    absl::StatusOr<Model> threaded = Train(o, Spec(), train, nullptr, nullptr);
    ASSERT_TRUE(threaded.ok());
    EXPECT_EQ(threaded->Parameters().weights, model->Parameters().weights) << threads;
  }
  absl::StatusOr<Model> loaded = Model::FromBytes(model->ToBytes(), "lmbm.model");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->family(), ModelFamily::kLmbm);
  EXPECT_EQ(DescribeModel(*loaded).family, "lmbm");
  Tagger tagger(*loaded);
  for (const Sentence& s : train) {
    absl::StatusOr<Labeling> best = tagger.Tag(s);
    ASSERT_TRUE(best.ok());
    std::vector<std::string> names;
    for (int y : best->labels) names.push_back(loaded->labels()[y]);
    EXPECT_EQ(names, s.labels);
  }
  // A chain: constrained k-best with probabilities runs on it unchanged.
  DecodeRequest request;
  request.kbest = 3;
  request.probability = true;
  absl::StatusOr<CountConstraint> count = ParseCountConstraint("chunk:NP=..1", loaded->labels());
  ASSERT_TRUE(count.ok());
  request.counts.push_back(*count);
  Pipeline pipeline({&*loaded}, request);
  TagResult r;
  r.sentence = train[0];
  pipeline.Run(&r);
  ASSERT_TRUE(r.error.ok()) << r.error;
  ASSERT_FALSE(r.solutions.empty());
  for (size_t i = 1; i < r.solutions.size(); ++i)
    EXPECT_GE(r.solutions[i - 1].score, r.solutions[i].score);
  EXPECT_GT(r.solutions[0].probability, 0.0);
}

TEST(LmbmTrainTest, TransitionsObservedKeepsUnseenPairsAtZero) {
  const std::vector<Sentence> train = Toy(40, 9);
  TrainOptions o;
  o.objective = Objective::kLmbm;
  o.c2 = 0.01;
  o.max_iterations = 50;
  auto unseen_weights = [&](Transitions transitions) {
    o.transitions = transitions;
    absl::StatusOr<Model> model = Train(o, Spec(), train, nullptr, nullptr);
    EXPECT_TRUE(model.ok()) << model.status();
    const ModelParameters p = model->Parameters();
    const std::vector<std::string>& labels = model->labels();
    std::set<std::pair<std::string, std::string>> seen;
    for (const Sentence& s : train) {
      for (size_t t = 1; t < s.labels.size(); ++t) seen.emplace(s.labels[t - 1], s.labels[t]);
    }
    double sum = 0.0;
    int unseen = 0;
    for (int from = 0; from < p.num_labels; ++from) {
      for (int to = 0; to < p.num_labels; ++to) {
        if (seen.count({labels[from], labels[to]})) continue;
        ++unseen;
        sum += std::fabs(p.weights[p.transition_offset() + from * p.num_labels + to]);
      }
    }
    EXPECT_GT(unseen, 0);
    return sum;
  };
  EXPECT_EQ(unseen_weights(Transitions::kObserved), 0.0);
  EXPECT_GT(unseen_weights(Transitions::kAll), 0.0);  // the wrong-label hinges push them down
}

TEST(LmbmTrainTest, RefusesOptionsThatDoNotFit) {
  TrainOptions o;
  o.objective = Objective::kLmbm;
  o.loss = LossKind::kHamming;
  EXPECT_FALSE(ResolveTrainOptions(o).ok());
  o.loss.reset();
  o.algorithm = Algorithm::kLbfgs;
  EXPECT_FALSE(ResolveTrainOptions(o).ok());
  o.algorithm = Algorithm::kAuto;
  o.eta0 = -1;
  EXPECT_FALSE(ResolveTrainOptions(o).ok());
  o.eta0 = 1;
  o.order = 2;
  EXPECT_FALSE(ResolveTrainOptions(o).ok());
  o.order = 1;
  absl::StatusOr<TrainOptions> resolved = ResolveTrainOptions(o);
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  EXPECT_EQ(resolved->algorithm, Algorithm::kDcd);
}

}  // namespace
}  // namespace chaintag
