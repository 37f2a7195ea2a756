// How `tag` picks its input format without --format (issue 27 item 6): the extension, .gz
// stripped (.conll, .conllu, .mrg/.tree/.ptb, .pos/.tagged); else attributes for a model trained
// on attributes; else raw text. And --collective-train read with --format, else its own
// extension, else the model's stored format (item 7).
#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/cli_test_util.h"

namespace chaintag::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

class InputFormatTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    model_ = Path("pos.model");
    RunResult r = RunChaintag(
        "train --format conll --label-column 2 --preset pos "
        "--max-iterations 30 -o '" +
        model_ + "' tests/fixtures/cli/sample.conll");
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static std::string Path(const std::string& name) { return (dir_->path() / name).string(); }
  static RunResult Tag(const std::string& args, const std::string& prefix = "") {
    return RunChaintag("tag -m '" + model_ + "' " + args, prefix);
  }
  static TempDir* dir_;
  static std::string model_;
};
TempDir* InputFormatTest::dir_ = nullptr;
std::string InputFormatTest::model_;

// Raw text output starts "1<TAB>word<TAB>label<TAB>start<TAB>end"; corpus output keeps the input
// line and appends the label.
constexpr const char* kRawStart = "1\tThe\t";

TEST_F(InputFormatTest, ConllByExtensionAlsoGzipped) {
  const std::string conll = Path("a.conll");
  std::ofstream(conll) << "The DT\ndog NN\n\n";
  RunResult r = Tag("'" + conll + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("The DT ")) << "read as raw text: " << r.out;
  ASSERT_EQ(std::system(("gzip -kf '" + conll + "'").c_str()), 0);
  r = Tag("'" + conll + ".gz'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("The DT "));
}

TEST_F(InputFormatTest, ConlluByExtension) {
  const std::string conllu = Path("a.conllu");
  std::ofstream(conllu) << "# newdoc id = x\n# sent_id = 1\n"
                        << "1\tThe\tthe\tDET\tDT\t_\t2\tdet\t_\t_\n"
                        << "2\tdog\tdog\tNOUN\tNN\t_\t0\troot\t_\t_\n\n";
  RunResult r = Tag("--output-format tagged '" + conllu + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Two tokens; raw text would have tagged '#', 'newdoc', ... as words.
  EXPECT_THAT(r.out, ::testing::MatchesRegex("The_[^ ]+ dog_[^ ]+\n"));
}

TEST_F(InputFormatTest, PtbByExtension) {
  const std::string mrg = Path("a.mrg");
  std::ofstream(mrg) << "( (S (NP-SBJ (DT The) (NN dog)) (VP (VBZ barks)) (. .)) )\n";
  RunResult r = Tag("--output-format tagged '" + mrg + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ::testing::MatchesRegex("The_[^ ]+ dog_[^ ]+ barks_[^ ]+ \\._[^ ]+\n"));
  const std::string tree = Path("a.tree");
  std::filesystem::copy_file(mrg, tree);
  EXPECT_EQ(Tag("--output-format tagged '" + tree + "'").out, r.out);
}

TEST_F(InputFormatTest, TaggedByExtension) {
  const std::string pos = Path("a.pos");
  std::ofstream(pos) << "The_DT dog_NN\n";
  RunResult r = Tag("--output-format tagged '" + pos + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ::testing::MatchesRegex("The_[^ ]+ dog_[^ ]+\n"));
}

TEST_F(InputFormatTest, OtherNamesAndStandardInputAreRawText) {
  for (const std::string name : {"a.txt", "a", "a.data", "a.txt.gz"}) {
    const std::string path = Path(name);
    if (name.ends_with(".gz")) {
      ASSERT_EQ(std::system(("printf 'The dog barks.\\n' | gzip > '" + path + "'").c_str()), 0);
    } else {
      std::ofstream(path) << "The dog barks.\n";
    }
    RunResult r = Tag("'" + path + "'");
    ASSERT_EQ(r.exit_code, 0) << name << ": " << r.err;
    EXPECT_THAT(r.out, StartsWith(kRawStart)) << name;
  }
  RunResult r = Tag("-", "printf 'The dog barks.\\n' | ");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith(kRawStart));
}

TEST_F(InputFormatTest, FormatOptionWinsOverTheExtension) {
  const std::string txt = Path("corpus.txt");
  std::ofstream(txt) << "The DT\ndog NN\n\n";
  RunResult r = Tag("--format conll '" + txt + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("The DT "));
  const std::string conll = Path("text.conll");
  std::ofstream(conll) << "The dog barks.\n";
  r = Tag("--format conll '" + conll + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("The dog barks. ")) << "one CoNLL token of three columns";
}

TEST_F(InputFormatTest, InputsOfDifferentFormatsAreAUsageError) {
  const std::string conll = Path("mix.conll"), txt = Path("mix.txt");
  std::ofstream(conll) << "The DT\n\n";
  std::ofstream(txt) << "The dog.\n";
  RunResult r = Tag("'" + conll + "' '" + txt + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("mix.conll (conll)"));
  EXPECT_THAT(r.err, HasSubstr("mix.txt (no corpus extension)"));
  EXPECT_TRUE(r.out.empty());
}

TEST_F(InputFormatTest, HelpSaysWhatHappens) {
  RunResult r = RunChaintag("tag --help");
  EXPECT_THAT(r.out, HasSubstr(".conllu"));
  EXPECT_THAT(r.out, HasSubstr("raw"));
}

// An attributes model reads attribute files under any name that is not a corpus extension.
TEST(InputFormatAttributesTest, AttributesModelReadsAttributeFiles) {
  TempDir dir;
  const std::string model = (dir.path() / "attr.model").string();
  RunResult r = RunChaintag("train --format attributes --max-iterations 20 -o '" + model +
                            "' tests/fixtures/attributes/train.txt");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string data = (dir.path() / "x.data").string();
  std::filesystem::copy_file("tests/fixtures/attributes/train.txt", data);
  for (const std::string& input : {std::string("tests/fixtures/attributes/train.txt"), data}) {
    r = RunChaintag("tag -m '" + model + "' '" + input + "'");
    ASSERT_EQ(r.exit_code, 0) << input << ": " << r.err;
    EXPECT_THAT(r.out, StartsWith("B-NP B-NP\nB-VP B-VP\n")) << input;
  }
}

// --collective-train is read in --format (or by its extension), not always in the model's format.
TEST(CollectiveTrainFormatTest, CollectiveTrainHonoursFormat) {
  TempDir dir;
  auto path = [&](const std::string& name) { return (dir.path() / name).string(); };
  const char* kSentences[][2] = {
      {"Brugge", "B-ORG"}, {"wint", "O"}, {".", "O"},          {"", ""},   {"Jan", "B-PER"},
      {"woont", "O"},      {"in", "O"},   {"Brugge", "B-LOC"}, {".", "O"}, {"", ""}};
  {
    std::ofstream conll(path("train.conll")), conllu(path("train.conllu"));
    for (int copy = 0; copy < 5; ++copy) {
      int id = 0;
      for (const auto& [word, label] : kSentences) {
        if (*word == '\0') {
          conll << "\n";
          conllu << "\n";
          id = 0;
          continue;
        }
        conll << word << " " << label << "\n";
        conllu << ++id << "\t" << word << "\t_\t_\t" << label << "\t_\t_\t_\t_\t_\n";
      }
    }
  }
  std::filesystem::copy_file(path("train.conllu"), path("train.data"));
  std::ofstream(path("words.tpl")) << "U00:%x[0,0]\nU01:%x[-1,0]\nB\n";
  const std::string model = path("words.model");
  RunResult r =
      RunChaintag("train --format conll --template '" + path("words.tpl") +
                  "' --max-iterations 30 -o '" + model + "' '" + path("train.conll") + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string doc = path("doc.conllu");
  std::ofstream(doc) << "1\tBrugge\t_\t_\t_\t_\t_\t_\t_\t_\n2\twint\t_\t_\t_\t_\t_\t_\t_\t_\n\n";
  const std::string tag = "tag -m '" + model + "' --collective majority --collective-train '";
  // --format conllu reads the training file as CoNLL-U although the model was trained on CoNLL.
  r = RunChaintag(tag + path("train.data") + "' --format conllu '" + doc + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // Without --format the training file's extension decides.
  r = RunChaintag(tag + path("train.conllu") + "' '" + doc + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // No --format and no corpus extension: the model's stored format (conll) reads CoNLL-U lines
  // and fails naming the file and line.
  r = RunChaintag(tag + path("train.data") + "' '" + doc + "'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("train.data:1"));
  // And a conll --format on CoNLL-U training data fails the same way.
  r = RunChaintag(tag + path("train.conllu") + "' --format conll '" + path("train.conll") + "'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("train.conllu:1"));
}

}  // namespace
}  // namespace chaintag::testing

namespace chaintag::testing {
namespace {

// Issue 27 item 9: raw text with a NUL byte, or a line longer than --max-line-bytes, is refused
// naming the file and line; exit 1 and no output file.
TEST(RawTextLimitsTest, NulBytesAndLongLinesAreRefused) {
  TempDir dir;
  const std::string out = (dir.path() / "out.conll").string();
  const std::string nul = (dir.path() / "nul.txt").string();
  std::ofstream(nul) << std::string("The dog barks.\nThe\0cat.\n", 24);
  RunResult r = RunChaintag("tag -o '" + out + "' '" + nul + "'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr(nul + ":2: expected text, found a NUL byte at byte offset 18"));
  EXPECT_FALSE(std::filesystem::exists(out));
  // Megabytes of NULs stop at the first byte (they used to be read to the end as blanks).
  r = RunChaintag("tag -", "head -c 50000000 /dev/zero | ");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("<stdin>:1: expected text, found a NUL byte at byte offset 0"));
  const std::string text = (dir.path() / "long.txt").string();
  std::ofstream(text) << "Short line.\n" << std::string(200, 'a') << "\nMore.\n";
  r = RunChaintag("tag --max-line-bytes 100 -o '" + out + "' '" + text + "'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err,
              HasSubstr(text + ":2: expected a line of at most 100 bytes (--max-line-bytes)"));
  EXPECT_FALSE(std::filesystem::exists(out));
  r = RunChaintag("tag --max-line-bytes 200 -o '" + out + "' '" + text + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

}  // namespace
}  // namespace chaintag::testing
