// Output safety (issue 27 items 1 and 2): every writer (tag, train, convert, lexicon, clusters,
// clique, embeddings) writes a character device, FIFO or socket in place, writes through a symbolic
// link to its target, and refuses (exit 2, before any work, file untouched) an output that is one
// of the files it reads, by the same path, a symbolic link or a hard link.
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/cli_test_util.h"

namespace chaintag::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

// A writer: its command line with {D} for the scratch directory and {OUT} for the output.
struct Writer {
  const char* name;
  const char* command;
};

constexpr Writer kWriters[] = {
    {"tag", "tag -m {D}/m.model --format conll -o {OUT} {D}/in.conll"},
    {"train", "train --format conll --preset chunk-conll --max-iterations 2 -o {OUT} {D}/in.conll"},
    {"convert", "convert --to tagged -o {OUT} {D}/in.conll"},
    {"lexicon", "lexicon --format conll -o {OUT} {D}/in.conll"},
    {"clusters", "clusters --pretokenized -c 2 -o {OUT} {D}/in.txt"},
    {"clique", "clique -o {OUT} {D}/in.jsonl"},
    {"embeddings",
     "embeddings --pretokenized --dim 4 --epochs 1 --min-count 1 --bucket 100 -o {OUT} "
     "{D}/in.txt"},
};

// A file a command reads, and the command that reads it (with {OUT} for the output).
struct ReadFile {
  const char* file;
  const char* command;
};

constexpr ReadFile kReadFiles[] = {
    {"in.conll", "tag -m {D}/m.model --format conll -o {OUT} {D}/in.conll"},
    {"in.conll", "tag -m {D}/m.model --format conll -o {OUT} < {D}/in.conll"},
    {"m.model", "tag -m {D}/m.model --format conll -o {OUT} {D}/in.conll"},
    {"exclude.txt",
     "tag -m {D}/m.model --format conll --exclude {D}/exclude.txt -o {OUT} {D}/in.conll"},
    {"train.conll",
     "tag -m {D}/m.model --format conll --collective majority --collective-train "
     "{D}/train.conll -o {OUT} {D}/in.conll"},
    {"in.conll",
     "train --format conll --preset chunk-conll --max-iterations 2 -o {OUT} {D}/in.conll"},
    {"dev.conll",
     "train --format conll --preset chunk-conll --max-iterations 2 --dev {D}/dev.conll -o {OUT} "
     "{D}/in.conll"},
    {"t.tpl",
     "train --format conll --template {D}/t.tpl --lexicon {D}/lex.txt --lexicon2 {D}/lex2.txt "
     "--clusters {D}/c.paths --max-iterations 2 -o {OUT} {D}/in.conll"},
    {"lex.txt",
     "train --format conll --template {D}/t.tpl --lexicon {D}/lex.txt --lexicon2 {D}/lex2.txt "
     "--clusters {D}/c.paths --max-iterations 2 -o {OUT} {D}/in.conll"},
    {"lex2.txt",
     "train --format conll --template {D}/t.tpl --lexicon {D}/lex.txt --lexicon2 {D}/lex2.txt "
     "--clusters {D}/c.paths --max-iterations 2 -o {OUT} {D}/in.conll"},
    {"c.paths",
     "train --format conll --template {D}/t.tpl --lexicon {D}/lex.txt --lexicon2 {D}/lex2.txt "
     "--clusters {D}/c.paths --max-iterations 2 -o {OUT} {D}/in.conll"},
    {"in.conll", "convert --to tagged -o {OUT} {D}/in.conll"},
    {"in.conll", "convert --to tagged -o {OUT} < {D}/in.conll"},
    {"in.conll", "lexicon --format conll -o {OUT} {D}/in.conll"},
    {"in.txt", "clusters --pretokenized -c 2 -o {OUT} {D}/in.txt"},
    {"in.jsonl", "clique -o {OUT} {D}/in.jsonl"},
    {"in.txt",
     "embeddings --pretokenized --dim 4 --epochs 1 --min-count 1 --bucket 100 -o {OUT} "
     "{D}/in.txt"},
    {"in.txt",
     "embeddings --pretokenized --dim 4 --epochs 1 --min-count 1 --bucket 100 -o {OUT} "
     "< {D}/in.txt"},
};

class OutputSafetyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string fixtures = CHAINTAG_FIXTURES_DIR;
    fs::copy_file(fixtures + "/cli/sample.conll", Path("in.conll"));
    fs::copy_file(fixtures + "/cli/sample.conll", Path("dev.conll"));
    fs::copy_file(fixtures + "/cli/sample.conll", Path("train.conll"));
    fs::copy_file(fixtures + "/cli/cliques.jsonl", Path("in.jsonl"));
    std::ofstream(Path("in.txt")) << "the dog saw the cat\nthe cat saw the dog\n";
    std::ofstream(Path("exclude.txt")) << "\n\n";
    std::ofstream(Path("lex.txt")) << "the\tDT\n";
    std::ofstream(Path("lex2.txt")) << "dog\tNN\n";
    std::ofstream(Path("c.paths")) << "0\tthe\t2\n1\tdog\t1\n";
    std::ofstream(Path("t.tpl")) << "U00:%x[0,0]\nU01:lex(%x[0,0])\nU02:lex2(%x[0,0])\n"
                                    "U03:cluster(%x[0,0])\nB\n";
    RunResult r = Run("train --format conll --preset chunk-conll --max-iterations 2 -o " +
                      Path("m.model") + " " + Path("in.conll"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }

  std::string Path(const std::string& name) const { return (dir_.path() / name).string(); }
  std::string Command(const std::string& command, const std::string& out) const {
    return absl::StrReplaceAll(command, {{"{D}", dir_.path().string()}, {"{OUT}", out}});
  }
  RunResult Run(const std::string& args) { return RunChaintag(args); }
  // Runs a bash script from the source tree ($B is the binary); returns its exit status.
  int RunScript(const std::string& body) {
    std::ofstream(Path("script.sh"))
        << "cd '" << CHAINTAG_SOURCE_DIR << "'\nB='" << CHAINTAG_BINARY << "'\n"
        << body << "\n";
    const int status = std::system(
        ("bash '" + Path("script.sh") + "' > '" + Path("script.out") + "' 2>&1").c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  }
  // What the writer writes to a new regular file (clique's timings zeroed).
  std::string Reference(const Writer& w) {
    RunResult r = Run(Command(w.command, Path("reference")));
    EXPECT_EQ(r.exit_code, 0) << w.name << ": " << r.err;
    return Normalise(ReadAll(Path("reference")));
  }
  static std::string Normalise(const std::string& text) {
    std::string out;
    for (size_t i = 0; i < text.size(); ++i) {
      out += text[i];
      if (text.compare(i, 11, "\"seconds\": ") == 0) {
        out += text.substr(i + 1, 10);
        i += 11;
        while (i < text.size() && text[i] != ',' && text[i] != '}') ++i;
        out += "0";
        --i;
      }
    }
    return out;
  }
  void ExpectNoTemporaries() {
    for (const auto& entry : fs::recursive_directory_iterator(dir_.path())) {
      EXPECT_THAT(entry.path().filename().string(), Not(HasSubstr(".tmp-"))) << entry.path();
    }
  }

  TempDir dir_;
};

TEST_F(OutputSafetyTest, CharacterDeviceIsWrittenInPlace) {
  if (::mknod(Path("null").c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) {
    GTEST_SKIP() << "mknod is not permitted here (needs root or CAP_MKNOD): "
                 << std::strerror(errno);
  }
  for (const Writer& w : kWriters) {
    RunResult r = Run(Command(w.command, Path("null")));
    EXPECT_EQ(r.exit_code, 0) << w.name << ": " << r.err;
    struct stat st;
    ASSERT_EQ(::lstat(Path("null").c_str(), &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode)) << w.name << " replaced the character device";
  }
  // /dev/full: a write error is reported, not a success.
  if (::mknod(Path("full").c_str(), S_IFCHR | 0666, makedev(1, 7)) == 0) {
    RunResult r = Run(Command(kWriters[2].command, Path("full")));
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_THAT(r.err, HasSubstr("write failed: No space left on device"));
  }
  ExpectNoTemporaries();
}

TEST_F(OutputSafetyTest, FifoIsWrittenInPlaceForItsReader) {
  for (const Writer& w : kWriters) {
    SCOPED_TRACE(w.name);
    const std::string expected = Reference(w);
    fs::remove(Path("fifo"));
    fs::remove(Path("got"));
    ASSERT_EQ(::mkfifo(Path("fifo").c_str(), 0644), 0);
    // The reader gives up after a minute, so a writer that never opens the FIFO fails the test
    // instead of hanging it.
    const int rc = RunScript("timeout 60 cat '" + Path("fifo") + "' > '" + Path("got") + "' & $B " +
                             Command(w.command, Path("fifo")) + "; rc=$?; wait; exit $rc");
    EXPECT_EQ(rc, 0) << ReadAll(Path("script.out"));
    EXPECT_TRUE(Normalise(ReadAll(Path("got"))) == expected) << "the reader got other bytes";
    struct stat st;
    ASSERT_EQ(::lstat(Path("fifo").c_str(), &st), 0);
    EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO was replaced";
  }
  ExpectNoTemporaries();
}

TEST_F(OutputSafetyTest, SymbolicLinkIsWrittenThroughToItsTarget) {
  fs::create_directory(Path("real"));
  for (const Writer& w : kWriters) {
    SCOPED_TRACE(w.name);
    const std::string expected = Reference(w);
    // An existing target in another directory, through a relative link: the target gets the
    // output, keeps its permissions, and the link stays a link.
    fs::remove(Path("link"));
    fs::remove(Path("real/target"));
    std::ofstream(Path("real/target")) << "old\n";
    fs::permissions(Path("real/target"), fs::perms(0640));
    fs::create_symlink("real/target", Path("link"));
    RunResult r = Run(Command(w.command, Path("link")));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(fs::is_symlink(Path("link")));
    EXPECT_EQ(fs::read_symlink(Path("link")), "real/target");
    EXPECT_TRUE(Normalise(ReadAll(Path("real/target"))) == expected)
        << "the target holds other bytes";
    EXPECT_EQ(fs::status(Path("real/target")).permissions(), fs::perms(0640));
    // A link to a link to a file not yet there: the file is created where the links point.
    fs::remove(Path("link"));
    fs::remove(Path("real/target"));
    fs::remove(Path("real/hop"));
    fs::create_symlink("target", Path("real/hop"));
    fs::create_symlink(Path("real/hop"), Path("link"));
    r = Run(Command(w.command, Path("link")));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(fs::is_symlink(Path("link")));
    EXPECT_TRUE(fs::is_symlink(Path("real/hop")));
    EXPECT_TRUE(Normalise(ReadAll(Path("real/target"))) == expected)
        << "the target holds other bytes";
  }
  // A link loop is an error naming the output, not a replaced link.
  fs::create_symlink("loop2", Path("loop1"));
  fs::create_symlink("loop1", Path("loop2"));
  RunResult r = Run(Command(kWriters[2].command, Path("loop1")));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("loop1: cannot write: more than 40 symbolic links"));
  EXPECT_TRUE(fs::is_symlink(Path("loop1")));
  ExpectNoTemporaries();
}

TEST_F(OutputSafetyTest, OutputThatIsAnInputIsRefusedBeforeAnyWork) {
  for (const ReadFile& f : kReadFiles) {
    const std::string file = Path(f.file);
    const std::string before = ReadAll(file);
    fs::remove(Path("link"));
    fs::remove(Path("hard"));
    fs::create_symlink(f.file, Path("link"));
    fs::create_hard_link(file, Path("hard"));
    for (const std::string& out : {file, Path("link"), Path("hard")}) {
      SCOPED_TRACE(Command(f.command, out));
      RunResult r = Run(Command(f.command, out));
      EXPECT_EQ(r.exit_code, 2) << r.err;
      EXPECT_THAT(r.err, HasSubstr("the output '" + out + "' would overwrite "));
      EXPECT_THAT(r.err, Not(HasSubstr("chaintag train: 2 sentences"))) << "ran before the check";
      EXPECT_EQ(ReadAll(file), before);
      EXPECT_TRUE(fs::is_symlink(Path("link")));
    }
  }
  // The message names the option that reads the file.
  RunResult r = Run(Command(kReadFiles[6].command, Path("dev.conll")));
  EXPECT_THAT(r.err, HasSubstr("would overwrite the --dev file '" + Path("dev.conll") + "'"));
  r = Run(Command(kReadFiles[2].command, Path("m.model")));
  EXPECT_THAT(r.err, HasSubstr("would overwrite the model file '" + Path("m.model") + "'"));
  r = Run(Command(kReadFiles[1].command, Path("in.conll")));
  EXPECT_THAT(r.err, HasSubstr("would overwrite standard input's file"));
  ExpectNoTemporaries();
}

// The checkpoint a run resumes from is an input too: -o onto it is refused, the file kept.
TEST_F(OutputSafetyTest, OutputOntoTheResumedCheckpointIsRefused) {
  const std::string train =
      "train --format conll --preset chunk-conll --max-iterations 2 --checkpoint-every 1 ";
  RunResult r = Run(Command(train + "--checkpoint {D}/ck -o {OUT} {D}/in.conll", Path("m2")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string before = ReadAll(Path("ck"));
  r = Run(Command(train + "--resume {D}/ck -o {OUT} {D}/in.conll", Path("ck")));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("would overwrite the --resume file '" + Path("ck") + "'"));
  EXPECT_EQ(ReadAll(Path("ck")), before);
  ExpectNoTemporaries();
}

// The commands all work in the setups above: without the collisions they succeed.
TEST_F(OutputSafetyTest, EveryReadingCommandWorksWithAnotherOutput) {
  for (const ReadFile& f : kReadFiles) {
    RunResult r = Run(Command(f.command, Path("other.out")));
    EXPECT_EQ(r.exit_code, 0) << Command(f.command, Path("other.out")) << "\n" << r.err;
    EXPECT_GT(fs::file_size(Path("other.out")), 0u);
  }
  ExpectNoTemporaries();
}

// Issue 27 (Low): a read-only output file (in a writable directory, where the rename would
// succeed) and an output in a read-only directory are refused before any work with a message,
// exit 1, the file untouched and no temporary left. Root may write anywhere, so as root the
// commands run as `nobody`.
TEST_F(OutputSafetyTest, ReadOnlyOutputsAreRefusedBeforeAnyWork) {
  std::string as;
  if (::geteuid() == 0) {
    if (std::system("runuser -u nobody -- true > /dev/null 2>&1") != 0) {
      GTEST_SKIP() << "running as root without runuser/nobody: root may write read-only files";
    }
    as = "runuser -u nobody -- ";
  }
  fs::permissions(dir_.path(), fs::perms::all);  // nobody reads the inputs and writes in rw/
  fs::create_directory(Path("rw"));
  fs::permissions(Path("rw"), fs::perms::all);
  std::ofstream(Path("rw/ro.out")) << "kept\n";
  fs::permissions(Path("rw/ro.out"),
                  fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  fs::create_directory(Path("ro"));
  fs::permissions(Path("ro"), fs::perms::owner_read | fs::perms::owner_exec |
                                  fs::perms::group_read | fs::perms::group_exec |
                                  fs::perms::others_read | fs::perms::others_exec);
  if (as.empty() && ::access(Path("rw/ro.out").c_str(), W_OK) == 0) {
    GTEST_SKIP() << "this user may write read-only files";
  }
  for (const Writer& w : kWriters) {
    RunResult r = RunChaintag(Command(w.command, Path("rw/ro.out")), as);
    EXPECT_EQ(r.exit_code, 1) << w.name << ": " << r.err;
    EXPECT_THAT(r.err, HasSubstr(Path("rw/ro.out") + ": cannot write: Permission denied"))
        << w.name;
    EXPECT_EQ(ReadAll(Path("rw/ro.out")), "kept\n") << w.name;
    r = RunChaintag(Command(w.command, Path("ro/new.out")), as);
    EXPECT_EQ(r.exit_code, 1) << w.name << ": " << r.err;
    EXPECT_THAT(r.err, HasSubstr(Path("ro/new.out") + ": cannot write: directory " + Path("ro") +
                                 ": Permission denied"))
        << w.name;
    EXPECT_FALSE(fs::exists(Path("ro/new.out"))) << w.name;
  }
  // train refuses before reading its data: no "sentences" progress line.
  RunResult r = RunChaintag(Command(kWriters[1].command, Path("rw/ro.out")), as);
  EXPECT_THAT(r.err, Not(HasSubstr("sentences")));
  ExpectNoTemporaries();
}

// A writer killed by SIGPIPE (or SIGHUP, SIGTERM) leaves no temporary file.
TEST_F(OutputSafetyTest, KilledWriterLeavesNoTemporary) {
  ASSERT_EQ(::mkfifo(Path("in.fifo").c_str(), 0644), 0);
  for (const char* signal : {"PIPE", "TERM", "HUP"}) {
    // clique has opened its output and waits for input (the script holds the FIFO open) when the
    // signal comes; the script fails unless the temporary file existed by then.
    const int rc = RunScript("exec 3<>'" + Path("in.fifo") + "'\n$B clique -o '" + Path("sig.out") +
                             "' '" + Path("in.fifo") +
                             "' & pid=$!\n"
                             "found=; for i in $(seq 300); do if ls '" +
                             Path("sig.out") +
                             "'.tmp-*; then found=1; break; fi; sleep 0.1; done\n"
                             "test -n \"$found\" || exit 3\n" +
                             "kill -" + signal + " $pid; wait $pid; test $? -gt 128");
    EXPECT_EQ(rc, 0) << signal << ": " << ReadAll(Path("script.out"));
    EXPECT_FALSE(fs::exists(Path("sig.out"))) << signal;
    ExpectNoTemporaries();
  }
}

}  // namespace
}  // namespace chaintag::testing
