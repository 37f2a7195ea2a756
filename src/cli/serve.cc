// chaintag serve [-m MODEL ...] [--host 127.0.0.1] [--port 8080] [--threads N] [limits]
//
// Loads the models once and serves POST /tag, GET /models, GET /health and the demo page at GET /
// (src/serve/server.h, docs/serve.md) until SIGINT or SIGTERM; then finishes the requests in
// flight and exits 0.
#include <iostream>
#include <string>
#include <vector>

#include "chaintag/model.h"
#include "chaintag/tagging.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "serve/server.h"

namespace chaintag::cli {

int RunServe(const std::vector<std::string>& args) {
  const std::string cmd = "serve";
  const serve::ServerOptions defaults;
  po::options_description options("serve options");
  options.add_options()(
      "model,m", po::value<std::vector<std::string>>(),
      "model file; repeat for a pipeline (default: the shipped en-pos then en-chunk)")(
      "accurate", po::bool_switch(),
      "without -m: the accurate pipeline, en-pos-nn then en-chunk-nn (neural, slower)")(
      "host", po::value<std::string>()->default_value(defaults.host),
      "address to listen on (loopback by default; 0.0.0.0 for every interface)")(
      "port", po::value<int>()->default_value(defaults.port), "TCP port (0: any free port)")(
      "threads", po::value<int>()->default_value(defaults.threads),
      "tagging threads (0 = all cores, at most 4 per core)");
  po::options_description limits("limits (a request beyond one gets a 4xx or 503 JSON error)");
  limits.add_options()("max-body-bytes",
                       po::value<int64_t>()->default_value(defaults.max_body_bytes),
                       "largest request body (413 beyond)")(
      "max-tokens", po::value<int64_t>()->default_value(defaults.limits.max_tokens),
      "most tokens in one request (413 beyond)")(
      "max-sentence-tokens", po::value<int>()->default_value(defaults.limits.max_sentence_tokens),
      "raw text: longer sentences are split; token lists: longer sentences get 413")(
      "max-kbest", po::value<int>()->default_value(defaults.limits.max_kbest),
      "largest kbest or diverse a request may ask (400 beyond)")(
      "decode-memory-mb",
      po::value<int>()->default_value(
          static_cast<int>(defaults.limits.max_decode_memory_bytes >> 20)),
      "memory one sentence's constrained decoding may use (status too_large beyond); a request's "
      "max_memory_mb may only lower it")(
      "max-concurrent", po::value<int>()->default_value(defaults.max_concurrent),
      "POST /tag requests tagged or queued at once (503 beyond)")(
      "max-connections", po::value<int>()->default_value(defaults.max_connections),
      "open connections (503 beyond)")(
      "timeout", po::value<int>()->default_value(defaults.timeout_seconds),
      "seconds to read one request (or wait on an idle connection) and to write one response");
  options.add(limits);
  po::variables_map vm;
  if (int rc = ParseOrExit(cmd, "[-m MODEL ...] [--host H] [--port P] [--threads N] [limits]",
                           options, args, &vm, /*allow_files=*/false);
      rc >= 0) {
    return rc;
  }
  serve::ServerOptions o;
  o.host = vm["host"].as<std::string>();
  o.port = vm["port"].as<int>();
  if (o.port < 0 || o.port > 65535) return UsageError(cmd, "--port must be between 0 and 65535");
  auto threads = ThreadsFrom(cmd, vm["threads"].as<int>());
  if (!threads.ok()) return UsageError(cmd, std::string(threads.status().message()));
  o.threads = *threads;
  o.max_body_bytes = vm["max-body-bytes"].as<int64_t>();
  o.limits.max_tokens = vm["max-tokens"].as<int64_t>();
  o.limits.max_sentence_tokens = vm["max-sentence-tokens"].as<int>();
  o.limits.max_kbest = vm["max-kbest"].as<int>();
  const int memory_mb = vm["decode-memory-mb"].as<int>();
  o.limits.max_decode_memory_bytes = int64_t{memory_mb} << 20;
  o.max_concurrent = vm["max-concurrent"].as<int>();
  o.max_connections = vm["max-connections"].as<int>();
  o.timeout_seconds = vm["timeout"].as<int>();
  if (o.max_body_bytes < 1 || o.limits.max_tokens < 1 || o.limits.max_sentence_tokens < 1 ||
      o.limits.max_kbest < 1 || memory_mb < 1 || o.max_concurrent < 1 || o.max_connections < 1 ||
      o.timeout_seconds < 1) {
    return UsageError(cmd, "every limit must be >= 1");
  }

  if (vm["accurate"].as<bool>() && vm.count("model"))
    return UsageError(cmd, "--accurate chooses the shipped models; it cannot be given with -m");
  auto found = PipelineModelPaths(
      vm.count("model") ? vm["model"].as<std::vector<std::string>>() : std::vector<std::string>(),
      vm["accurate"].as<bool>());
  if (!found.ok()) return Fail(cmd, found.status());
  const std::vector<std::string> model_paths = *std::move(found);
  auto models = Model::LoadAll(model_paths);
  if (!models.ok()) return Fail(cmd, models.status());
  std::vector<const Model*> model_ptrs;
  for (const Model& model : *models) model_ptrs.push_back(&model);
  auto server = serve::Server::Create(model_ptrs, model_paths, o);
  if (!server.ok()) return Fail(cmd, server.status());
  std::cerr << "chaintag serve: listening on http://" << o.host << ":" << (*server)->port() << "/ ("
            << model_paths.size() << " model(s), " << o.threads << " tagging thread(s))"
            << std::endl;
  if (absl::Status s = (*server)->Run(/*handle_signals=*/true); !s.ok()) return Fail(cmd, s);
  const auto counters = (*server)->counters();
  std::cerr << "chaintag serve: stopped after " << counters.requests << " response(s), "
            << counters.tagged << " tagged request(s)" << std::endl;
  return kExitOk;
}

}  // namespace chaintag::cli
