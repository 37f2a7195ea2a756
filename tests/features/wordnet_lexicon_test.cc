#include <filesystem>
#include <fstream>
#include <string>

#include "chaintag/features.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace chaintag {
namespace {

using ::testing::HasSubstr;

// A tiny WordNet database in the real files' format (licence header lines start with spaces),
// in a directory of the calling test's own: ctest runs the tests of this file in parallel, and one
// of them overwrites a file with a bad line.
std::string TinyWordNet() {
  const std::string dir = ::testing::TempDir() + "/tiny-wordnet-" +
                          ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::filesystem::create_directories(dir);
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir + "/" + name) << "  1 This software and database is being provided\n" << text;
  };
  write("data.noun",
        "00001 03 n 02 dog 0 domestic_dog 0 000 | a dog\n"
        "00002 03 n 01 box 0 000 | a box\n"
        "00003 15 n 02 Mississippi 0 river 0 000 | a river\n"
        "00004 03 n 01 fly 0 000 | an insect\n"
        "00005 03 n 01 man 0 000 | a man\n"
        "00006 03 n 01 run 0 000 | a run\n");
  write("data.verb",
        "00010 38 v 01 run 0 000 | move fast\n"
        "00011 38 v 01 fly 0 000 | travel in the air\n"
        "00012 38 v 01 bake 0 000 | cook\n"
        "00013 38 v 01 die 0 000 | stop living\n");
  write("data.adj", "00020 00 a 01 happy 0 000 | glad\n00021 00 s 01 big(a) 0 000 | large\n");
  write("data.adv", "00030 02 r 01 fast 0 000 | quickly\n");
  write("noun.exc", "mice mouse\n");
  write("verb.exc", "ran run\nrunning run\nflew fly\n");
  write("adj.exc", "bigger big\nbiggest big\n");
  write("adv.exc", "faster fast\n");
  return dir;
}

TEST(WordNetLexiconTest, PartsOfSpeechExceptionsAndRegularInflections) {
  absl::StatusOr<Lexicon> lexicon = WordNetLexicon(TinyWordNet());
  ASSERT_TRUE(lexicon.ok()) << lexicon.status();
  EXPECT_EQ(lexicon->Lookup("dog"), "n");
  EXPECT_EQ(lexicon->Lookup("dogs"), "n-s");
  EXPECT_EQ(lexicon->Lookup("boxes"), "n-s");
  EXPECT_EQ(lexicon->Lookup("men"), "n-s");
  EXPECT_EQ(lexicon->Lookup("mississippi"), "P|n");  // case-folded keys; P: listed capitalised
  EXPECT_EQ(lexicon->Lookup("run"), "n|v");
  EXPECT_EQ(lexicon->Lookup("runs"), "n-s|v-s");
  EXPECT_EQ(lexicon->Lookup("ran"), "v-ed");
  EXPECT_EQ(lexicon->Lookup("running"), "v-ing");
  EXPECT_EQ(lexicon->Lookup("flies"), "n-s|v-s");
  EXPECT_EQ(lexicon->Lookup("flew"), "v-ed");
  EXPECT_EQ(lexicon->Lookup("baked"), "v-ed");
  EXPECT_EQ(lexicon->Lookup("baking"), "v-ing");
  EXPECT_EQ(lexicon->Lookup("dying"), "v-ing");
  EXPECT_EQ(lexicon->Lookup("happier"), "a-er");
  EXPECT_EQ(lexicon->Lookup("happiest"), "a-est");
  EXPECT_EQ(lexicon->Lookup("big"), "a");  // the adjective marker "(a)" is dropped
  EXPECT_EQ(lexicon->Lookup("biggest"), "a-est");
  EXPECT_EQ(lexicon->Lookup("faster"), "r-er");
  EXPECT_EQ(lexicon->Lookup("mice"), "n-s");
  EXPECT_EQ(lexicon->Lookup("domestic_dog"), Lexicon::kAbsent);  // multiword entries left out
}

TEST(WordNetLexiconTest, MissingFilesAndBadLinesAreNamed) {
  const std::string empty = ::testing::TempDir() + "/no-wordnet";
  std::filesystem::create_directories(empty);
  absl::StatusOr<Lexicon> lexicon = WordNetLexicon(empty);
  ASSERT_FALSE(lexicon.ok());
  EXPECT_THAT(lexicon.status().message(), HasSubstr("data.noun"));
  EXPECT_THAT(lexicon.status().message(), HasSubstr("WordNet database directory"));
  const std::string dir = TinyWordNet();
  std::ofstream(dir + "/data.verb") << "00010 38 v zz run 0\n";
  lexicon = WordNetLexicon(dir);
  ASSERT_FALSE(lexicon.ok());
  EXPECT_THAT(lexicon.status().message(), HasSubstr("data.verb:1: expected a WordNet data line"));
}

TEST(WordNetLexiconTest, TheInstalledWordNetLoads) {
  if (!std::filesystem::exists("/usr/share/wordnet/data.noun")) {
    GTEST_SKIP() << "WordNet (Debian wordnet-base) is not installed";
  }
  absl::StatusOr<Lexicon> lexicon = WordNetLexicon("/usr/share/wordnet");
  ASSERT_TRUE(lexicon.ok()) << lexicon.status();
  EXPECT_GT(lexicon->num_words(), 100000);
  EXPECT_EQ(lexicon->Lookup("went"), "v-ed");
  EXPECT_EQ(lexicon->Lookup("dogs"), "n-s|v-s");
}

}  // namespace
}  // namespace chaintag
