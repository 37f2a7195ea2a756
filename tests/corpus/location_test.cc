// The one location formatter of messages: "FILE:LINE".
#include <string>

#include "chaintag/corpus.h"
#include "gtest/gtest.h"

namespace chaintag {
namespace {

TEST(LocationTest, FileAndLine) {
  EXPECT_EQ(Location("a.conll", 12), "a.conll:12");
  EXPECT_EQ(Location("", 3), "<input>:3");
  EXPECT_EQ(Location("a.conll", 0), "a.conll");  // line unknown
  EXPECT_EQ(Location("<stdin>", -1), "<stdin>");
}

TEST(LocationTest, SentenceTokens) {
  Sentence s;
  s.file = "d.conll";
  s.columns = {{"a", "b", "c"}};
  s.token_lines = {7, 8, 9};
  EXPECT_EQ(Location(s), "d.conll:7");
  EXPECT_EQ(Location(s, 2), "d.conll:9");
  EXPECT_EQ(Location(s, 3), "d.conll");  // no such token: the file alone
  s.token_lines.clear();
  EXPECT_EQ(Location(s), "d.conll");
}

TEST(LocationTest, ErrorAtIsAnInvalidArgumentNamingThePlace) {
  const absl::Status status = ErrorAt("x.txt", 4, "expected a digit, found 'q'");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "x.txt:4: expected a digit, found 'q'");
  Sentence s;
  s.file = "y.conll";
  s.token_lines = {2, 3};
  EXPECT_EQ(ErrorAt(s, 1, "bad").message(), "y.conll:3: bad");
}

}  // namespace
}  // namespace chaintag
