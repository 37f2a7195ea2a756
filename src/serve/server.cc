#include "serve/server.h"

#include <atomic>
#include <csignal>
#include <exception>
#include <iostream>
#include <new>
#include <optional>
#include <set>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "boost/asio/executor_work_guard.hpp"
#include "boost/asio/ip/tcp.hpp"
#include "boost/asio/post.hpp"
#include "boost/asio/signal_set.hpp"
#include "boost/asio/steady_timer.hpp"
#include "boost/asio/thread_pool.hpp"
#include "boost/beast/core.hpp"
#include "boost/beast/http.hpp"
#include "cli/model_info.h"
#include "nlohmann/json.hpp"

namespace chaintag::serve {

// The demo page (src/serve/demo.html, embedded at build time by cmake/embed_file.cmake).
extern const std::string_view kDemoPage;

namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

using Request = http::request<http::string_body>;
using Response = http::response<http::string_body>;

// What a handler answers: a status and a body of the given type.
struct Answer {
  http::status status = http::status::ok;
  std::string body;
  std::string content_type = "application/json";
};

Answer Error(http::status status, absl::string_view message) {
  // Messages may quote the request's bytes: invalid UTF-8 becomes U+FFFD, so the answer is JSON.
  const std::string text =
      nlohmann::json(std::string(message))
          .dump(-1, ' ', /*ensure_ascii=*/false, nlohmann::json::error_handler_t::replace);
  return {status,
          absl::StrCat("{\"error\": ", text, ", \"status\": ", static_cast<int>(status), "}\n")};
}

// The page may use inline script and style and talk to this server; nothing else.
constexpr const char* kPagePolicy =
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'";

}  // namespace

class Server::Impl {
 public:
  Impl(std::vector<const Model*> models, const ServerOptions& options)
      : models_(std::move(models)), options_(options), acceptor_(ioc_), signals_(ioc_) {}

  absl::Status Bind() {
    beast::error_code ec;
    const auto address = net::ip::make_address(options_.host, ec);
    if (ec) {
      return absl::InvalidArgumentError(
          absl::StrCat("--host: expected an IP address, found '", options_.host, "'"));
    }
    const tcp::endpoint endpoint(address, static_cast<uint16_t>(options_.port));
    acceptor_.open(endpoint.protocol(), ec);
    if (!ec) acceptor_.set_option(net::socket_base::reuse_address(true), ec);
    if (!ec) acceptor_.bind(endpoint, ec);
    if (!ec) acceptor_.listen(net::socket_base::max_listen_connections, ec);
    if (ec) {
      return absl::UnavailableError(
          absl::StrCat("cannot listen on ", options_.host, ":", options_.port, ": ", ec.message()));
    }
    port_ = acceptor_.local_endpoint().port();
    return absl::OkStatus();
  }

  void BuildModelsAnswer(const std::vector<std::string>& paths) {
    std::vector<std::string> infos;
    for (size_t i = 0; i < models_.size(); ++i) {
      infos.push_back(cli::ModelInfoJson(*models_[i], paths[i], /*top=*/20));
    }
    models_json_ = absl::StrCat("[", absl::StrJoin(infos, ",\n"), "]\n");
  }

  int port() const { return port_; }

  absl::Status Run(bool handle_signals) {
    pool_.emplace(static_cast<size_t>(std::max(options_.threads, 1)));
    if (handle_signals) {
      signals_.add(SIGINT);
      signals_.add(SIGTERM);
      signals_.async_wait([this](const beast::error_code& ec, int signal) {
        if (ec) return;
        std::cerr << "chaintag serve: signal " << signal << ": finishing " << in_flight_.load()
                  << " request(s) in flight, then exiting\n";
        Stop();
      });
    }
    Accept();
    ioc_.run();
    pool_->join();
    return absl::OkStatus();
  }

  void Shutdown() {
    net::post(ioc_, [this] { Stop(); });
  }

  Counters counters() const { return {requests_.load(), tagged_.load()}; }

  class Session;

 private:
  friend class Session;

  void Accept();
  // On the network thread: no new connections or requests; idle connections are closed, the
  // others after their response.
  void Stop();

  Answer Route(const Request& req, bool* deferred, std::shared_ptr<Session> session);
  void Tag(std::string body, std::shared_ptr<Session> session);

  std::vector<const Model*> models_;
  ServerOptions options_;
  net::io_context ioc_{1};
  tcp::acceptor acceptor_;
  net::signal_set signals_;
  net::steady_timer retry_{ioc_};
  std::optional<net::thread_pool> pool_;
  std::set<Session*> sessions_;  // network thread only
  bool stopping_ = false;        // network thread only
  int port_ = 0;
  std::string models_json_;
  std::atomic<int> in_flight_{0};
  std::atomic<int64_t> requests_{0};
  std::atomic<int64_t> tagged_{0};
};

// One connection: reads requests one at a time (keep-alive), answers each, all on the network
// thread; a POST /tag is handed to the tagging pool and its answer posted back here.
class Server::Impl::Session : public std::enable_shared_from_this<Session> {
 public:
  Session(Impl* server, tcp::socket socket) : server_(server), stream_(std::move(socket)) {}
  ~Session() { server_->sessions_.erase(this); }

  void Start(bool over_capacity) {
    if (over_capacity) {
      keep_alive_ = false;
      return Write(Error(http::status::service_unavailable,
                         absl::StrCat("too many open connections (the server's limit is ",
                                      server_->options_.max_connections,
                                      ", --max-connections); try again later")));
    }
    Read();
  }

  void StopIfIdle() {
    if (busy_) return;  // finishes its request first, then closes (keep_alive_ is cleared)
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
    stream_.cancel();
  }

  // Called on the network thread with the answer of a deferred request.
  void Finish(Answer answer) { Write(std::move(answer)); }

 private:
  void Read() {
    if (server_->stopping_) return Close();
    parser_.emplace();
    parser_->body_limit(server_->options_.max_body_bytes);
    parser_->header_limit(16 * 1024);
    stream_.expires_after(std::chrono::seconds(server_->options_.timeout_seconds));
    http::async_read(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, size_t) { self->OnRead(ec); });
  }

  void OnRead(beast::error_code ec) {
    if (ec) {
      keep_alive_ = false;
      if (ec == http::error::body_limit) {
        return Write(
            Error(http::status::payload_too_large,
                  absl::StrCat("the request body is larger than the server's limit of ",
                               server_->options_.max_body_bytes, " bytes (--max-body-bytes)")));
      }
      if (ec == http::error::header_limit) {
        return Write(Error(http::status::request_header_fields_too_large,
                           "the request's header is larger than 16384 bytes"));
      }
      if (ec.category() == http::make_error_code(http::error::bad_method).category() &&
          ec != http::error::end_of_stream && ec != http::error::partial_message) {
        return Write(Error(http::status::bad_request,
                           absl::StrCat("malformed HTTP request: ", ec.message())));
      }
      // The client went away, or was too slow (a timed-out stream is already closed: no answer).
      return Close();
    }
    const Request& req = parser_->get();
    keep_alive_ = req.keep_alive();
    busy_ = true;
    bool deferred = false;
    Answer answer = server_->Route(req, &deferred, shared_from_this());
    if (!deferred) Write(std::move(answer));
  }

  void Write(Answer answer) {
    busy_ = true;
    response_ = Response(answer.status, 11);
    response_.set(http::field::server, "chaintag");
    response_.set(http::field::content_type, answer.content_type);
    response_.set(http::field::cache_control, "no-store");
    response_.set("X-Content-Type-Options", "nosniff");
    if (answer.content_type.rfind("text/html", 0) == 0) {
      response_.set("Content-Security-Policy", kPagePolicy);
    }
    if (answer.status == http::status::service_unavailable) {
      response_.set(http::field::retry_after, "1");
    }
    if (answer.status == http::status::method_not_allowed) {
      response_.set(http::field::allow, allow_);
    }
    response_.body() = std::move(answer.body);
    response_.keep_alive(keep_alive_ && !server_->stopping_);
    response_.prepare_payload();
    stream_.expires_after(std::chrono::seconds(server_->options_.timeout_seconds));
    http::async_write(
        stream_, response_,
        [self = shared_from_this()](beast::error_code ec, size_t) { self->OnWrite(ec); });
  }

  void OnWrite(beast::error_code ec) {
    busy_ = false;
    ++server_->requests_;
    if (ec || !response_.keep_alive()) return Close();
    Read();
  }

  void Close() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
    stream_.socket().close(ec);
  }

  friend class Server::Impl;
  Impl* server_;
  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  Response response_;
  bool keep_alive_ = true;
  bool busy_ = false;  // a request was read and its response is not yet written
  std::string allow_;  // the methods of the last 405's path
};

void Server::Impl::Accept() {
  acceptor_.async_accept(ioc_, [this](beast::error_code ec, tcp::socket socket) {
    if (ec) {
      if (!acceptor_.is_open()) return;  // stopping
      // Out of descriptors and the like: try again shortly rather than stop serving.
      retry_.expires_after(std::chrono::milliseconds(50));
      return retry_.async_wait([this](beast::error_code) {
        if (!stopping_) Accept();
      });
    }
    auto session = std::make_shared<Session>(this, std::move(socket));
    const bool over = static_cast<int64_t>(sessions_.size()) >= options_.max_connections;
    sessions_.insert(session.get());
    session->Start(over);
    Accept();
  });
}

void Server::Impl::Stop() {
  if (stopping_) return;
  stopping_ = true;
  beast::error_code ec;
  acceptor_.close(ec);
  signals_.clear(ec);  // a second signal acts as usual (ends the process)
  signals_.cancel(ec);
  for (Session* s : sessions_) s->StopIfIdle();
}

Answer Server::Impl::Route(const Request& req, bool* deferred, std::shared_ptr<Session> session) {
  const absl::string_view target(req.target().data(), req.target().size());
  const absl::string_view path = target.substr(0, target.find('?'));
  auto only = [&](http::verb verb, const char* allow) -> std::optional<Answer> {
    if (req.method() == verb) return std::nullopt;
    session->allow_ = allow;
    return Error(
        http::status::method_not_allowed,
        absl::StrCat(path, " accepts ", allow, ", not ",
                     absl::string_view(req.method_string().data(), req.method_string().size())));
  };
  if (path == "/tag") {
    if (auto refused = only(http::verb::post, "POST")) return *refused;
    if (in_flight_.fetch_add(1) >= options_.max_concurrent) {
      --in_flight_;
      return Error(http::status::service_unavailable,
                   absl::StrCat("busy: ", options_.max_concurrent,
                                " requests are being tagged (--max-concurrent); try again"));
    }
    *deferred = true;
    Tag(req.body(), std::move(session));
    return {};
  }
  if (path == "/models") {
    if (auto refused = only(http::verb::get, "GET")) return *refused;
    return {http::status::ok, models_json_};
  }
  if (path == "/health") {
    if (auto refused = only(http::verb::get, "GET")) return *refused;
    return {http::status::ok, absl::StrCat("{\"status\": \"ok\", \"models\": ", models_.size(),
                                           ", \"in_flight\": ", in_flight_.load(),
                                           ", \"requests\": ", requests_.load(), "}\n")};
  }
  if (path == "/" || path == "/index.html") {
    if (auto refused = only(http::verb::get, "GET")) return *refused;
    return {http::status::ok, std::string(kDemoPage), "text/html; charset=utf-8"};
  }
  return Error(http::status::not_found,
               absl::StrCat("no such path '", path,
                            "'; the service answers POST /tag, GET /models, GET /health, GET /"));
}

void Server::Impl::Tag(std::string body, std::shared_ptr<Session> session) {
  // The guard keeps the network thread's run() going while the pool tags.
  net::post(*pool_, [this, body = std::move(body), session = std::move(session),
                     work = net::make_work_guard(ioc_)]() mutable {
    Answer answer;
    try {
      auto request = ParseTagRequest(body, models_, options_.limits);
      if (!request.ok()) {
        answer = Error(absl::IsResourceExhausted(request.status()) ? http::status::payload_too_large
                                                                   : http::status::bad_request,
                       request.status().message());
      } else {
        auto json = RunTagRequest(*std::move(request), models_);
        if (json.ok()) {
          answer.body = *std::move(json);
          ++tagged_;
        } else {
          answer = Error(http::status::bad_request, json.status().message());
        }
      }
    } catch (const std::bad_alloc&) {
      answer = Error(http::status::service_unavailable, "out of memory while tagging");
    } catch (const std::exception& e) {
      answer =
          Error(http::status::internal_server_error, absl::StrCat("internal error: ", e.what()));
    }
    --in_flight_;
    net::post(ioc_, [session = std::move(session), answer = std::move(answer)]() mutable {
      session->Finish(std::move(answer));
    });
  });
}

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Server::~Server() = default;

absl::StatusOr<std::unique_ptr<Server>> Server::Create(std::vector<const Model*> models,
                                                       std::vector<std::string> paths,
                                                       const ServerOptions& options) {
  if (models.empty() || models.size() != paths.size()) {
    return absl::InvalidArgumentError("serve: expected one path per model");
  }
  for (size_t i = 0; i < models.size(); ++i) {
    if (models[i]->input_options().format == CorpusFormat::kAttributes) {
      return absl::InvalidArgumentError(
          absl::StrCat(paths[i], ": the model reads attribute files; serve tags text and tokens"));
    }
  }
  auto impl = std::make_unique<Impl>(std::move(models), options);
  if (absl::Status s = impl->Bind(); !s.ok()) return s;
  impl->BuildModelsAnswer(paths);
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

int Server::port() const { return impl_->port(); }
absl::Status Server::Run(bool handle_signals) { return impl_->Run(handle_signals); }
void Server::Shutdown() { impl_->Shutdown(); }
Server::Counters Server::counters() const { return impl_->counters(); }

}  // namespace chaintag::serve
