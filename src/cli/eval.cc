// chaintag eval [--format F] --gold-column N --pred-column N FILE...
// chaintag eval -m MODEL [--format F] FILE...
#include "chaintag/eval.h"

#include <cmath>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "chaintag/chunks.h"
#include "chaintag/lattice.h"
#include "chaintag/model.h"
#include "chaintag/train.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "train/losses.h"

namespace chaintag::cli {

namespace {

// Resolves a 1-based (negative: from the end) column number against `num_columns`.
absl::StatusOr<int> ResolveColumn(const Sentence& sentence, int column, const std::string& flag) {
  const int n = sentence.num_columns();
  const int index = column > 0 ? column - 1 : n + column;
  if (column == 0 || index < 0 || index >= n) {
    return ErrorAt(sentence, 0,
                   absl::StrCat(flag, " ", column, " is beyond the ", n, " columns present"));
  }
  return index;
}

}  // namespace

int RunEval(const std::vector<std::string>& args) {
  const std::string cmd = "eval";
  po::options_description options("eval options");
  options.add_options()("model,m", po::value<std::string>(),
                        "tag the files with MODEL and score against their gold labels")(
      "gold-column", po::value<int>(),
      "1-based column of the gold labels (negative: from the end)")(
      "pred-column", po::value<int>(),
      "1-based column of the predicted labels (negative: from the end)")("json", po::bool_switch(),
                                                                         "print one JSON object")(
      "bound-term", po::bool_switch(),
      "with -m: also compute the PAC-Bayes bound term of Bauer, Nakajima and Mueller (2023, sec. "
      "4.2, McAllester's theorem), the mean over sentences of max_y 1[F(y*) - F(y) <= D(y*, y)] "
      "(1 - F1), F1 over chunks against the gold labels, exactly")(
      "bound-distance", po::value<std::string>()->default_value("hamming"),
      "D in --bound-term: hamming (wrongly labelled tokens, as in the theorem) or chunks (chunk "
      "false positives + false negatives)")(
      // One file per option (repeatable): a multi-token option would swallow the files to score.
      "unseen-from", po::value<std::vector<std::string>>()->composing(),
      "also score the tokens whose word (column 0, exact form) occurs in none of these files "
      "(e.g. the training files; read with the same reader options); repeat the option for "
      "several files");
  AddReaderOptions(&options);
  po::variables_map vm;
  if (int rc = ParseOrExit(cmd, "(-m MODEL | --gold-column N --pred-column N) [options] FILE...",
                           options, args, &vm);
      rc >= 0) {
    return rc;
  }
  const bool with_model = vm.count("model") > 0;
  const bool with_columns = vm.count("gold-column") || vm.count("pred-column");
  if (with_model == with_columns) {
    return UsageError(cmd, "give either -m MODEL or both --gold-column and --pred-column");
  }
  if (with_columns && !(vm.count("gold-column") && vm.count("pred-column"))) {
    return UsageError(cmd, "--gold-column and --pred-column go together");
  }
  const std::vector<std::string> files = InputFiles(vm);
  auto reader_options = ReaderOptionsFrom(vm, files);
  if (!reader_options.ok()) return UsageError(cmd, std::string(reader_options.status().message()));

  const bool bound_term = vm["bound-term"].as<bool>();
  if (bound_term && !with_model) return UsageError(cmd, "--bound-term needs -m MODEL");
  BoundDistance bound_distance = BoundDistance::kHamming;
  if (const std::string d = vm["bound-distance"].as<std::string>(); d == "chunks") {
    bound_distance = BoundDistance::kChunks;
  } else if (d != "hamming") {
    return UsageError(
        cmd, absl::StrCat("--bound-distance: expected hamming or chunks, found '", d, "'"));
  }
  if (!vm["bound-distance"].defaulted() && !bound_term) {
    return UsageError(cmd, "--bound-distance goes with --bound-term");
  }

  std::optional<Model> model;
  std::optional<Tagger> tagger;
  if (with_model) {
    auto loaded = Model::Load(vm["model"].as<std::string>());
    if (!loaded.ok()) return Fail(cmd, loaded.status());
    model.emplace(std::move(*loaded));
    if (const ModelCapabilities caps = model->Capabilities(); bound_term && !caps.label_lattice) {
      return UsageError(cmd, absl::StrCat("--bound-term is not supported on ", caps.description,
                                          " (it needs a lattice over labels)"));
    }
    tagger.emplace(*model);
  } else {
    if (reader_options->format != CorpusFormat::kConll) {
      return UsageError(cmd, "--gold-column/--pred-column read conll files");
    }
    reader_options->label_column = 0;  // every column is data; the two named ones are compared
  }

  // Words of the --unseen-from files; tokens of other words are scored apart.
  absl::flat_hash_set<std::string> seen_words;
  const bool score_unseen = vm.count("unseen-from") > 0;
  if (score_unseen) {
    absl::Status s = ForEachSentence(vm["unseen-from"].as<std::vector<std::string>>(),
                                     *reader_options, [&](Sentence&& sentence) {
                                       for (const std::string& w : sentence.columns[0]) {
                                         seen_words.insert(w);
                                       }
                                       return absl::OkStatus();
                                     });
    if (!s.ok()) return Fail(cmd, s);
  }
  int64_t unseen_tokens = 0, unseen_correct = 0, all_tokens = 0;
  auto count_unseen = [&](const Sentence& sentence, const std::vector<std::string>& gold,
                          const std::vector<std::string>& pred) {
    if (!score_unseen) return;
    for (size_t t = 0; t < gold.size() && t < pred.size(); ++t) {
      ++all_tokens;
      if (seen_words.contains(sentence.columns[0][t])) continue;
      ++unseen_tokens;
      if (gold[t] == pred[t]) ++unseen_correct;
    }
  };
  Evaluator evaluator;
  std::vector<std::string> predicted;
  std::optional<ChunkTable> chunks;
  absl::flat_hash_map<std::string, int> label_ids;
  if (bound_term) {
    chunks.emplace(model->labels());
    for (size_t i = 0; i < model->labels().size(); ++i)
      label_ids[model->labels()[i]] = static_cast<int>(i);
  }
  Lattice lattice;
  std::vector<int> gold_ids;
  double bound_sum = 0;
  int64_t bound_sentences = 0, forbidden_gold = 0;
  constexpr int64_t kMaxForbiddenGoldWarnings = 5;
  absl::Status read =
      ForEachSentence(files, *reader_options, [&](Sentence&& sentence) -> absl::Status {
        if (with_model) {
          if (!sentence.has_labels()) {
            return ErrorAt(sentence, 0, "expected gold labels to score against, found none");
          }
          if (bound_term && sentence.size() > 0) {
            gold_ids.clear();
            for (int t = 0; t < sentence.size(); ++t) {
              auto it = label_ids.find(sentence.labels[t]);
              if (it == label_ids.end()) {
                return ErrorAt(sentence, t,
                               absl::StrCat("--bound-term: expected a gold label the model "
                                            "knows, found \"",
                                            sentence.labels[t], "\""));
              }
              gold_ids.push_back(it->second);
            }
            if (absl::Status s = tagger->BuildLattice(sentence, &lattice); !s.ok()) return s;
            absl::StatusOr<double> term = BoundTerm(lattice, gold_ids, *chunks, bound_distance);
            if (!term.ok()) return term.status();
            if (std::isinf(lattice.Score(gold_ids))) {
              // Every labeling passes the margin test against F(y*) = -inf: the term says
              // nothing about the model's margin here.
              if (++forbidden_gold <= kMaxForbiddenGoldWarnings) {
                std::cerr << "chaintag eval: warning: " << Location(sentence)
                          << ": the model's transition mask forbids the gold labeling, so its "
                             "bound term is "
                          << *term << " whatever the scores\n";
              }
            }
            bound_sum += *term;
            ++bound_sentences;
          }
          auto labeling = tagger->Tag(sentence);
          if (!labeling.ok()) return labeling.status();
          predicted.clear();
          for (int y : labeling->labels) predicted.push_back(model->labels()[y]);
          count_unseen(sentence, sentence.labels, predicted);
          return evaluator.Add(sentence.labels, predicted);
        }
        auto gold = ResolveColumn(sentence, vm["gold-column"].as<int>(), "--gold-column");
        if (!gold.ok()) return gold.status();
        auto pred = ResolveColumn(sentence, vm["pred-column"].as<int>(), "--pred-column");
        if (!pred.ok()) return pred.status();
        count_unseen(sentence, sentence.columns[*gold], sentence.columns[*pred]);
        return evaluator.Add(sentence.columns[*gold], sentence.columns[*pred]);
      });
  if (!read.ok()) return Fail(cmd, read);
  EvalReport report = evaluator.Report();
  if (report.sentences == 0)
    return Fail(cmd, absl::InvalidArgumentError("no sentences found in the input"));
  std::string text =
      vm["json"].as<bool>() ? FormatEvalReportJson(report) : FormatEvalReport(report);
  if (forbidden_gold > kMaxForbiddenGoldWarnings) {
    std::cerr << "chaintag eval: warning: " << forbidden_gold
              << " sentences have a gold labeling the model's transition mask forbids\n";
  }
  if (bound_term) {
    const double mean = bound_sentences == 0 ? 0.0 : bound_sum / bound_sentences;
    if (vm["json"].as<bool>()) {
      // One object: the bound term joins the report's fields.
      text.insert(text.find('{') + 1,
                  absl::StrFormat("\"bound_term\": %.6f, \"bound_term_sentences\": %d, ", mean,
                                  bound_sentences));
    } else {
      absl::StrAppendFormat(&text, "bound term: %.6f (mean over %d sentences)\n", mean,
                            bound_sentences);
    }
  }
  if (score_unseen) {
    const double share = all_tokens == 0 ? 0.0 : 100.0 * unseen_tokens / all_tokens;
    const double accuracy = unseen_tokens == 0 ? 0.0 : 100.0 * unseen_correct / unseen_tokens;
    if (vm["json"].as<bool>()) {
      text.insert(text.find('{') + 1,
                  absl::StrFormat("\"unseen_tokens\": %d, \"unseen_correct\": %d, "
                                  "\"unseen_accuracy\": %.4f, ",
                                  unseen_tokens, unseen_correct, accuracy));
    } else {
      absl::StrAppendFormat(&text,
                            "unseen words: %d tokens (%.2f%%), accuracy %.2f%% (%d correct)\n",
                            unseen_tokens, share, accuracy, unseen_correct);
    }
  }
  std::cout << text;
  return FinishStdout(cmd);
}

}  // namespace chaintag::cli
