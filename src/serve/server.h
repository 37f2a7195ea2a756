// `chaintag serve`: a tagging service over HTTP/1.1 and JSON (Boost.Beast), see docs/serve.md.
//   POST /tag     a JSON body (serve/request.h) -> the jsonl objects of `tag` in a JSON array
//   GET /models   `info --json` of every loaded model, in pipeline order
//   GET /health   {"status": "ok", ...}
//   GET /         the demo page (compiled into the binary; it loads nothing from elsewhere)
// Models are loaded once and shared read-only; requests are parsed and tagged on a pool of
// tagging threads while one network thread reads and writes every connection. Every limit is an
// option; every refused or malformed request gets a 4xx (503 when busy) with {"error": ...}.
#ifndef CHAINTAG_SERVE_SERVER_H_
#define CHAINTAG_SERVE_SERVER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "chaintag/model.h"
#include "serve/request.h"

namespace chaintag::serve {

struct ServerOptions {
  std::string host = "127.0.0.1";  // loopback unless told otherwise
  int port = 8080;                 // 0: any free port (Server::port() says which)
  int threads = 1;                 // tagging threads
  int max_concurrent = 64;         // POST /tag requests tagged or queued at once; more get 503
  int max_connections = 1024;      // open connections; more are answered 503 and closed
  int64_t max_body_bytes = 1 << 20;
  // Reading one request (an idle keep-alive connection included) and writing one response may
  // take this long; then the connection is closed, so a slow client cannot hold the server.
  int timeout_seconds = 10;
  RequestLimits limits;
};

class Server {
 public:
  // Binds options.host:options.port and prepares the answers that do not change (models, page).
  // `paths[i]` is the file models[i] was loaded from (GET /models reports it).
  static absl::StatusOr<std::unique_ptr<Server>> Create(std::vector<const Model*> models,
                                                        std::vector<std::string> paths,
                                                        const ServerOptions& options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  int port() const;
  // Serves on the calling thread until Shutdown() or, with `handle_signals`, SIGINT or SIGTERM;
  // then accepts nothing more, finishes the requests in flight and returns. A second signal
  // while draining ends the process the default way.
  absl::Status Run(bool handle_signals);
  // From any thread: stop as a signal would.
  void Shutdown();

  struct Counters {
    int64_t requests = 0;  // responses written
    int64_t tagged = 0;    // POST /tag requests answered 200
  };
  Counters counters() const;

 private:
  class Impl;
  explicit Server(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace chaintag::serve

#endif  // CHAINTAG_SERVE_SERVER_H_
