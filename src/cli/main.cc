// The `chaintag` command: dispatches to one subcommand per file in src/cli/.
#include <csignal>
#include <cstring>
#include <exception>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "chaintag/corpus.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/ranks.h"

namespace {

const chaintag::cli::Command kCommands[] = {
    {"tag", "label text or corpus files with one or more models (default: en-pos then en-chunk)",
     chaintag::cli::RunTag},
    {"train", "train a model on labelled corpus files", chaintag::cli::RunTrain},
    {"eval", "score predicted labels against gold labels (accuracy, conlleval chunk F1)",
     chaintag::cli::RunEval},
    {"convert", "convert corpora between formats", chaintag::cli::RunConvert},
    {"stats", "corpus statistics: sentences, tokens, types, labels, lengths",
     chaintag::cli::RunStats},
    {"lexicon",
     "build a tag lexicon (word and its labels) from labelled files, for train --lexicon",
     chaintag::cli::RunLexicon},
    {"clusters",
     "Brown clusters of unlabeled text as a paths file, for train --clusters and cluster()",
     chaintag::cli::RunClusters},
    {"embeddings",
     "word vectors with subword n-grams (fastText skipgram) of unlabeled text, for the neural "
     "encoder",
     chaintag::cli::RunEmbeddings},
    {"info", "print a model's metadata, sizes and top-weighted features", chaintag::cli::RunInfo},
    {"clique", "MAP labelings of cardinality cliques given as JSON lines (alpha-pass, ICM, exact)",
     chaintag::cli::RunClique},
    {"serve", "a tagging service over HTTP/JSON with a demo page (POST /tag, GET /models, GET /)",
     chaintag::cli::RunServe},
};

void PrintUsage(std::ostream& out) {
  out << "usage: chaintag <command> [options] [files]\n\ncommands:\n";
  for (const auto& c : kCommands) {
    std::string name = c.name;
    name.resize(12, ' ');
    out << "  " << name << c.summary << "\n";
  }
  out << "\nRun 'chaintag <command> --help' for a command's options.\n";
}

// SIGINT/SIGTERM/SIGHUP/SIGPIPE: remove unfinished output files, then die of the signal as usual.
extern "C" void OnTerminatingSignal(int sig) {
  chaintag::RemoveTemporaryFiles();
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

// Runs a subcommand; anything it throws (out of memory, an I/O or thread failure) becomes a
// message and exit 1, after unwinding has removed its temporary files.
int RunCommand(const chaintag::cli::Command& c, const std::vector<std::string>& args) {
  try {
    return c.run(args);
  } catch (const std::bad_alloc&) {
    std::cerr << "chaintag " << c.name << ": out of memory\n";
  } catch (const std::exception& e) {
    std::cerr << "chaintag " << c.name << ": internal error: " << e.what() << "\n";
  } catch (...) {
    std::cerr << "chaintag " << c.name << ": internal error\n";
  }
  return chaintag::cli::kExitError;
}

}  // namespace

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) std::signal(sig, OnTerminatingSignal);
  if (argc < 2) {
    PrintUsage(std::cerr);
    return chaintag::cli::kExitUsage;
  }
  const std::string command = argv[1];
  if (command == "--help" || command == "-h" || command == "help") {
    PrintUsage(std::cout);
    return chaintag::cli::kExitOk;
  }
  if (command == "--version") {
    std::cout << "chaintag " << CHAINTAG_VERSION << "\n";
    return chaintag::cli::kExitOk;
  }
  std::vector<std::string> args(argv + 2, argv + argc);
  for (const auto& c : kCommands) {
    if (command == c.name) return chaintag::cli::EndRanks(RunCommand(c, args));
  }
  std::cerr << "chaintag: unknown command '" << command << "'\n";
  PrintUsage(std::cerr);
  return chaintag::cli::kExitUsage;
}
