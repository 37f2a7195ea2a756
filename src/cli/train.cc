// chaintag train --format F [--label-column N] (--preset P | --template FILE) [--algorithm A]
//                [--dev FILE] -o MODEL FILE...
// Trainer options come from the trainer's option table (TrainOptionTable), so --help, parsing
// and the model's metadata never disagree about a default.
#include "chaintag/train.h"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "chaintag/features.h"
#include "chaintag/model.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/ranks.h"

namespace chaintag::cli {

namespace {

std::string FlagName(const std::string& option) {
  return absl::StrReplaceAll(option, {{"_", "-"}});
}

// One stderr line per iteration (structural SVM: per pass).
class ProgressPrinter : public TrainObserver {
 public:
  void OnIteration(const TrainProgress& p) override {
    for (const std::string& warning : p.warnings) {
      std::cerr << "chaintag train: warning: " << warning << "\n";
    }
    std::string line;
    if (p.epoch) {
      line = absl::StrFormat("epoch %4d  loss %.6g", p.iteration, p.objective);
    } else if (p.mean_loss.has_value()) {
      line = absl::StrFormat("pass %4d  primal %.6g", p.iteration, p.objective);
      if (p.duality_gap) absl::StrAppendFormat(&line, "  gap %.4g", *p.duality_gap);
      absl::StrAppendFormat(&line, "  loss %.4g  inference %.1fs of %.1fs  active %d", *p.mean_loss,
                            p.inference_seconds, p.pass_seconds, p.active_features);
    } else {
      line = absl::StrFormat("iter %4d  objective %.6g  |g| %.4g  active %d", p.iteration,
                             p.objective, p.gradient_norm, p.active_features);
    }
    if (p.dev_score) absl::StrAppendFormat(&line, "  dev %s %.2f", p.dev_metric, *p.dev_score);
    absl::StrAppendFormat(&line, "  %.1fs", p.elapsed_seconds);
    std::cerr << line << "\n";
  }
};

}  // namespace

int RunTrain(const std::vector<std::string>& args) {
  const std::string cmd = "train";
  po::options_description options("train options");
  std::string presets = absl::StrJoin(FeatureSpec::PresetNames(), ", ");
  options.add_options()("output,o", po::value<std::string>()->required(), "model file to write")(
      "compress", po::bool_switch(),
      "write the model gzip-compressed (about 3x smaller; every command "
      "that reads models detects it)")("preset", po::value<std::string>(),
                                       ("feature template preset: " + presets).c_str())(
      "template", po::value<std::string>(), "feature template file (see docs/templates.md)")(
      "lexicon", po::value<std::string>(),
      "word-class lexicon (WORD<TAB>CLASS... lines) read by the lex() template function; stored "
      "in the model")("lexicon2", po::value<std::string>(),
                      "a second word-class lexicon, read by the lex2() template function; stored "
                      "in the model")(
      "clusters", po::value<std::string>(),
      "word clusters (a paths file, BITSTRING<TAB>WORD<TAB>COUNT lines, as chaintag clusters "
      "writes) read by the cluster() template function; stored in the model")(
      "dev", po::value<std::vector<std::string>>(), "development file(s), scored every iteration")(
      "checkpoint", po::value<std::string>(),
      "save the optimiser state to this file (atomically) every --checkpoint-every iterations; "
      "crf, softmax-margin and ldcrf (see docs/distributed.md)")(
      "checkpoint-every", po::value<int>(), "iterations between checkpoints (default 10)")(
      "resume", po::value<std::string>(),
      "continue from a checkpoint written with the same options and training data")(
      "mpi", po::bool_switch(),
      "train over MPI ranks even when no MPI launcher is detected (mpirun is detected without "
      "it; see docs/distributed.md)");
  po::options_description trainer("trainer options");
  for (const TrainOptionDef& def : TrainOptionTable()) {
    trainer.add_options()(FlagName(def.name).c_str(),
                          po::value<std::string>()->default_value(def.default_value),
                          def.help.c_str());
  }
  options.add(trainer);
  AddReaderOptions(&options);
  po::variables_map vm;
  if (int rc =
          ParseOrExit(cmd, "--format F (--preset P | --template FILE) [options] -o MODEL FILE...",
                      options, args, &vm);
      rc >= 0) {
    return rc;
  }
  if (!vm.count("files")) return UsageError(cmd, "expected training files");
  const std::vector<std::string> files = vm["files"].as<std::vector<std::string>>();
  const std::string output = vm["output"].as<std::string>();
  if (absl::Status s = CheckOutputIsNotAnInput(
          output, FilesRead(vm, {"dev", "lexicon", "lexicon2", "clusters", "template", "resume"}));
      !s.ok()) {
    return UsageError(cmd, std::string(s.message()));
  }
  if (vm.count("checkpoint-every") && !vm.count("checkpoint")) {
    return UsageError(cmd, "--checkpoint-every needs --checkpoint FILE");
  }
  const int checkpoint_every = vm.count("checkpoint-every") ? vm["checkpoint-every"].as<int>() : 10;
  if (checkpoint_every < 1) {
    return UsageError(
        cmd, absl::StrCat("--checkpoint-every: expected at least 1, found ", checkpoint_every));
  }
  if (vm.count("checkpoint")) {
    std::vector<InputFile> inputs =
        FilesRead(vm, {"dev", "lexicon", "lexicon2", "clusters", "template"});
    inputs.push_back({output, "--output"});
    if (absl::Status s = CheckOutputIsNotAnInput(vm["checkpoint"].as<std::string>(), inputs);
        !s.ok()) {
      return UsageError(cmd, std::string(s.message()));
    }
  }
  auto reader_options = ReaderOptionsFrom(vm, files);
  if (!reader_options.ok()) return UsageError(cmd, std::string(reader_options.status().message()));
  // Attribute input (CRFsuite data format) carries its features: no templates.
  const bool attribute_input = reader_options->format == CorpusFormat::kAttributes;
  if (attribute_input && (vm.count("preset") || vm.count("template") || vm.count("lexicon"))) {
    return UsageError(cmd,
                      "--format attributes reads the features from the file; give no --preset, "
                      "--template or --lexicon");
  }
  if (!attribute_input && vm.count("preset") == vm.count("template"))
    return UsageError(cmd, "give exactly one of --preset and --template");

  TrainOptions train_options;
  for (const TrainOptionDef& def : TrainOptionTable()) {
    if (absl::Status s =
            SetTrainOption(&train_options, def.name, vm[FlagName(def.name)].as<std::string>());
        !s.ok()) {
      return UsageError(cmd, std::string(s.message()));
    }
  }
  if (absl::Status s = ValidateTrainOptions(train_options); !s.ok())
    return UsageError(cmd, std::string(s.message()));
  if (train_options.early_stopping > 0 && !vm.count("dev")) {
    return UsageError(cmd, "--early-stopping needs --dev (it stops on the dev score)");
  }

  FeatureResources resources;
  for (const char* option : {"lexicon", "lexicon2"}) {
    if (!vm.count(option)) continue;
    absl::StatusOr<Lexicon> read = Lexicon::Read(vm[option].as<std::string>());
    if (!read.ok()) return Fail(cmd, read.status());
    (std::string(option) == "lexicon" ? resources.lexicon : resources.lexicon2) =
        std::make_shared<const Lexicon>(*std::move(read));
  }
  if (vm.count("clusters")) {
    absl::StatusOr<WordClusters> read = WordClusters::Read(vm["clusters"].as<std::string>());
    if (!read.ok()) return Fail(cmd, read.status());
    resources.clusters = std::make_shared<const WordClusters>(*std::move(read));
  }
  const bool given_lexicon = resources.lexicon != nullptr;
  const bool given_lexicon2 = resources.lexicon2 != nullptr;
  const bool given_clusters = resources.clusters != nullptr;
  absl::StatusOr<FeatureSpec> spec;
  std::string spec_name;
  if (attribute_input) {
    spec = FeatureSpec::AttributeInput();
    spec_name = "(attribute input)";
  } else if (vm.count("preset")) {
    spec_name = vm["preset"].as<std::string>();
    spec = FeatureSpec::Preset(spec_name, resources);
    if (!spec.ok())
      return UsageError(cmd, absl::StrCat("preset '", spec_name, "': ", spec.status().message()));
  } else {
    spec_name = vm["template"].as<std::string>();
    spec = FeatureSpec::ReadFile(spec_name, resources);  // errors start with the path
    if (!spec.ok()) return Fail(cmd, spec.status());
  }
  if (given_lexicon && !spec->uses_lexicon()) {
    return UsageError(cmd, absl::StrCat("--lexicon is given, but no template of '", spec_name,
                                        "' calls lex() (try --preset pos-lexicon)"));
  }
  if (given_lexicon2 && !spec->uses_lexicon2()) {
    return UsageError(cmd, absl::StrCat("--lexicon2 is given, but no template of '", spec_name,
                                        "' calls lex2()"));
  }
  if (given_clusters && !spec->uses_clusters()) {
    return UsageError(cmd, absl::StrCat("--clusters is given, but no template of '", spec_name,
                                        "' calls cluster() (see docs/templates.md)"));
  }

  absl::StatusOr<Communicator*> ranks = Ranks(vm["mpi"].as<bool>());
  if (!ranks.ok()) return UsageError(cmd, std::string(ranks.status().message()));
  // Rank 0 reports progress and writes the model; every rank trains.
  const bool lead = LeadRank(*ranks);
  // Fail before hours of training, not after.
  if (lead) {
    if (absl::Status s = CheckWritable(output); !s.ok()) return Fail(cmd, s);
    if (vm.count("checkpoint")) {
      if (absl::Status s = CheckWritable(vm["checkpoint"].as<std::string>()); !s.ok()) {
        return Fail(cmd, s);
      }
    }
  }

  std::vector<Sentence> dev;
  if (vm.count("dev")) {
    auto read = ReadCorpus(vm["dev"].as<std::vector<std::string>>(), *reader_options);
    if (!read.ok()) return Fail(cmd, read.status());
    dev = std::move(*read);
  }
  // Training files stream through featurization, so the corpus is never held in memory; the
  // summary line is printed when the last sentence has been read, before the first iteration.
  size_t next_file = 0;
  std::unique_ptr<SentenceReader> reader;
  int64_t sentences = 0, tokens = 0;
  SentenceSource train = [&]() -> absl::StatusOr<std::optional<Sentence>> {
    for (;;) {
      if (reader == nullptr) {
        if (next_file == files.size()) {
          if (!lead) return std::nullopt;
          std::cerr << "chaintag train: " << sentences << " sentences, " << tokens << " tokens";
          if (!dev.empty()) std::cerr << "; dev " << dev.size() << " sentences";
          if (IsDistributed(*ranks)) std::cerr << "; " << (*ranks)->size() << " MPI ranks";
          std::cerr << "\n";
          return std::nullopt;
        }
        auto opened = OpenSentenceReader(files[next_file++], *reader_options);
        if (!opened.ok()) return opened.status();
        reader = std::move(*opened);
      }
      absl::StatusOr<std::optional<Sentence>> next = reader->Next();
      if (!next.ok()) return next.status();
      if (next->has_value()) {
        ++sentences;
        tokens += (*next)->size();
        return next;
      }
      reader.reset();
    }
  };

  TrainDataInfo info;
  info.input = InputOptionsOf(*reader_options);
  info.metadata.emplace_back("templates", spec_name);
  info.metadata.emplace_back("training_files", absl::StrJoin(files, " "));
  if (vm.count("dev")) {
    info.metadata.emplace_back("dev_files",
                               absl::StrJoin(vm["dev"].as<std::vector<std::string>>(), " "));
  }
  info.ranks = *ranks;
  if (vm.count("checkpoint")) {
    info.checkpoint = vm["checkpoint"].as<std::string>();
    info.checkpoint_every = checkpoint_every;
  }
  if (vm.count("resume")) {
    info.resume = vm["resume"].as<std::string>();
    if (lead) std::cerr << "chaintag train: resuming from " << info.resume << "\n";
  }
  ProgressPrinter progress;
  auto model = Train(train_options, *spec, train, dev.empty() ? nullptr : &dev,
                     lead ? &progress : nullptr, info);
  if (!model.ok()) return Fail(cmd, model.status());
  if (!lead) return kExitOk;
  const ModelFileCompression compression =
      vm["compress"].as<bool>() ? ModelFileCompression::kGzip : ModelFileCompression::kNone;
  if (absl::Status s = model->Save(output, compression); !s.ok()) return Fail(cmd, s);
  std::cerr << "chaintag train: wrote " << output << "\n";
  if (IsDistributed(*ranks)) {
    const Communicator::Stats& c = (*ranks)->stats();
    std::cerr << absl::StrFormat(
        "chaintag train: rank 0 of %d: %d collectives, %.1f MB handed in, %.1f s inside them\n",
        (*ranks)->size(), c.calls, c.bytes / 1e6, c.seconds);
  }
  return kExitOk;
}

}  // namespace chaintag::cli
