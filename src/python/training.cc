// chaintag.train and chaintag.evaluate: training data from files or from memory, trainer
// options as keyword arguments, and conlleval-style scores.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "chaintag/corpus.h"
#include "chaintag/eval.h"
#include "chaintag/features.h"
#include "chaintag/model.h"
#include "chaintag/train.h"
#include "model/model_file.h"
#include "python/convert.h"
#include "python/extras.h"

namespace chaintag::python {
namespace {

// A training item: (tokens, labels) where tokens are str or column tuples.
Sentence LabelledSentence(const py::handle& item, size_t index, bool attributes, const char* kind) {
  py::sequence pair = py::reinterpret_borrow<py::sequence>(item);
  if (!py::isinstance<py::sequence>(item) || py::isinstance<py::str>(item) || py::len(pair) != 2) {
    throw py::type_error(
        absl::StrCat(kind, " sequence ", index, ": expected a (tokens, labels) pair"));
  }
  const std::string what = absl::StrCat(kind, " sequence ", index);
  Sentence s = SentenceFrom(pair[0], what.c_str(), attributes);
  py::object labels = pair[1];
  if (py::isinstance<py::str>(labels))
    throw py::type_error(what + ": expected a list of labels, found a string");
  for (py::handle l : labels) {
    if (!py::isinstance<py::str>(l)) throw py::type_error(what + ": expected str labels");
    std::string label = Utf8(l, what + ": label");
    if (label.empty()) throw py::value_error(what + ": expected non-empty labels");
    // Checked now, not when the trained model is saved.
    if (absl::Status st = model_file::CheckModelString(
            label, model_file::StringRule::kName,
            absl::StrCat("the label at token ", s.labels.size()), what);
        !st.ok()) {
      throw py::value_error(std::string(st.message()));
    }
    s.labels.push_back(std::move(label));
  }
  if (static_cast<int>(s.labels.size()) != s.size()) {
    throw py::value_error(absl::StrCat(what, ": expected ", s.size(),
                                       " labels (one per token), found ", s.labels.size()));
  }
  s.file = what;
  s.token_lines.assign(s.size(), 0);
  return s;
}

// Files (a path or a list of paths) or in-memory (tokens, labels) pairs.
struct TrainData {
  std::vector<std::string> files;
  std::vector<Sentence> sentences;
};
// `attributes`: in-memory sequences are per-token attribute dicts/lists; nullopt: decided by the
// first sequence (dict tokens mean attributes) and returned through `detected`.
TrainData TrainDataOf(const py::object& data, const char* what, std::optional<bool> attributes,
                      bool* detected = nullptr) {
  TrainData d;
  if (IsPathLike(data)) {
    d.files.push_back(PathOf(data));
    return d;
  }
  std::vector<py::object> items;
  for (py::handle item : data) items.push_back(py::reinterpret_borrow<py::object>(item));
  bool all_paths = !items.empty();
  for (const py::object& item : items) all_paths &= IsPathLike(item);
  if (all_paths) {
    for (const py::object& item : items) d.files.push_back(PathOf(item));
    return d;
  }
  if (!attributes.has_value()) {
    bool dicts = false;
    if (!items.empty() && py::isinstance<py::sequence>(items[0]) &&
        !py::isinstance<py::str>(items[0]) && py::len(items[0]) == 2) {
      dicts = LooksLikeAttributes(py::reinterpret_borrow<py::sequence>(items[0])[0]);
    }
    attributes = dicts;
  }
  if (detected != nullptr) *detected = *attributes;
  for (size_t i = 0; i < items.size(); ++i) {
    // Ctrl-C while a large corpus is converted.
    if (i % 256 == 255 && PyErr_CheckSignals() != 0) throw py::error_already_set();
    d.sentences.push_back(LabelledSentence(items[i], i, *attributes,
                                           std::string_view(what) == "dev" ? "dev" : "training"));
  }
  if (d.sentences.empty()) throw py::value_error(absl::StrCat(what, ": no training sequences"));
  return d;
}

std::string OptionText(const py::handle& v) {
  if (py::isinstance<py::bool_>(v)) return v.cast<bool>() ? "true" : "false";
  if (py::isinstance<py::float_>(v)) return NumberText(v.cast<double>());
  return StrOf(v, "option");
}

}  // namespace

std::shared_ptr<const Model> TrainModel(const py::object& data, const py::object& preset,
                                        const py::object& templ, const py::object& template_text,
                                        const py::object& format, int label_column,
                                        const std::string& objective, const py::object& loss,
                                        const py::object& algorithm, const py::object& dev,
                                        const py::object& progress, const py::kwargs& options) {
  TrainOptions train_options;
  Check(SetTrainOption(&train_options, "objective", objective));
  if (!loss.is_none()) Check(SetTrainOption(&train_options, "loss", OptionText(loss)));
  if (!algorithm.is_none())
    Check(SetTrainOption(&train_options, "algorithm", OptionText(algorithm)));
  for (auto kv : options) {
    const std::string name = StrOf(kv.first, "keyword");
    if (name == "objective" || name == "loss" || name == "algorithm") continue;
    Check(SetTrainOption(&train_options, name, OptionText(kv.second)));
  }
  Check(ValidateTrainOptions(train_options));
  if (train_options.early_stopping > 0 && dev.is_none())
    throw py::value_error("early_stopping needs dev= (it stops on the dev score)");

  // Attribute input (per-token feature dicts, or files in CRFsuite's format) has no templates.
  std::optional<CorpusFormat> format_given;
  if (!format.is_none()) format_given = Check(ParseCorpusFormat(StrOf(format, "format")));
  std::optional<bool> in_memory_attributes;
  if (format_given.has_value()) in_memory_attributes = *format_given == CorpusFormat::kAttributes;
  bool detected = false;
  TrainData train = TrainDataOf(data, "data", in_memory_attributes, &detected);
  ReaderOptions reader;
  if (format_given.has_value()) {
    reader.format = *format_given;
  } else if (!train.files.empty()) {
    reader.format = CorpusFormatFromPath(train.files.front());
  } else if (detected) {
    reader.format = CorpusFormat::kAttributes;
  }
  reader.label_column = label_column;
  const bool attribute_input = reader.format == CorpusFormat::kAttributes;

  const int given = !preset.is_none() + !templ.is_none() + !template_text.is_none();
  if (attribute_input && given != 0) {
    throw py::value_error(
        "attribute input (feature dicts or format='attributes') takes no preset=, template= or "
        "template_text=");
  }
  if (!attribute_input && given != 1)
    throw py::value_error("give exactly one of preset=, template= (a file) and template_text=");
  FeatureSpec spec;
  std::string spec_name;
  if (attribute_input) {
    spec = FeatureSpec::AttributeInput();
    spec_name = "(attribute input)";
  } else if (!preset.is_none()) {
    spec_name = StrOf(preset, "preset");
    auto s = FeatureSpec::Preset(spec_name);
    if (!s.ok()) {
      throw py::value_error(
          absl::StrCat("preset '", spec_name, "': ", s.status().message(),
                       " (presets: ", absl::StrJoin(FeatureSpec::PresetNames(), ", "), ")"));
    }
    spec = *std::move(s);
  } else if (!templ.is_none()) {
    spec_name = PathOf(templ);
    spec = Check(FeatureSpec::ReadFile(spec_name));
  } else {
    spec_name = "<template_text>";
    spec = Check(FeatureSpec::Parse(Utf8(template_text, "template_text")));
  }

  std::vector<Sentence> dev_sentences;
  if (!dev.is_none()) {
    TrainData d = TrainDataOf(dev, "dev", attribute_input);
    if (!d.files.empty()) {
      py::gil_scoped_release release;
      auto read = ReadCorpus(d.files, reader);
      py::gil_scoped_acquire acquire;
      dev_sentences = Check(std::move(read));
    } else {
      dev_sentences = std::move(d.sentences);
    }
  }
  TrainDataInfo info;
  info.input = InputOptionsOf(reader);
  info.metadata.emplace_back("templates", spec_name);
  info.metadata.emplace_back("training_files", train.files.empty()
                                                   ? "<python sequences>"
                                                   : absl::StrJoin(train.files, " "));

  // Everything training reads is owned by the job: after Ctrl-C the training thread finishes its
  // iteration on its own.
  struct Inputs {
    TrainOptions options;
    FeatureSpec spec;
    TrainData train;
    std::vector<Sentence> dev;
    ReaderOptions reader;
    TrainDataInfo info;
  };
  auto in =
      std::make_shared<Inputs>(Inputs{std::move(train_options), std::move(spec), std::move(train),
                                      std::move(dev_sentences), reader, std::move(info)});
  absl::StatusOr<Model> model = TrainInterruptibly(
      [in](TrainObserver* observer) -> absl::StatusOr<Model> {
        const std::vector<Sentence>* dev_ptr = in->dev.empty() ? nullptr : &in->dev;
        if (in->train.files.empty())
          return Train(in->options, in->spec, in->train.sentences, dev_ptr, observer, in->info);
        size_t next_file = 0;
        std::unique_ptr<SentenceReader> sentence_reader;
        SentenceSource source = [&]() -> absl::StatusOr<std::optional<Sentence>> {
          for (;;) {
            if (sentence_reader == nullptr) {
              if (next_file == in->train.files.size()) return std::nullopt;
              auto opened = OpenSentenceReader(in->train.files[next_file++], in->reader);
              if (!opened.ok()) return opened.status();
              sentence_reader = std::move(*opened);
            }
            auto next = sentence_reader->Next();
            if (!next.ok() || next->has_value()) return next;
            sentence_reader.reset();
          }
        };
        return Train(in->options, in->spec, source, dev_ptr, observer, in->info);
      },
      progress);
  return std::make_shared<const Model>(Check(std::move(model)));
}

// conlleval-style scores of predicted against gold label sequences (the `eval` command's).
py::dict Evaluate(const py::object& gold, const py::object& predicted) {
  std::vector<std::vector<std::string>> g, p;
  auto read = [](const py::object& seqs, const char* what,
                 std::vector<std::vector<std::string>>* out) {
    if (py::isinstance<py::str>(seqs))
      throw py::type_error(absl::StrCat(what, ": expected a list of label lists"));
    for (py::handle seq : seqs) {
      if (py::isinstance<py::str>(seq))
        throw py::type_error(
            absl::StrCat(what, ": expected a list of label lists, found a string"));
      std::vector<std::string> labels;
      for (py::handle l : seq) {
        if (!py::isinstance<py::str>(l))
          throw py::type_error(absl::StrCat(what, ": expected str labels"));
        labels.push_back(Utf8(l, what));
      }
      out->push_back(std::move(labels));
    }
  };
  read(gold, "gold", &g);
  read(predicted, "predicted", &p);
  if (g.size() != p.size()) {
    throw py::value_error(absl::StrCat("expected as many predicted sequences as gold ones (",
                                       g.size(), "), found ", p.size()));
  }
  Evaluator evaluator;
  for (size_t i = 0; i < g.size(); ++i) {
    absl::Status s = evaluator.Add(g[i], p[i]);
    if (!s.ok()) throw py::value_error(absl::StrCat("sequence ", i, ": ", s.message()));
  }
  const EvalReport report = evaluator.Report();
  // Chunk types and labels have the same six counts and scores.
  auto scores = [](const auto& s) {
    py::dict d;
    d["gold"] = s.gold;
    d["predicted"] = s.predicted;
    d["correct"] = s.correct;
    d["precision"] = s.precision;
    d["recall"] = s.recall;
    d["f1"] = s.f1;
    return d;
  };
  py::dict out;
  out["sentences"] = report.sentences;
  out["tokens"] = report.tokens;
  out["accuracy"] = report.accuracy;
  out["has_chunks"] = report.has_chunks;
  out["precision"] = report.overall.precision;
  out["recall"] = report.overall.recall;
  out["f1"] = report.overall.f1;
  out["phrases"] = scores(report.overall);
  py::dict types;
  for (const PhraseScore& s : report.chunks) types[py::str(s.type)] = scores(s);
  out["types"] = types;
  py::dict labels;
  for (const LabelScore& s : report.labels) labels[py::str(s.label)] = scores(s);
  out["labels"] = labels;
  out["report"] = FormatEvalReport(report);
  return out;
}

}  // namespace chaintag::python
