// The `chaintag` command: dispatches to one subcommand per file in src/cli/.
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "cli/commands.h"

namespace {

const chaintag::cli::Command kCommands[] = {
    {"tag", "label text or corpus files with one or more models (default: en-pos then en-chunk)",
     chaintag::cli::RunTag},
    {"train", "train a model on labelled corpus files", chaintag::cli::RunTrain},
    {"eval", "score predicted labels against gold labels (accuracy, conlleval chunk F1)",
     chaintag::cli::RunEval},
    {"convert", "convert corpora between formats", chaintag::cli::RunConvert},
    {"stats", "corpus statistics: sentences, tokens, types, labels, lengths", chaintag::cli::RunStats},
    {"lexicon", "build a tag lexicon (word and its labels) from labelled files, for train --lexicon",
     chaintag::cli::RunLexicon},
    {"info", "print a model's metadata, sizes and top-weighted features", chaintag::cli::RunInfo},
};

void PrintUsage(std::ostream& out) {
  out << "usage: chaintag <command> [options] [files]\n\ncommands:\n";
  for (const auto& c : kCommands) {
    std::string name = c.name;
    name.resize(10, ' ');
    out << "  " << name << c.summary << "\n";
  }
  out << "\nRun 'chaintag <command> --help' for a command's options.\n";
}

}  // namespace

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
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
    if (command == c.name) return c.run(args);
  }
  std::cerr << "chaintag: unknown command '" << command << "'\n";
  PrintUsage(std::cerr);
  return chaintag::cli::kExitUsage;
}
