#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "chaintag/corpus.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/corpus_util.h"

namespace chaintag {
namespace {

using ::chaintag::testing::Message;
using ::chaintag::testing::TempDir;
using ::testing::HasSubstr;

std::string Slurp(std::istream& in) {
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string FileText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return Slurp(in);
}

TEST(OpenInputStreamTest, PlainAndGzipFilesGiveTheSameText) {
  const std::string gz = std::string(CHAINTAG_FIXTURES_DIR) + "/corpus/small.conll.gz";
  auto in = OpenInputStream(gz);
  ASSERT_TRUE(in.ok()) << in.status();
  EXPECT_EQ(Slurp(**in), "a DT\nb NN\n\nc VB\n");
  TempDir dir;
  const std::string plain = dir.path() + "/p.txt";
  std::ofstream(plain) << "x\ny\n";
  auto pin = OpenInputStream(plain);
  ASSERT_TRUE(pin.ok()) << pin.status();
  EXPECT_EQ(Slurp(**pin), "x\ny\n");
}

TEST(OpenInputStreamTest, DashIsStandardInput) {
  std::istringstream fake("from stdin\n");
  std::streambuf* saved = std::cin.rdbuf(fake.rdbuf());
  auto in = OpenInputStream("-");
  ASSERT_TRUE(in.ok());
  const std::string text = Slurp(**in);
  std::cin.rdbuf(saved);
  EXPECT_EQ(text, "from stdin\n");
}

TEST(OpenInputStreamTest, GzipIsRecognisedByItsMagicBytes) {
  // The fixture copied to a name without .gz, and piped through standard input.
  TempDir dir;
  const std::string renamed = dir.path() + "/small.conll";
  std::filesystem::copy_file(std::string(CHAINTAG_FIXTURES_DIR) + "/corpus/small.conll.gz",
                             renamed);
  auto in = OpenInputStream(renamed);
  ASSERT_TRUE(in.ok()) << in.status();
  EXPECT_EQ(Slurp(**in), "a DT\nb NN\n\nc VB\n");
  std::istringstream fake(FileText(renamed));
  std::streambuf* saved = std::cin.rdbuf(fake.rdbuf());
  auto piped = OpenInputStream("-");
  ASSERT_TRUE(piped.ok());
  const std::string text = Slurp(**piped);
  std::cin.rdbuf(saved);
  EXPECT_EQ(text, "a DT\nb NN\n\nc VB\n");
  // A text that merely starts with 0x1f is read as it is.
  const std::string odd = dir.path() + "/odd.txt";
  std::ofstream(odd) << "\x1fxy\n";
  auto plain = OpenInputStream(odd);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(Slurp(**plain), "\x1fxy\n");
}

TEST(OpenInputStreamTest, MissingFileAndDirectoryAreNamed) {
  auto missing = OpenInputStream("/nonexistent/dir/x.txt");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(Message(missing.status()), "/nonexistent/dir/x.txt: no such file");
  TempDir dir;
  auto directory = OpenInputStream(dir.path());
  ASSERT_FALSE(directory.ok());
  EXPECT_EQ(Message(directory.status()), dir.path() + ": expected a file, found a directory");
}

TEST(OpenInputStreamTest, UnreadableFileIsNamed) {
  if (::geteuid() == 0) GTEST_SKIP() << "root can read any file";
  TempDir dir;
  const std::string path = dir.path() + "/secret.txt";
  std::ofstream(path) << "x\n";
  ::chmod(path.c_str(), 0);
  auto in = OpenInputStream(path);
  ASSERT_FALSE(in.ok());
  EXPECT_THAT(Message(in.status()), HasSubstr(path + ": cannot open for reading"));
}

TEST(CheckWritableTest, AcceptsNewAndExistingFilesRejectsDirectoriesAndMissingDirs) {
  TempDir dir;
  EXPECT_TRUE(CheckWritable(dir.path() + "/new.txt").ok());
  std::ofstream(dir.path() + "/old.txt") << "x";
  EXPECT_TRUE(CheckWritable(dir.path() + "/old.txt").ok());
  absl::Status is_dir = CheckWritable(dir.path());
  EXPECT_THAT(Message(is_dir), HasSubstr("expected a file to write, found a directory"));
  absl::Status no_dir = CheckWritable(dir.path() + "/missing/out.txt");
  EXPECT_THAT(Message(no_dir), HasSubstr("directory " + dir.path() + "/missing does not exist"));
  EXPECT_TRUE(CheckWritable("-").ok());
}

TEST(AtomicOutputFileTest, CommitRenamesIntoPlace) {
  TempDir dir;
  const std::string path = dir.path() + "/out.txt";
  std::ofstream(path) << "old contents\n";
  std::string temp;
  {
    AtomicOutputFile out;
    ASSERT_TRUE(out.Open(path).ok());
    temp = out.temp_path();
    EXPECT_EQ(temp.rfind(path + ".tmp-", 0), 0u) << temp;
    out.stream() << "new contents\n";
    // Until Commit() the old file is untouched.
    EXPECT_EQ(FileText(path), "old contents\n");
    ASSERT_TRUE(out.Commit().ok());
  }
  EXPECT_EQ(FileText(path), "new contents\n");
  EXPECT_FALSE(std::filesystem::exists(temp));
}

TEST(AtomicOutputFileTest, DestructorWithoutCommitLeavesNoFile) {
  TempDir dir;
  const std::string path = dir.path() + "/out.txt";
  std::string temp;
  {
    AtomicOutputFile out;
    ASSERT_TRUE(out.Open(path).ok());
    temp = out.temp_path();
    out.stream() << "partial";
    EXPECT_TRUE(std::filesystem::exists(temp));
  }
  EXPECT_FALSE(std::filesystem::exists(temp));
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(AtomicOutputFileTest, RejectsBadTargetsAndDoubleCommit) {
  TempDir dir;
  AtomicOutputFile bad;
  EXPECT_THAT(Message(bad.Open(dir.path() + "/no/such/dir/f")), HasSubstr("does not exist"));
  EXPECT_FALSE(bad.Commit().ok());
  AtomicOutputFile dash;
  EXPECT_FALSE(dash.Open("-").ok());
  AtomicOutputFile out;
  ASSERT_TRUE(out.Open(dir.path() + "/f").ok());
  ASSERT_TRUE(out.Commit().ok());
  EXPECT_FALSE(out.Commit().ok());
}

TEST(AtomicOutputFileTest, WriteFailureIsReportedAndTargetUntouched) {
  // A failed write (e.g. disk full) leaves the stream bad; Commit() must refuse to rename.
  TempDir dir;
  const std::string path = dir.path() + "/out.txt";
  AtomicOutputFile out;
  ASSERT_TRUE(out.Open(path).ok());
  out.stream().setstate(std::ios::badbit);
  absl::Status status = out.Commit();
  EXPECT_THAT(Message(status), HasSubstr("write failed"));
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(AtomicOutputFileTest, WritesThroughSymbolicLinksBesideTheTarget) {
  TempDir dir;
  std::filesystem::create_directory(dir.path() + "/real");
  std::ofstream(dir.path() + "/real/target") << "old\n";
  ::chmod((dir.path() + "/real/target").c_str(), 0640);
  std::filesystem::create_symlink("real/target", dir.path() + "/link");
  AtomicOutputFile out;
  ASSERT_TRUE(out.Open(dir.path() + "/link").ok());
  EXPECT_EQ(out.target_path(), dir.path() + "/real/target");
  EXPECT_EQ(out.temp_path().rfind(dir.path() + "/real/target.tmp-", 0), 0u) << out.temp_path();
  out.stream() << "new\n";
  ASSERT_TRUE(out.Commit().ok());
  EXPECT_TRUE(std::filesystem::is_symlink(dir.path() + "/link"));
  EXPECT_EQ(FileText(dir.path() + "/real/target"), "new\n");
  struct stat st;
  ASSERT_EQ(::stat((dir.path() + "/real/target").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u) << "a replaced file keeps its permissions";
  // A dangling link: the file is created where it points.
  std::filesystem::create_symlink(dir.path() + "/real/new", dir.path() + "/dangling");
  AtomicOutputFile created;
  ASSERT_TRUE(created.Open(dir.path() + "/dangling").ok());
  created.stream() << "x";
  ASSERT_TRUE(created.Commit().ok());
  EXPECT_TRUE(std::filesystem::is_symlink(dir.path() + "/dangling"));
  EXPECT_EQ(FileText(dir.path() + "/real/new"), "x");
}

TEST(AtomicOutputFileTest, FifoIsWrittenInPlace) {
  TempDir dir;
  const std::string fifo = dir.path() + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  std::string got;
  std::thread reader([&] { got = FileText(fifo); });
  {
    AtomicOutputFile out;
    ASSERT_TRUE(out.Open(fifo).ok());  // waits for the reader
    EXPECT_EQ(out.temp_path(), "");
    out.stream() << "through the pipe\n";
    ASSERT_TRUE(out.Commit().ok());
  }
  reader.join();
  EXPECT_EQ(got, "through the pipe\n");
  struct stat st;
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_TRUE(CheckWritable(fifo).ok());
}

TEST(CheckOutputIsNotAnInputTest, SameFileByPathLinkOrHardLinkIsRefused) {
  TempDir dir;
  const std::string in = dir.path() + "/in.txt";
  std::ofstream(in) << "data\n";
  std::filesystem::create_symlink(in, dir.path() + "/sym");
  std::filesystem::create_hard_link(in, dir.path() + "/hard");
  const std::vector<InputFile> inputs = {{dir.path() + "/other.txt", ""}, {in, "--dev"}};
  EXPECT_THAT(Message(CheckOutputIsNotAnInput(in, inputs)),
              HasSubstr("the output '" + in + "' would overwrite the --dev file '" + in + "'"));
  for (const char* name : {"/sym", "/hard"}) {
    EXPECT_THAT(Message(CheckOutputIsNotAnInput(dir.path() + name, inputs)),
                HasSubstr("(the same file)"));
  }
  EXPECT_TRUE(CheckOutputIsNotAnInput(dir.path() + "/new.txt", inputs).ok());
  EXPECT_TRUE(CheckOutputIsNotAnInput("-", inputs).ok());
  // A FIFO is written in place: reading and writing it is no collision.
  ASSERT_EQ(::mkfifo((dir.path() + "/fifo").c_str(), 0644), 0);
  EXPECT_TRUE(CheckOutputIsNotAnInput(dir.path() + "/fifo", {{dir.path() + "/fifo", ""}}).ok());
}

}  // namespace
}  // namespace chaintag
