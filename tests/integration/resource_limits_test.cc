// Hostile inputs and options under a 2 GB address-space limit (issue 18): every command ends with
// exit 0, 1 or 2 and a message, never a signal, and leaves no temporary file behind. Uses the
// shipped chunk model.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/cli_test_util.h"

namespace chaintag::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kModel[] = "models/en-chunk.model";
// AddressSanitizer reserves terabytes of address space for its shadow, so under it the commands
// run without the limit and the out-of-memory cases are skipped.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
constexpr char kLimit[] = "";
#else
constexpr bool kSanitized = false;
constexpr char kLimit[] = "ulimit -v 2000000; ";
#endif

class ResourceLimitsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sentence_ = (dir_.path() / "one.conll").string();
    std::ofstream(sentence_) << "The\tDT\nold\tJJ\nman\tNN\nsaw\tVBD\nthe\tDT\nbig\tJJ\ndog\tNN\n"
                                "in\tIN\nthe\tDT\npark\tNN\n.\t.\n\n";
  }
  // Runs `chaintag ARGS` under the memory limit from a scratch directory.
  RunResult Run(const std::string& args) { return RunChaintag(args, std::string(kLimit)); }
  // Files in the scratch directory whose name says they are temporaries.
  void ExpectNoTemporaries() {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir_.path())) {
      EXPECT_THAT(entry.path().filename().string(), Not(HasSubstr(".tmp-"))) << entry.path();
    }
  }
  std::string Path(const std::string& name) const { return (dir_.path() / name).string(); }
  // Runs a bash script from the source tree ($B is the binary); returns what it printed.
  std::string RunScript(const std::string& body) {
    std::ofstream(Path("script.sh"))
        << "cd '" << CHAINTAG_SOURCE_DIR << "'\nB='" << CHAINTAG_BINARY << "'\n"
        << body << "\n";
    EXPECT_EQ(std::system(
                  ("bash '" + Path("script.sh") + "' > '" + Path("script.out") + "' 2>&1").c_str()),
              0);
    return ReadAll(Path("script.out"));
  }

  TempDir dir_;
  std::string sentence_;
};

TEST_F(ResourceLimitsTest, HugeKBestIsTooLargeNotACrash) {
  RunResult r =
      Run(absl::StrFormat("tag -m %s --format conll --kbest 100000000 '%s'", kModel, sentence_));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("# status too_large: k-best needs more than 512 MB"));
  EXPECT_THAT(r.err, HasSubstr("1 sentence(s) exceeded a decoding limit: status too_large"));
  // A K the memory allows is answered in full.
  r = Run(absl::StrFormat("tag -m %s --format jsonl --output-format jsonl --kbest 5000 '%s'",
                          kModel, sentence_));
  EXPECT_EQ(r.exit_code, 2) << "jsonl is not an input format";
  r = Run(absl::StrFormat("tag -m %s --format conll --output-format jsonl --kbest 5000 '%s'",
                          kModel, sentence_));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"status\": \"ok\""));
}

TEST_F(ResourceLimitsTest, CountBoundsBeyondTheSentenceAreClampedOrInfeasible) {
  for (const char* spec : {"B-NP=..2147483647", "B-NP=0..1000000", "chunk:NP=..2147483647"}) {
    RunResult r =
        Run(absl::StrFormat("tag -m %s --format conll --count '%s' '%s'", kModel, spec, sentence_));
    EXPECT_EQ(r.exit_code, 0) << spec << ": " << r.err;
    EXPECT_THAT(r.out, HasSubstr("# solution 1")) << spec;
  }
  RunResult r =
      Run(absl::StrFormat("tag -m %s --format conll --count B-NP=1000000 '%s'", kModel, sentence_));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("# status infeasible"));
}

TEST_F(ResourceLimitsTest, ManyExclusionsAndExcludingEverything) {
  // 40 exclusions of the sentence: linear in their number, no 2^40 state space.
  std::string line;
  for (int i = 0; i < 40; ++i) {
    std::string labeling;
    for (int t = 0; t < 11; ++t)
      labeling += (t == i % 11 ? "B-VP " : (t < i / 11 + 1 ? "B-NP " : "O "));
    line += labeling + (i + 1 < 40 ? "| " : "");
  }
  std::ofstream(Path("ex.txt")) << line << "\r\n";  // CRLF is an ordinary line end
  RunResult r = Run(absl::StrFormat("tag -m %s --format conll --exclude '%s' '%s'", kModel,
                                    Path("ex.txt"), sentence_));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("# solution 1"));

  // Excluding every labeling of a one-token sentence is infeasible, not an error.
  std::ofstream(Path("word.conll")) << "dog\tNN\n\n";
  std::string all;
  for (const char* label :
       {"B-ADJP", "B-ADVP", "B-CONJP", "B-INTJ", "B-LST",  "B-NP",    "B-PP",   "B-PRT",
        "B-SBAR", "B-UCP",  "B-VP",    "I-ADJP", "I-ADVP", "I-CONJP", "I-INTJ", "I-NP",
        "I-PP",   "I-PRT",  "I-SBAR",  "I-UCP",  "I-VP",   "O"}) {
    all += std::string(all.empty() ? "" : "|") + label;
  }
  std::ofstream(Path("all.txt")) << all << "\n";
  r = Run(absl::StrFormat("tag -m %s --format conll --exclude '%s' '%s'", kModel, Path("all.txt"),
                          Path("word.conll")));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("# status infeasible"));

  // Extra lines and invalid UTF-8 in an exclusion file are named by line.
  std::ofstream(Path("extra.txt")) << "\n\nO O\n";
  r = Run(absl::StrFormat("tag -m %s --format conll --exclude '%s' '%s'", kModel, Path("extra.txt"),
                          sentence_));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("extra.txt:3: expected one line per input sentence"));
  std::ofstream(Path("bad.txt")) << "O \xff\n";
  r = Run(absl::StrFormat("tag -m %s --format conll --exclude '%s' '%s'", kModel, Path("bad.txt"),
                          sentence_));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("bad.txt:1:"));
  EXPECT_THAT(r.err, HasSubstr("UTF-8"));
}

TEST_F(ResourceLimitsTest, DecodingOptionsAreValidatedUpFront) {
  RunResult r = Run(absl::StrFormat(
      "tag -m %s --format conll --score-range=10..20 --score-max-states 100000000 '%s'", kModel,
      sentence_));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--score-max-states must be between 2 and 65536"));
  r = Run(
      absl::StrFormat("tag -m %s --format conll --score-range=10..20 --score-resolution inf '%s'",
                      kModel, sentence_));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--score-resolution must be a finite number > 0"));
  // Farther apart than the sentence is long: the best labeling alone, at once.
  r = Run(absl::StrFormat("tag -m %s --format conll --diverse 50 --min-distance 40 '%s'", kModel,
                          sentence_));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("# solution 1"));
  EXPECT_THAT(r.out, Not(HasSubstr("# solution 2")));
  // A diverse request whose last step cannot fit is refused for that sentence only.
  r = Run(absl::StrFormat("tag -m %s --format conll --diverse 50 --min-distance 4 '%s'", kModel,
                          sentence_));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("# status too_large: diverse k-best of 50 labelings at distance 4"));
}

TEST_F(ResourceLimitsTest, ThreadsAreCapped) {
  RunResult r =
      Run(absl::StrFormat("tag -m %s --format conll --threads 400 '%s'", kModel, sentence_));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("--threads 400 capped at"));
  EXPECT_THAT(r.out, HasSubstr("dog NN I-NP"));
}

TEST_F(ResourceLimitsTest, CollidingOrInputOverwritingOutputsAreRefused) {
  std::filesystem::create_directories(Path("x"));
  std::filesystem::create_directories(Path("y"));
  std::filesystem::create_directories(Path("out"));
  std::filesystem::copy_file(sentence_, Path("x/a.conll"));
  std::filesystem::copy_file(sentence_, Path("y/a.conll"));
  RunResult r = Run(absl::StrFormat("tag -m %s --format conll -o '%s' '%s' '%s'", kModel,
                                    Path("out"), Path("x/a.conll"), Path("y/a.conll")));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("would both be written to"));
  ExpectEmptyDirectory(Path("out"));
  // The output of a.conll in the input's own directory is a.conll.conll, itself an input here.
  std::filesystem::copy_file(sentence_, Path("x/a.conll.conll"));
  const std::string before = ReadAll(Path("x/a.conll.conll"));
  r = Run(absl::StrFormat("tag -m %s --format conll -o '%s' '%s' '%s'", kModel, Path("x"),
                          Path("x/a.conll"), Path("x/a.conll.conll")));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("would overwrite the input"));
  EXPECT_EQ(ReadAll(Path("x/a.conll.conll")), before);
  r = Run(absl::StrFormat("tag -m %s --format conll -o '%s' '%s'", kModel, Path("x/a.conll"),
                          Path("x/a.conll")));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("would overwrite the input"));
  ExpectNoTemporaries();
}

TEST_F(ResourceLimitsTest, TrainRefusesTooManyLabelsAtOnce) {
  {
    std::ofstream out(Path("labels.conll"));
    for (int i = 0; i < 100000; ++i)
      out << "w" << i % 50 << "\tL" << i << (i % 10 == 9 ? "\n\n" : "\n");
  }
  RunResult r = Run(absl::StrFormat("train --format conll --preset pos -o '%s' '%s'",
                                    Path("m.model"), Path("labels.conll")));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err,
              HasSubstr("labels.conll:1101: expected at most 1000 distinct labels (--max-labels)"));
  EXPECT_FALSE(std::filesystem::exists(Path("m.model")));
  r = Run(absl::StrFormat("train --format conll --preset pos --lbfgs-memory 100000000 -o '%s' '%s'",
                          Path("m.model"), sentence_));
  EXPECT_EQ(r.exit_code, 2);
  r = Run(absl::StrFormat("train --format conll --preset pos --early-stopping 3 -o '%s' '%s'",
                          Path("m.model"), sentence_));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--early-stopping needs --dev"));
  r = Run(absl::StrFormat("train --format conll --template '%s' -o '%s' '%s'", dir_.path().string(),
                          Path("m.model"), sentence_));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("expected a template file, found a directory"));
  ExpectNoTemporaries();
}

TEST_F(ResourceLimitsTest, ModelFilesThatAreNotModels) {
  RunResult r = Run("info /dev/zero");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_FALSE(r.err.empty());
  r = Run(absl::StrFormat("info '%s'", dir_.path().string()));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("directory"));
  r = Run(absl::StrFormat("tag -m '%s' --format conll '%s'", dir_.path().string(), sentence_));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("directory"));
  // 300 MB of zeros, gzip-compressed: refused from its first bytes, not decompressed whole.
  if (kSanitized) return;
  r = RunChaintag(
      absl::StrFormat("info '%s'", Path("bomb.model")),
      absl::StrFormat("head -c 300000000 /dev/zero | gzip -1 > '%s'; ulimit -v 400000; ",
                      Path("bomb.model")));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_FALSE(r.err.empty());
}

TEST_F(ResourceLimitsTest, LongCorpusSentencesAreSplitByTagAndRefusedByTrain) {
  {
    std::ofstream out(Path("long.conll"));
    for (int i = 0; i < 1000000; ++i) out << (i % 2 ? "dog\tNN\n" : "the\tDT\n");
    out << "\n";
  }
  RunResult r = Run(absl::StrFormat("tag -m %s --format conll --output-format tagged '%s'", kModel,
                                    Path("long.conll")));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("split"));
  r = Run(absl::StrFormat("train --format conll --preset pos -o '%s' '%s'", Path("m.model"),
                          Path("long.conll")));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("long.conll:10001: expected at most 10000 tokens in a sentence"));
  ExpectNoTemporaries();
}

TEST_F(ResourceLimitsTest, SigtermRemovesTheUnfinishedOutput) {
  {
    std::ofstream out(Path("many.conll"));
    for (int i = 0; i < 20000; ++i) out << "The\tDT\nold\tJJ\nman\tNN\nsaw\tVBD\nit\tPRP\n.\t.\n\n";
  }
  // Slow on purpose (k-best), stopped half-way: the -o file must not exist, nor its temporary.
  const std::string log =
      RunScript(absl::StrFormat("\"$B\" tag -m %s --format conll --kbest 200 -o '%s' '%s' & "
                                "pid=$!; sleep 1; kill -TERM $pid; "
                                "wait $pid; echo exit $?",
                                kModel, Path("out.conll"), Path("many.conll")));
  EXPECT_THAT(log, HasSubstr("exit 143"));
  EXPECT_FALSE(std::filesystem::exists(Path("out.conll")));
  ExpectNoTemporaries();
}

TEST_F(ResourceLimitsTest, AFullDiskIsAMessage) {
  const std::string log = RunScript(
      "for c in 'info models/en-chunk.model' 'stats tests/fixtures/cli/sample.conll' "
      "'eval --gold-column 3 --pred-column 3 tests/fixtures/cli/sample.conll' "
      "'tag -m models/en-chunk.model --format conll tests/fixtures/cli/sample.conll'; do "
      "\"$B\" $c > /dev/full; echo \"exit $?\"; done");
  EXPECT_THAT(log, Not(HasSubstr("exit 0")));
  for (const char* command : {"info", "stats", "eval", "tag"}) {
    EXPECT_THAT(
        log, HasSubstr(absl::StrFormat("chaintag %s: error writing to standard output", command)));
  }
}

TEST_F(ResourceLimitsTest, OutOfMemoryIsAMessageAndRemovesTheTemporary) {
  // A decoding limit far above the address space lets k-best run into std::bad_alloc while the
  // -o temporary is open: a message and exit 1, no abort, nothing left behind.
  if (kSanitized) GTEST_SKIP() << "needs ulimit -v, which AddressSanitizer cannot run under";
  RunResult r = RunChaintag(
      absl::StrFormat(
          "tag -m %s --format conll --kbest 10000000 --decode-memory-mb 100000 -o '%s' '%s'",
          kModel, Path("o.conll"), sentence_),
      "ulimit -v 400000; ");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("chaintag tag: out of memory"));
  EXPECT_FALSE(std::filesystem::exists(Path("o.conll")));
  ExpectNoTemporaries();
}

}  // namespace
}  // namespace chaintag::testing
