// chaintag clique [--algorithm A] [--max-marginals] [-o FILE] [FILE...]
// Solves cardinality cliques given as JSON lines (see src/collective/collective.h).
#include <chrono>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "chaintag/corpus.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/json.h"
#include "collective/collective.h"

namespace chaintag::cli {

namespace {

void WriteResult(const Clique& clique, const CliqueSolution& solution, double seconds,
                 const std::vector<double>* max_marginals, std::ostream& out) {
  out << "{\"labels\": [";
  for (size_t u = 0; u < solution.labels.size(); ++u) out << (u ? ", " : "") << solution.labels[u];
  out << "], \"score\": " << JsonNumber(solution.score) << ", \"seconds\": " << JsonNumber(seconds);
  if (max_marginals != nullptr) {
    const int m = clique.num_labels();
    out << ", \"max_marginals\": [";
    for (int u = 0; u < clique.num_nodes(); ++u) {
      out << (u ? ", [" : "[");
      for (int y = 0; y < m; ++y) out << (y ? ", " : "") << JsonNumber((*max_marginals)[u * m + y]);
      out << "]";
    }
    out << "]";
  }
  out << "}\n";
}

}  // namespace

int RunClique(const std::vector<std::string>& args) {
  const std::string cmd = "clique";
  po::options_description options("clique options");
  options.add_options()(
      "algorithm,a", po::value<std::string>()->default_value("alpha-pass"),
      "alpha-pass (exact for MAX potentials and 2 labels; modified alpha-pass for MAJORITY), "
      "alpha-pass-2 (label pairs, MAX/SUM), icm, exact (brute force, small cliques) or "
      "majority-exact (min-cost flows)")(
      "max-marginals", po::bool_switch(),
      "also write max_marginals[u][y]: the algorithm's best score with node u fixed to label y")(
      "output,o", po::value<std::string>()->default_value("-"),
      "write the results to FILE (replaced only when every clique was solved)");
  po::variables_map vm;
  if (int rc = ParseOrExit(cmd, "[--algorithm A] [--max-marginals] [-o FILE] [CLIQUES.jsonl...]",
                           options, args, &vm);
      rc >= 0) {
    return rc;
  }
  auto algorithm = ParseCliqueAlgorithm(vm["algorithm"].as<std::string>());
  if (!algorithm.ok()) return UsageError(cmd, std::string(algorithm.status().message()));
  const bool max_marginals = vm["max-marginals"].as<bool>();
  if (absl::Status s = CheckOutputIsNotAnInput(vm["output"].as<std::string>(), FilesRead(vm, {}));
      !s.ok()) {
    return UsageError(cmd, std::string(s.message()));
  }
  auto output = Output::Open(vm["output"].as<std::string>());
  if (!output.ok()) return Fail(cmd, output.status());

  for (const std::string& file : InputFiles(vm)) {
    auto in = OpenInputStream(file);
    if (!in.ok()) return Fail(cmd, in.status());
    CliqueReader reader(**in, file == "-" ? "<stdin>" : file);
    while (true) {
      auto clique = reader.Next();
      if (!clique.ok()) return Fail(cmd, clique.status());
      if (!clique->has_value()) break;
      const auto start = std::chrono::steady_clock::now();
      auto solution = SolveClique(**clique, *algorithm);
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      // Errors of the algorithms name the clique's line.
      auto at_line = [&](const absl::Status& status) {
        return absl::Status(status.code(), absl::StrCat(Location(file == "-" ? "<stdin>" : file,
                                                                 reader.line_number()),
                                                        ": ", status.message()));
      };
      if (!solution.ok()) return Fail(cmd, at_line(solution.status()));
      std::vector<double> marginals;
      if (max_marginals) {
        auto mm = CliqueMaxMarginals(**clique, *algorithm);
        if (!mm.ok()) return Fail(cmd, at_line(mm.status()));
        marginals = std::move(*mm);
      }
      WriteResult(**clique, *solution, seconds, max_marginals ? &marginals : nullptr,
                  (*output)->stream());
    }
  }
  if (absl::Status s = (*output)->Commit(); !s.ok()) return Fail(cmd, s);
  return kExitOk;
}

}  // namespace chaintag::cli
