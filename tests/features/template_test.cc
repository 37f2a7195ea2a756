#include "features/template.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "chaintag/features.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace chaintag {
namespace {

using ::testing::HasSubstr;

std::string ParseError(std::string_view text) {
  absl::StatusOr<FeatureSpec> spec = FeatureSpec::Parse(text);
  EXPECT_FALSE(spec.ok()) << text;
  return spec.ok() ? "" : std::string(spec.status().message());
}

TEST(FeatureSpecTest, ParsesCellsLiteralsAndFunctions) {
  const std::string text =
      "# a comment\n"
      "\n"
      "U00:%x[0,0]\n"
      "  U01:%x[-1,0]/%x[0,1]  \r\n"
      "U02:suf3(lower(%x[+2,3]))\n"
      "B\n";
  absl::StatusOr<FeatureSpec> spec = FeatureSpec::Parse(text);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->text(), text);
  EXPECT_EQ(spec->num_templates(), 3);
  EXPECT_EQ(spec->num_input_columns(), 4);
  EXPECT_TRUE(spec->has_label_bigram());

  const FeatureSpec::Impl& impl = spec->impl();
  ASSERT_EQ(impl.templates.size(), 3u);
  EXPECT_EQ(impl.templates[0].line, 3);
  EXPECT_EQ(impl.templates[0].name, "U00");
  EXPECT_EQ(impl.templates[1].line, 4);
  // U01: literal "U01:", cell, literal "/", cell.
  const auto& pieces = impl.templates[1].pieces;
  ASSERT_EQ(pieces.size(), 4u);
  EXPECT_EQ(pieces[0].literal, "U01:");
  EXPECT_EQ(pieces[1].row, -1);
  EXPECT_EQ(pieces[2].literal, "/");
  EXPECT_EQ(impl.sources[pieces[3].source].column, 1);
  const auto& nested = impl.sources[impl.templates[2].pieces[1].source];
  EXPECT_EQ(nested.column, 3);
  EXPECT_EQ(impl.templates[2].pieces[1].row, 2);
  ASSERT_EQ(nested.functions.size(), 2u);
  EXPECT_EQ(nested.functions[0], features::CellFunction::kLower);  // innermost applied first
  EXPECT_EQ(nested.functions[1], features::CellFunction::kSuf3);
  // Identical (column, functions) pairs are shared sources.
  EXPECT_EQ(impl.templates[0].pieces[1].source, impl.templates[1].pieces[1].source);
}

TEST(FeatureSpecTest, BigramIsOptionalAndMayCarryAName) {
  absl::StatusOr<FeatureSpec> without = FeatureSpec::Parse("U00:%x[0,0]\n");
  ASSERT_TRUE(without.ok());
  EXPECT_FALSE(without->has_label_bigram());
  absl::StatusOr<FeatureSpec> named = FeatureSpec::Parse("U00:%x[0,0]\nB01:\n");
  ASSERT_TRUE(named.ok());
  EXPECT_TRUE(named->has_label_bigram());
}

TEST(FeatureSpecTest, TextWithoutCellsIsLiteral) {
  // A constant template acts as a per-label bias; parentheses after unknown words stay text.
  absl::StatusOr<FeatureSpec> spec = FeatureSpec::Parse("U99:bias\nU98:f(x)\n");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->num_input_columns(), 0);
  EXPECT_EQ(spec->impl().templates[1].pieces.size(), 1u);
  EXPECT_EQ(spec->impl().templates[1].pieces[0].literal, "U98:f(x)");
}

TEST(FeatureSpecTest, ErrorsNameTheLineAndWhatWasExpected) {
  EXPECT_EQ(ParseError("U00:%x[0,0]\nU01:%x[0 0]\n"),
            "template line 2: expected ',' after the row offset in %x[row,col], found ' 0]'");
  EXPECT_THAT(ParseError("U00:%x[a,0]"), HasSubstr("template line 1: expected a row offset"));
  EXPECT_THAT(ParseError("U00:%x[0,-1]"),
              HasSubstr("template line 1: expected a column index (0-based, non-negative)"));
  EXPECT_THAT(ParseError("U00:%x[0,1"),
              HasSubstr("expected ']' closing %x[row,col], found end of line"));
  EXPECT_THAT(ParseError("\n\nU00:upper(%x[0,0])"),
              HasSubstr("template line 3: expected a function name (lower, pre1"));
  EXPECT_THAT(ParseError("U00:upper(%x[0,0])"), HasSubstr("found 'upper(%x[0,0])'"));
  EXPECT_THAT(ParseError("U00:lower(%x[0,0]"),
              HasSubstr("expected ')' closing lower(, found end of line"));
  EXPECT_THAT(ParseError("U00:lower(bad)"),
              HasSubstr("expected '%x[' or a function call, found 'bad)'"));
  EXPECT_THAT(ParseError("U00:%z[0,0]"), HasSubstr("expected '%x[', '%y[' or '%h['"));
  EXPECT_THAT(ParseError("U00:%y[0,0]"), HasSubstr("expected a label offset -1 .. -8 in %y[-k]"));
  EXPECT_THAT(ParseError("U00:%x[0,0]\nU00:%x[1,0]"),
              HasSubstr("template line 2: expected a template name not used before, found 'U00' "
                        "(already used on line 1)"));
  EXPECT_THAT(
      ParseError("B:%x[0,0]"),
      HasSubstr("template line 1: expected a label-bigram template without cell references"));
  EXPECT_THAT(ParseError("# only comments\nB\n"),
              HasSubstr("expected at least one unigram template, found none"));
  EXPECT_THAT(ParseError("U00:%x[100,0]"), HasSubstr("expected a row offset between -64 and 64"));
}

// Function calls nest at most FeatureSpec::kMaxCallDepth deep: 5,000 or 100,000 levels are an
// error naming the line, not a stack overflow (issue 27 item 3); the file name leads when read
// from a file.
TEST(FeatureSpecTest, NestingDeeperThanTheCapIsAnError) {
  auto nested = [](int depth, const std::string& function) {
    std::string text = "U00:";
    for (int i = 0; i < depth; ++i) text += function + "(";
    text += "%x[0,0]";
    text.append(depth, ')');
    return "# deep\n" + text + "\nB\n";
  };
  EXPECT_TRUE(FeatureSpec::Parse(nested(FeatureSpec::kMaxCallDepth, "lower")).ok());
  EXPECT_THAT(ParseError(nested(FeatureSpec::kMaxCallDepth + 1, "lower")),
              HasSubstr("template line 2: expected function calls nested at most 32 deep, or "
                        "'%x[', found 'lower(%x[0,0])))...'"));
  for (int depth : {5000, 100000}) {
    EXPECT_THAT(ParseError(nested(depth, "lower")),
                HasSubstr("template line 2: expected function calls nested at most 32 deep, or "
                          "'%x[', found 'lower(lower(lowe...'"))
        << depth;
  }
  // Any function, however deep.
  EXPECT_THAT(ParseError(nested(100000, "pre1")), HasSubstr("nested at most 32 deep"));
  const std::string path = ::testing::TempDir() + "/chaintag_deep.tpl";
  {
    std::ofstream out(path);
    out << nested(5000, "lower");
  }
  absl::StatusOr<FeatureSpec> spec = FeatureSpec::ReadFile(path);
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(std::string(spec.status().message()),
              HasSubstr(path + ": template line 2: expected function calls nested at most 32"));
  std::remove(path.c_str());
}

// Characters a model file refuses in template text (C0 controls but tab and line feed, a lone
// CR, DEL, C1 controls) are parse errors naming the line, so training stops before it starts
// instead of at the save (issue 27 item 11); CRLF line ends and tabs are fine.
TEST(FeatureSpecTest, ControlCharactersAreErrorsNamingTheLine) {
  EXPECT_EQ(ParseError("U00:%x[0,0]\nU\x01X:%x[0,1]\nB\n"),
            "template line 2: expected text without control characters (other than tab), found "
            "U+0001");
  EXPECT_THAT(ParseError("U00:%x[0,0]\x07\nB\n"), HasSubstr("line 1: expected text without "
                                                            "control characters (other than "
                                                            "tab), found U+0007"));
  EXPECT_THAT(ParseError("U00:%x[0,0]\n\nU01:a\rb\n"), HasSubstr("line 3: expected text "
                                                                 "without control characters"));
  EXPECT_THAT(ParseError("U00:%x[0,0]\x7f\n"), HasSubstr("found U+007F"));
  EXPECT_THAT(ParseError("U00:%x[0,0]\nU01:\u0085\n"), HasSubstr("line 2: expected text "
                                                                 "without control characters "
                                                                 "(other than tab), found "
                                                                 "U+0085"));
  EXPECT_THAT(ParseError("U00:%x[0,0]\n\xff\n"),
              HasSubstr("template line 2: expected UTF-8 text, found invalid byte 0xFF"));
  EXPECT_TRUE(FeatureSpec::Parse("U00:%x[0,0]\r\nU01:\t%x[0,0] caf\u00e9\r\nB\r\n").ok());
  const std::string path = ::testing::TempDir() + "/chaintag_control.tpl";
  {
    std::ofstream out(path);
    out << "U00:%x[0,0]\nU\x01X:%x[0,1]\n";
  }
  absl::StatusOr<FeatureSpec> spec = FeatureSpec::ReadFile(path);
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(std::string(spec.status().message()),
              HasSubstr(path + ": template line 2: expected text without control characters"));
  std::remove(path.c_str());
}

TEST(FeatureSpecTest, CopiesAndMovesShareTheParsedSpec) {
  absl::StatusOr<FeatureSpec> spec = FeatureSpec::Parse("U00:%x[0,2]\nB\n");
  ASSERT_TRUE(spec.ok());
  FeatureSpec copy = *spec;
  FeatureSpec moved = std::move(copy);
  EXPECT_EQ(moved.text(), spec->text());
  EXPECT_EQ(moved.num_input_columns(), 3);
  // A moved-from spec stays usable.
  EXPECT_EQ(copy.num_input_columns(), 3);  // NOLINT(bugprone-use-after-move)
  FeatureSpec empty;
  EXPECT_EQ(empty.num_templates(), 0);
  EXPECT_EQ(empty.text(), "");
}

}  // namespace
// Issue 18: template files are read by the library, which refuses directories (they used to read
// as an empty template) and input no template can be.
class TemplateFileTest : public ::testing::Test {
 protected:
  std::string Write(const std::string& name, const std::string& bytes) {
    const std::string path = ::testing::TempDir() + "/chaintag_template_" + name;
    std::ofstream(path, std::ios::binary) << bytes;
    paths_.push_back(path);
    return path;
  }
  ~TemplateFileTest() override {
    for (const std::string& p : paths_) std::remove(p.c_str());
  }
  std::vector<std::string> paths_;
};

TEST_F(TemplateFileTest, DirectoryIsRefused) {
  const std::string dir = ::testing::TempDir() + "/chaintag_template_dir";
  std::filesystem::create_directories(dir);
  absl::StatusOr<FeatureSpec> spec = FeatureSpec::ReadFile(dir);
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().message(), dir + ": expected a template file, found a directory");
  std::filesystem::remove(dir);
}

TEST_F(TemplateFileTest, ReadsTextVerbatimAndSkipsAByteOrderMark) {
  const std::string text = "U00:%x[0,0]\r\nU01:%x[-1,0]\r\nB\r\n";
  absl::StatusOr<FeatureSpec> plain = FeatureSpec::ReadFile(Write("plain", text));
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(plain->text(), text);
  EXPECT_EQ(plain->num_templates(), 2);
  absl::StatusOr<FeatureSpec> marked = FeatureSpec::ReadFile(Write("bom", "\xEF\xBB\xBF" + text));
  ASSERT_TRUE(marked.ok()) << marked.status();
  EXPECT_EQ(marked->text(), text);
}

TEST_F(TemplateFileTest, BadBytesAndParseErrorsNameTheFile) {
  std::string path = Write("cr", "U00:%x[0,0]\rB\r");
  absl::StatusOr<FeatureSpec> spec = FeatureSpec::ReadFile(path);
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().message(),
            path + ":1: expected LF or CRLF line endings, found a bare CR (old Mac line endings)");
  path = Write("nul", std::string("U00:%x[0,0]\nU01:\0\n", 18));
  spec = FeatureSpec::ReadFile(path);
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().message(), path + ":2: expected text, found a NUL byte");
  path = Write("utf8", "U00:%x[0,0]\nU01:\xFF\n");
  spec = FeatureSpec::ReadFile(path);
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().message(), path + ":2: expected UTF-8 text, found invalid byte 0xFF");
  path = Write("parse", "U00:%x[0,0\n");
  spec = FeatureSpec::ReadFile(path);
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(std::string(spec.status().message()), HasSubstr(path + ": template line 1: "));
  path = Write("big", std::string(FeatureSpec::kMaxTemplateFileBytes + 1, '#'));
  spec = FeatureSpec::ReadFile(path);
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().message(),
            path + ": expected a template file of at most 1048576 bytes, found a longer one");
  spec = FeatureSpec::ReadFile("/nonexistent/t.txt");
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(std::string(spec.status().message()), HasSubstr("/nonexistent/t.txt"));
}

}  // namespace chaintag
