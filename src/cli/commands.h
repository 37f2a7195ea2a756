// Entry points of the subcommands, one source file each.
#ifndef CHAINTAG_CLI_COMMANDS_H_
#define CHAINTAG_CLI_COMMANDS_H_

#include <string>
#include <vector>

namespace chaintag::cli {

int RunTag(const std::vector<std::string>& args);
int RunTrain(const std::vector<std::string>& args);
int RunEval(const std::vector<std::string>& args);
int RunConvert(const std::vector<std::string>& args);
int RunStats(const std::vector<std::string>& args);
int RunInfo(const std::vector<std::string>& args);
int RunLexicon(const std::vector<std::string>& args);
int RunClusters(const std::vector<std::string>& args);
int RunEmbeddings(const std::vector<std::string>& args);
int RunClique(const std::vector<std::string>& args);
int RunServe(const std::vector<std::string>& args);

}  // namespace chaintag::cli

#endif  // CHAINTAG_CLI_COMMANDS_H_
