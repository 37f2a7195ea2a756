// python-crfsuite's Tagger.probability(yseq) and marginal(y, t): P(y|x) of a given labeling,
// exp(F(y) - log Z) on the tagging lattice (transition mask applied, so a labeling the mask
// forbids has probability 0 and the probabilities of the allowed ones sum to 1, as tag() reports
// them), and P(y_t = y | x) by forward-backward.
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "chaintag/decode.h"
#include "python/convert.h"
#include "python/extras.h"

namespace chaintag::python {

namespace {

void CheckChainModel(const Model& model) {
  if (const ModelCapabilities caps = model.Capabilities(); !caps.label_lattice) {
    throw py::value_error(absl::StrCat("probability/marginal: not supported on ", caps.description,
                                       " (it needs a lattice over labels)"));
  }
}

Lattice LatticeOf(const Model& model, const Sentence& sentence) {
  Lattice lattice;
  absl::Status status;
  {
    py::gil_scoped_release release;
    Tagger tagger(model);
    status = tagger.BuildLattice(sentence, &lattice);
  }
  Check(status);
  return lattice;
}

int LabelIdOf(const Model& model, const py::handle& label, const std::string& what) {
  const std::string name = StrOf(label, what);
  const int id = model.LabelId(name);
  if (id < 0) {
    throw py::value_error(absl::StrCat(what, ": the model has no label '", name, "'"));
  }
  return id;
}

}  // namespace

double LabelingProbability(const Model& model, const Sentence& sentence, const py::handle& labels,
                           bool log) {
  CheckChainModel(model);
  if (py::isinstance<py::str>(labels) || !py::isinstance<py::sequence>(labels))
    throw py::type_error("y: expected a list of labels");
  const py::sequence seq = py::reinterpret_borrow<py::sequence>(labels);
  if (static_cast<int>(py::len(seq)) != sentence.size()) {
    throw py::value_error(absl::StrCat("y: expected ", sentence.size(),
                                       " labels (one per token), found ", py::len(seq)));
  }
  std::vector<int> ids;
  for (size_t t = 0; t < py::len(seq); ++t)
    ids.push_back(LabelIdOf(model, seq[t], absl::StrCat("y[", t, "]")));
  const Lattice lattice = LatticeOf(model, sentence);
  const double score = lattice.Score(ids);
  const double log_z = Check(LogPartition(lattice));
  const double log_p = score - log_z;
  return log ? log_p : std::exp(log_p);
}

double LabelMarginal(const Model& model, const Sentence& sentence, const py::handle& label,
                     const py::handle& position) {
  CheckChainModel(model);
  const int y = LabelIdOf(model, label, "y");
  const long long m = sentence.size();
  long long t = IntOf(position, "t", -m, m - 1);
  if (t < 0) t += m;
  const Lattice lattice = LatticeOf(model, sentence);
  const Marginals marginals = Check(ForwardBackward(lattice));
  return marginals.unary_at(static_cast<int>(t), y, model.num_labels());
}

}  // namespace chaintag::python
