// `chaintag serve` end to end: the built binary on a free loopback port, every endpoint, every
// limit and malformed request (each a 4xx or 503 JSON error, the server still serving after it),
// equality with `tag --output-format jsonl`, keep-alive, timeouts, and SIGTERM/SIGINT draining
// the request in flight before exiting 0.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <future>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "boost/asio/connect.hpp"
#include "boost/asio/ip/tcp.hpp"
#include "boost/beast/core.hpp"
#include "boost/beast/http.hpp"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "support/cli_test_util.h"

extern char** environ;

namespace chaintag {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using json = nlohmann::json;
using tcp = net::ip::tcp;
using ::testing::HasSubstr;

// A `chaintag serve` process on 127.0.0.1 and the port it chose (--port 0).
class ServerProcess {
 public:
  explicit ServerProcess(const std::vector<std::string>& extra_args = {}) {
    std::vector<std::string> args = {CHAINTAG_BINARY, "serve", "--port", "0"};
    args.insert(args.end(), extra_args.begin(), extra_args.end());
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    int pipe_fds[2];
    if (pipe(pipe_fds) != 0) return;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 2);
    posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
    if (posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
    close(pipe_fds[1]);
    err_fd_ = pipe_fds[0];
    // "chaintag serve: listening on http://127.0.0.1:PORT/ ..."
    const std::regex listening("listening on http://127\\.0\\.0\\.1:([0-9]+)/");
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    std::smatch m;
    while (pid_ > 0 && !std::regex_search(err_, m, listening) &&
           std::chrono::steady_clock::now() < deadline) {
      if (ReadErr(1000) < 0) break;
    }
    if (std::regex_search(err_, m, listening)) port_ = std::stoi(m[1]);
  }
  ~ServerProcess() {
    if (pid_ > 0 && !exited_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (err_fd_ >= 0) close(err_fd_);
  }
  int port() const { return port_; }
  const std::string& err() const { return err_; }

  // Sends `signal` and waits for the exit; returns the exit status (128 + signal if killed).
  int Stop(int signal) {
    kill(pid_, signal);
    int status = 0;
    waitpid(pid_, &status, 0);
    exited_ = true;
    while (ReadErr(100) > 0) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

 private:
  // Appends what stderr has within `ms` milliseconds: 1 if something came, 0 if nothing did, -1
  // at its end.
  int ReadErr(int ms) {
    pollfd p{err_fd_, POLLIN, 0};
    if (poll(&p, 1, ms) <= 0) return 0;
    char buf[4096];
    const ssize_t n = read(err_fd_, buf, sizeof buf);
    if (n <= 0) return -1;
    err_.append(buf, n);
    return 1;
  }
  pid_t pid_ = -1;
  int err_fd_ = -1;
  int port_ = 0;
  bool exited_ = false;
  std::string err_;
};

struct Reply {
  int status = 0;
  std::string body;
  http::response<http::string_body> raw;
  json Json() const { return json::parse(body); }
};

// One keep-alive connection to the server.
class Client {
 public:
  explicit Client(int port) : stream_(ioc_) {
    stream_.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port));
  }
  Reply Send(http::verb verb, const std::string& target, const std::string& body = "") {
    http::request<http::string_body> req(verb, target, 11);
    req.set(http::field::host, "127.0.0.1");
    req.keep_alive(true);
    if (verb == http::verb::post) {
      req.body() = body;
      req.prepare_payload();
    }
    http::write(stream_, req);
    return Receive();
  }
  Reply Receive() {
    Reply r;
    http::read(stream_, buffer_, r.raw);
    r.status = r.raw.result_int();
    r.body = r.raw.body();
    return r;
  }
  void WriteRaw(const std::string& bytes) { net::write(stream_.socket(), net::buffer(bytes)); }
  // Whether the server closed the connection (reads until the end or `seconds` pass).
  bool ClosedWithin(int seconds) {
    stream_.expires_after(std::chrono::seconds(seconds));
    char c;
    beast::error_code ec;
    stream_.read_some(net::buffer(&c, 1), ec);
    return ec == net::error::eof || ec == net::error::connection_reset;
  }

 private:
  net::io_context ioc_;
  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
};

Reply Post(int port, const std::string& body, const std::string& target = "/tag") {
  return Client(port).Send(http::verb::post, target, body);
}
Reply Get(int port, const std::string& target) {
  return Client(port).Send(http::verb::get, target);
}

void ExpectServing(int port) {
  const Reply r = Get(port, "/health");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.Json()["status"], "ok");
}

// The chunks of type `type` in a BIO labeling.
int CountChunks(const json& labels, const std::string& type) {
  int n = 0;
  for (const auto& l : labels) n += l.get<std::string>() == "B-" + type;
  return n;
}

class ServeTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = new ServerProcess({"--max-body-bytes", "4096", "--max-tokens", "60",
                                 "--max-sentence-tokens", "40", "--max-kbest", "5",
                                 "--decode-memory-mb", "64", "--timeout", "2"});
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override { ASSERT_GT(server_->port(), 0) << server_->err(); }
  int port() const { return server_->port(); }
  static ServerProcess* server_;
};
ServerProcess* ServeTest::server_ = nullptr;

TEST_F(ServeTest, KBestUnderACountConstraint) {
  const Reply r =
      Post(port(),
           R"({"text": "The old man saw the dog.", "kbest": 3, "counts": {"chunk:NP": [1, 2]}})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.raw[http::field::content_type], "application/json");
  const json answer = r.Json();
  ASSERT_TRUE(answer.is_array());
  ASSERT_EQ(answer.size(), 1u);
  EXPECT_EQ(answer[0]["status"], "ok");
  ASSERT_EQ(answer[0]["solutions"].size(), 3u);
  double previous = 1e300;
  for (const auto& s : answer[0]["solutions"]) {
    const int np = CountChunks(s["labels"], "NP");
    EXPECT_GE(np, 1);
    EXPECT_LE(np, 2);
    EXPECT_LE(s["score"].get<double>(), previous);  // best first
    previous = s["score"].get<double>();
  }
}

TEST_F(ServeTest, AnswerEqualsTagJsonl) {
  // The same text and request through `tag`: every array element is one jsonl line, byte for byte.
  const std::string text = testing::ReadAll(std::string(CHAINTAG_SOURCE_DIR) + "/docs/sample.txt");
  json body = {{"text", text}, {"kbest", 2}, {"marginals", true}};
  const Reply r = Post(port(), body.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  const testing::RunResult tag =
      testing::RunChaintag("tag --kbest 2 --marginals --output-format jsonl docs/sample.txt");
  ASSERT_EQ(tag.exit_code, 0) << tag.err;
  ASSERT_EQ(r.body.front(), '[');
  std::string lines = r.body.substr(1, r.body.size() - 3);  // without "[" and "]\n"
  std::string expected = tag.out;
  expected.pop_back();
  for (size_t at = 0; (at = expected.find('\n', at)) != std::string::npos; at += 2) {
    expected.replace(at, 1, ",\n");
  }
  EXPECT_EQ(lines, expected);
  EXPECT_EQ(r.Json().size(), 3u);
}

TEST_F(ServeTest, TableFieldsTagAsTheSameOptionsOfTag) {
  // Each decode field of the request table, through the service and as `tag`'s option: the same
  // jsonl objects (defaults included: marginals_min when only marginals is given).
  const std::string sentence = "The old man saw the dog in the park.";
  const std::string input = ::testing::TempDir() + "/serve_table_fields.txt";
  { std::ofstream(input) << sentence << "\n"; }
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"("kbest": 3, "counts": {"chunk:NP": [1, 2]})", "--kbest 3 --count chunk:NP=1..2"},
      {R"("counts": ["chunk:NP=..2", "B-PP=0"])", "--count chunk:NP=..2 --count B-PP=0"},
      {R"("score_range": [null, 110], "score_resolution": 0.01)",
       "--score-range=..110 --score-resolution 0.01"},
      {R"("diverse": 3, "min_distance": 2, "diversity": "chunks")",
       "--diverse 3 --min-distance 2 --diversity chunks"},
      {R"("marginals": true)", "--marginals"},
      {R"("marginals": true, "marginals_min": 0.25)", "--marginals --marginals-min 0.25"},
  };
  for (const auto& [fields, options] : cases) {
    const Reply r = Post(port(), absl::StrCat(R"({"text": ")", sentence, R"(", )", fields, "}"));
    ASSERT_EQ(r.status, 200) << fields << "\n" << r.body;
    const testing::RunResult tag =
        testing::RunChaintag("tag " + options + " --output-format jsonl " + input);
    ASSERT_EQ(tag.exit_code, 0) << options << "\n" << tag.err;
    EXPECT_EQ(r.body, "[" + tag.out.substr(0, tag.out.size() - 1) + "]\n") << fields;
  }
}

TEST_F(ServeTest, MalformedJsonIs400AndTheServerKeepsServing) {
  const Reply r = Post(port(), R"({"text": )");
  EXPECT_EQ(r.status, 400);
  EXPECT_THAT(r.Json()["error"].get<std::string>(), HasSubstr("invalid JSON at line 1, column"));
  EXPECT_EQ(r.Json()["status"], 400);
  ExpectServing(port());
}

TEST_F(ServeTest, EveryBadRequestGetsA4xxNamingWhatWasExpected) {
  struct Case {
    std::string body;
    int status;
    std::string message;
  };
  const std::string long_sentence = [] {
    std::string s = R"({"sentences": [[)";
    for (int i = 0; i < 41; ++i) s += std::string(i ? ", " : "") + "\"w\"";
    return s + "]]}";
  }();
  const std::string many_tokens = [] {
    std::string s = R"({"text": ")";
    for (int i = 0; i < 61; ++i) s += "word ";
    return s + "\"}";
  }();
  const std::vector<Case> cases = {
      {"", 400, "unexpected end of input"},
      {"[1, 2]", 400, "expected a JSON object"},
      {R"({"text": "a", "text": "b"})", 400, "duplicate key \"text\""},
      {R"({"txt": "a"})", 400, "unknown field \"txt\"; expected one of text, sentences"},
      {R"({"text": "a", "model": "/etc/passwd"})", 400, "requests cannot choose models"},
      {R"({"text": "a", "collective": "potts", "collective_train": "x.conll"})", 400,
       "cannot name files"},
      {R"({"text": "a", "collective": "majority"})", 400, "training file"},
      {R"({"text": "a", "sentences": [["a"]]})", 400, "exactly one of them"},
      {R"({"kbest": 2})", 400, "exactly one of them"},
      {R"({"text": 5})", 400, "text: expected a string, found an integer"},
      {R"({"text": "   "})", 400, "no sentences found"},
      {R"({"sentences": []})", 400, "expected at least one"},
      {R"({"sentences": [[]]})", 400, "sentences[0]: expected at least one token"},
      {R"({"sentences": [["a", 5]]})", 400, "sentences[0][1]: expected a token"},
      {R"({"sentences": [["a", ""]]})", 400, "sentences[0][1]: expected a non-empty string"},
      {R"({"sentences": [["a\u0001"]]})", 400, "control character U+0001"},
      {R"({"sentences": [{"tokens": ["a"], "x": 1}]})", 400, "unknown field \"x\""},
      {R"({"text": "a", "kbest": 6})", 400, "kbest: expected an integer from 0 to 5, found 6"},
      {R"({"text": "a", "diverse": 99999999999999999999})", 400, "diverse: expected an integer"},
      {R"({"text": "a", "kbest": "3"})", 400, "kbest: expected an integer, found a string"},
      {R"({"text": "a", "kbest": 2, "diverse": 2})", 400, "not both"},
      {R"({"text": "a", "counts": {"chunk:XX": [1, 2]}})", 400,
       "--count 'chunk:XX=1..2': the model has no chunk type 'XX'"},
      {R"({"text": "a", "counts": {"chunk:NP": [1]}})", 400, "expected [lower, upper]"},
      {R"({"text": "a", "counts": {"chunk:NP": [-1, 2]}})", 400, "from 0 to"},
      {R"({"text": "a", "score_range": [2, 1]})", 400, "score_range: expected A..B with A <= B"},
      {R"({"text": "a", "score_range": "x"})", 400, "score_range: expected a range A..B"},
      {R"({"text": "a", "diversity": "cosine"})", 400,
       "diversity: expected hamming or chunks, found 'cosine'"},
      {R"({"text": "a", "max_memory_mb": 65})", 400,
       "max_memory_mb: expected an integer from 1 "
       "to 64"},
      {R"({"text": "a", "latent_decoder": "x"})", 400, "latent_decoder"},
      {R"({"text": "a b", "forced": ["B-NP"]})", 400, "forced: expected 2 labels"},
      {R"({"text": "a b", "forced": ["B-NP", "Z"]})", 400,
       "expected a label of the model or '_' in the forced-label column, found 'Z'"},
      {R"({"text": "Hi there. Bye now.", "forced": ["B-NP", null]})", 400,
       "the request has 2 sentences; give forced labels and exclusions per sentence"},
      {R"({"text": "a b", "exclude": "B-NP"})", 400, "exclude: expected a list of labelings"},
      {R"({"text": "a", "collective_iterations": 3})", 400,
       "collective_iterations needs collective"},
      {R"({"text": "a", "min_distance": 0})", 400, "min_distance must be >= 1"},
      {R"({"text": "a", "marginals_min": 1.5})", 400, "marginals_min must be between 0 and 1"},
      {R"({"text": "a", "kbset": 3})", 400,
       "unknown field \"kbset\"; expected one of text, sentences, kbest,"},
      {R"({"text": "a", "collective": "potts", "kbest": 2})", 400, "does not combine"},
      {"{\"text\": \"\xff\"}", 400, "invalid JSON"},
      {R"({"text": "\ud800"})", 400, "surrogate"},
      {"{\"text\": [[[[[[[[[[\"a\"]]]]]]]]]]}", 400, "nesting deeper than 8 levels"},
      {R"({"text": "a", "score_resolution": 1e999})", 400, "number overflow"},
      {long_sentence, 413, "41 tokens, more than the server's limit of 40 per sentence"},
      {many_tokens, 413, "more than 60 tokens, the server's limit (--max-tokens)"},
      {std::string(5000, ' '), 413, "larger than the server's limit of 4096 bytes"},
  };
  for (const Case& c : cases) {
    const Reply r = Post(port(), c.body);
    EXPECT_EQ(r.status, c.status) << c.body << "\n" << r.body;
    json error;
    ASSERT_NO_THROW(error = r.Json()) << c.body << "\n" << r.body;
    EXPECT_THAT(error["error"].get<std::string>(), HasSubstr(c.message)) << c.body;
    EXPECT_EQ(error["status"], c.status);
  }
  ExpectServing(port());
}

TEST_F(ServeTest, SentencesWithColumnsForcedLabelsAndExclusions) {
  // Token lists (strings, or column lists as the first model reads them).
  const Reply plain = Post(port(), R"({"sentences": [["The", "dog", "barked", "."],
                                                     [["Dogs"], ["bark"]]]})");
  ASSERT_EQ(plain.status, 200) << plain.body;
  const json a = plain.Json();
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0]["labels"], json({"B-NP", "I-NP", "B-VP", "O"}));
  EXPECT_FALSE(a[0].contains("offsets"));
  // A forced label is obeyed and listed; an excluded labeling does not come back.
  const Reply forced = Post(port(), R"({"sentences": [{"tokens": ["The", "dog", "barked", "."],
                                        "forced": [null, "B-NP", "_", "_"]}]})");
  ASSERT_EQ(forced.status, 200) << forced.body;
  EXPECT_EQ(forced.Json()[0]["labels"][1], "B-NP");
  EXPECT_EQ(forced.Json()[0]["forced"], json({"_", "B-NP", "_", "_"}));
  const Reply excluded = Post(port(), R"({"text": "The dog barked.",
                                          "exclude": [["B-NP", "I-NP", "B-VP", "O"]]})");
  ASSERT_EQ(excluded.status, 200) << excluded.body;
  EXPECT_NE(excluded.Json()[0]["labels"], json({"B-NP", "I-NP", "B-VP", "O"}));
  // Forced labels by position, a score range, diverse k-best and a count given as a string.
  const Reply by_position =
      Post(port(), R"({"text": "The old man saw the dog.", "forced": {"-1": "O"},
                      "diverse": 3, "min_distance": 2, "diversity": "chunks",
                      "counts": ["chunk:VP=1"]})");
  ASSERT_EQ(by_position.status, 200) << by_position.body;
  EXPECT_EQ(by_position.Json()[0]["solutions"].size(), 3u);
  const Reply range =
      Post(port(), R"({"text": "The old man saw the dog.", "score_range": [null, 110]})");
  ASSERT_EQ(range.status, 200) << range.body;
  EXPECT_LE(range.Json()[0]["score"].get<double>(), 110.0);
  EXPECT_TRUE(range.Json()[0].contains("score_resolution"));
  // Infeasible is a sentence status, not an error.
  const Reply infeasible =
      Post(port(), R"({"text": "The dog barked.", "counts": {"chunk:NP": [5, null]}})");
  ASSERT_EQ(infeasible.status, 200) << infeasible.body;
  EXPECT_EQ(infeasible.Json()[0]["status"], "infeasible");
  // Collective tagging of a text (one document).
  const Reply collective =
      Post(port(), R"({"text": "Smith spoke. Smith left.", "collective": "potts"})");
  ASSERT_EQ(collective.status, 200) << collective.body;
  EXPECT_TRUE(collective.Json()[0].contains("document"));
}

TEST_F(ServeTest, ModelsHealthPageAndUnknownPaths) {
  const Reply models = Get(port(), "/models");
  ASSERT_EQ(models.status, 200);
  const json list = models.Json();
  ASSERT_EQ(list.size(), 2u);
  // What `info --json` says of each model, exactly.
  for (const auto& m : list) {
    const testing::RunResult info =
        testing::RunChaintag("info --json '" + m["file"].get<std::string>() + "'");
    ASSERT_EQ(info.exit_code, 0) << info.err;
    EXPECT_EQ(json::parse(info.out), m);
  }
  EXPECT_EQ(list[1]["labels"].size(), json::parse(models.body)[1]["labels"].size());

  const Reply health = Get(port(), "/health?verbose=1");
  ASSERT_EQ(health.status, 200);
  EXPECT_EQ(health.Json()["models"], 2);

  const Reply page = Get(port(), "/");
  ASSERT_EQ(page.status, 200);
  EXPECT_EQ(page.raw[http::field::content_type], "text/html; charset=utf-8");
  EXPECT_THAT(std::string(page.raw["Content-Security-Policy"]), HasSubstr("default-src 'none'"));
  EXPECT_THAT(page.body, HasSubstr("<title>chaintag"));
  // Nothing is loaded from elsewhere: no URL with a scheme or host.
  EXPECT_FALSE(std::regex_search(page.body, std::regex("(src|href)=\"(https?:)?//")));

  const Reply missing = Get(port(), "/etc/passwd");
  EXPECT_EQ(missing.status, 404);
  EXPECT_THAT(missing.Json()["error"].get<std::string>(), HasSubstr("no such path"));
  const Reply method = Get(port(), "/tag");
  EXPECT_EQ(method.status, 405);
  EXPECT_EQ(method.raw[http::field::allow], "POST");
  const Reply post_models = Post(port(), "{}", "/models");
  EXPECT_EQ(post_models.status, 405);
  ExpectServing(port());
}

TEST_F(ServeTest, KeepAliveMalformedHttpAndTimeouts) {
  {
    Client c(port());
    EXPECT_EQ(c.Send(http::verb::get, "/health").status, 200);
    EXPECT_EQ(c.Send(http::verb::post, "/tag", R"({"text": "Hi."})").status, 200);
    EXPECT_EQ(c.Send(http::verb::post, "/tag", "{").status, 400);
    EXPECT_EQ(c.Send(http::verb::get, "/health").status, 200);  // still the same connection
  }
  {
    Client c(port());
    c.WriteRaw("NOT HTTP AT ALL\r\n\r\n");
    const Reply r = c.Receive();
    EXPECT_EQ(r.status, 400);
    EXPECT_THAT(r.Json()["error"].get<std::string>(), HasSubstr("malformed HTTP request"));
  }
  {
    // A client that stops halfway through its request is cut off after --timeout (2 s).
    Client c(port());
    c.WriteRaw("POST /tag HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"text\"");
    const auto start = std::chrono::steady_clock::now();
    EXPECT_TRUE(c.ClosedWithin(10));
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(8));
  }
  {
    // An idle connection is closed after the timeout.
    Client c(port());
    EXPECT_TRUE(c.ClosedWithin(10));
  }
  ExpectServing(port());
}

// A request that keeps a tagging thread busy for a while (3000-best of a 100-token sentence;
// the server must allow it with --max-kbest).
std::string SlowRequest() {
  std::string text;
  for (int i = 0; i < 9; ++i) text += "The old man saw the big dog near the river bank ";
  return json({{"text", text + "."}, {"kbest", 3000}}).dump();
}

// Polls GET /health until `n` requests are in flight (false after 20 s).
bool WaitInFlight(int port, int n) {
  for (int i = 0; i < 2000; ++i) {
    if (Get(port, "/health").Json()["in_flight"] == n) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

TEST(ServeLimitsTest, ConcurrentRequestsBeyondTheCapGet503) {
  ServerProcess server({"--max-concurrent", "1", "--max-connections", "4", "--timeout", "30",
                        "--max-kbest", "3000"});
  ASSERT_GT(server.port(), 0) << server.err();
  const int port = server.port();
  auto slow = std::async(std::launch::async, [&] { return Post(port, SlowRequest()); });
  ASSERT_TRUE(WaitInFlight(port, 1));
  const Reply busy = Post(port, R"({"text": "Hi."})");
  EXPECT_EQ(busy.status, 503);
  EXPECT_EQ(busy.raw[http::field::retry_after], "1");
  EXPECT_THAT(busy.Json()["error"].get<std::string>(), HasSubstr("--max-concurrent"));
  EXPECT_EQ(slow.get().status, 200);
  EXPECT_EQ(Post(port, R"({"text": "Hi."})").status, 200);  // served again once free

  // Connections beyond --max-connections are answered 503 and closed.
  std::vector<std::unique_ptr<Client>> idle;
  for (int i = 0; i < 4; ++i) idle.push_back(std::make_unique<Client>(port));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // all four accepted
  Client extra(port);
  const Reply r = extra.Receive();
  EXPECT_EQ(r.status, 503);
  EXPECT_THAT(r.Json()["error"].get<std::string>(), HasSubstr("too many open connections"));
  idle.clear();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(Get(port, "/health").status, 200);
}

TEST(ServeShutdownTest, SigtermDrainsTheRequestInFlightAndExitsZero) {
  for (int signal : {SIGTERM, SIGINT}) {
    ServerProcess server({"--timeout", "30", "--max-kbest", "3000"});
    ASSERT_GT(server.port(), 0) << server.err();
    const int port = server.port();
    auto slow = std::async(std::launch::async, [&] { return Post(port, SlowRequest()); });
    ASSERT_TRUE(WaitInFlight(port, 1));
    const int status = server.Stop(signal);
    const Reply r = slow.get();
    EXPECT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(r.Json()[0]["status"], "ok");
    EXPECT_EQ(r.raw[http::field::connection], "close");
    EXPECT_EQ(status, 0) << server.err();
    EXPECT_THAT(server.err(), HasSubstr("finishing 1 request(s) in flight"));
    EXPECT_THAT(server.err(), HasSubstr("stopped after"));
  }
}

TEST(ServeCliTest, UsageErrors) {
  const testing::RunResult port = testing::RunChaintag("serve --port 70000");
  EXPECT_EQ(port.exit_code, 2);
  EXPECT_THAT(port.err, HasSubstr("--port must be between 0 and 65535"));
  const testing::RunResult limit = testing::RunChaintag("serve --max-tokens 0");
  EXPECT_EQ(limit.exit_code, 2);
  const testing::RunResult host = testing::RunChaintag("serve --host nowhere --port 0");
  EXPECT_EQ(host.exit_code, 1);
  EXPECT_THAT(host.err, HasSubstr("--host: expected an IP address"));
  const testing::RunResult model = testing::RunChaintag("serve -m missing.model --port 0");
  EXPECT_EQ(model.exit_code, 1);
  EXPECT_THAT(model.err, HasSubstr("missing.model"));
}

}  // namespace
}  // namespace chaintag
