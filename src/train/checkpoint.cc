#include "train/checkpoint.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "chaintag/corpus.h"
#include "model/model_file.h"

namespace chaintag::train_internal {
namespace {

constexpr std::string_view kMagic = "chaintag checkpoint\n";

class Writer {
 public:
  template <typename T>
  void Put(T v) {
    out_.append(reinterpret_cast<const char*>(&v), sizeof(v));
  }
  void PutString(std::string_view s) {
    Put<uint64_t>(s.size());
    out_.append(s);
  }
  void PutDoubles(const std::vector<double>& v) {
    Put<uint64_t>(v.size());
    out_.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(double));
  }
  std::string& bytes() { return out_; }

 private:
  std::string out_;
};

// Reads what Writer wrote; any read past the end marks the reader failed.
class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  template <typename T>
  T Get() {
    T v{};
    if (in_.size() - at_ < sizeof(T)) {
      ok_ = false;
      return v;
    }
    std::memcpy(&v, in_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return v;
  }
  std::string GetString() {
    const uint64_t n = Get<uint64_t>();
    if (!ok_ || n > in_.size() - at_) {
      ok_ = false;
      return {};
    }
    std::string s(in_.substr(at_, n));
    at_ += n;
    return s;
  }
  std::vector<double> GetDoubles() {
    const uint64_t n = Get<uint64_t>();
    if (!ok_ || n > (in_.size() - at_) / sizeof(double)) {
      ok_ = false;
      return {};
    }
    std::vector<double> v(n);
    if (n > 0) std::memcpy(v.data(), in_.data() + at_, n * sizeof(double));  // no null pointer
    at_ += n * sizeof(double);
    return v;
  }
  bool ok() const { return ok_; }
  bool done() const { return at_ == in_.size(); }

 private:
  std::string_view in_;
  size_t at_ = 0;
  bool ok_ = true;
};

// The first option line that differs, for the message.
std::string FirstDifference(const std::string& saved, const std::string& now) {
  std::vector<absl::string_view> a = absl::StrSplit(saved, '\n');
  std::vector<absl::string_view> b = absl::StrSplit(now, '\n');
  for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    absl::string_view x = i < a.size() ? a[i] : "(none)";
    absl::string_view y = i < b.size() ? b[i] : "(none)";
    if (x != y) return absl::StrCat("saved ", x, ", now ", y);
  }
  return "";
}

}  // namespace

absl::Status WriteCheckpoint(const std::string& path, const std::string& options,
                             const DataFingerprint& data, const TrackerState& t,
                             const LbfgsState& o) {
  Writer w;
  w.bytes().append(kMagic);
  w.Put<uint32_t>(kCheckpointVersion);
  w.PutString(options);
  w.Put(data.sentences);
  w.Put(data.tokens);
  w.Put(data.labels);
  w.Put(data.weights);
  w.Put(data.checksum);
  w.Put<int32_t>(t.iterations);
  w.Put(t.last_objective);
  w.Put<uint8_t>(t.has_best);
  w.Put(t.best_score);
  w.Put<int32_t>(t.best_iteration);
  w.Put(t.best_objective);
  w.Put<int32_t>(t.since_best);
  w.PutString(t.dev_metric);
  w.PutDoubles(t.best_weights);
  w.Put<int32_t>(o.iteration);
  w.Put(o.objective);
  w.PutDoubles(o.x);
  w.PutDoubles(o.gradient);
  w.Put<uint32_t>(o.s.size());
  for (size_t j = 0; j < o.s.size(); ++j) {
    w.PutDoubles(o.s[j]);
    w.PutDoubles(o.y[j]);
  }
  w.PutDoubles(o.past);
  w.Put<uint32_t>(model_file::Crc32c(w.bytes()));
  AtomicOutputFile out;
  if (absl::Status s = out.Open(path); !s.ok()) return s;
  out.stream().write(w.bytes().data(), static_cast<std::streamsize>(w.bytes().size()));
  return out.Commit();
}

absl::StatusOr<Checkpoint> ReadCheckpoint(const std::string& path, const std::string& options,
                                          const DataFingerprint& data, int64_t max_bytes) {
  auto bad = [&](auto&&... what) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", what...));
  };
  struct stat info;
  if (stat(path.c_str(), &info) != 0) {
    return absl::NotFoundError(
        absl::StrCat(path, ": cannot read checkpoint: ", std::strerror(errno)));
  }
  if (!S_ISREG(info.st_mode)) return bad("expected a checkpoint file, found no regular file");
  if (info.st_size > max_bytes) {
    return bad("checkpoint written for other training data or options: ", info.st_size,
               " bytes, more than the state of ", data.weights, " weights takes (", max_bytes, ")");
  }
  std::ifstream in(path, std::ios::binary);
  std::string bytes(static_cast<size_t>(info.st_size), '\0');
  if (!in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()))) {
    return absl::DataLossError(
        absl::StrCat(path, ": cannot read checkpoint (", std::strerror(errno), ")"));
  }
  if (bytes.substr(0, kMagic.size()) != kMagic) {
    return bad("not a chaintag checkpoint (expected the line \"chaintag checkpoint\" first)");
  }
  if (bytes.size() < kMagic.size() + 8)
    return absl::DataLossError(absl::StrCat(path, ": truncated checkpoint"));
  Reader r(std::string_view(bytes).substr(kMagic.size()));
  const uint32_t version = r.Get<uint32_t>();
  if (version != kCheckpointVersion) {
    return bad("checkpoint version ", version, "; this chaintag reads version ",
               kCheckpointVersion);
  }
  uint32_t stored_crc;
  std::memcpy(&stored_crc, bytes.data() + bytes.size() - 4, 4);
  if (model_file::Crc32c(std::string_view(bytes).substr(0, bytes.size() - 4)) != stored_crc) {
    return absl::DataLossError(
        absl::StrCat(path, ": checkpoint checksum mismatch (the file is damaged or truncated)"));
  }
  Reader body(std::string_view(bytes).substr(kMagic.size() + 4, bytes.size() - kMagic.size() - 8));
  Checkpoint c;
  c.options = body.GetString();
  c.data.sentences = body.Get<int64_t>();
  c.data.tokens = body.Get<int64_t>();
  c.data.labels = body.Get<int64_t>();
  c.data.weights = body.Get<int64_t>();
  c.data.checksum = body.Get<uint32_t>();
  if (!body.ok()) return bad("truncated checkpoint header");
  if (c.options != options) {
    return bad("checkpoint written with other training options (",
               FirstDifference(c.options, options), "); resume with the options it was saved with");
  }
  if (!(c.data == data)) {
    return bad("checkpoint written for other training data (saved: ", c.data.sentences,
               " sentences, ", c.data.tokens, " tokens, ", c.data.labels, " labels, ",
               c.data.weights, " weights, checksum ", c.data.checksum, "; now: ", data.sentences,
               " sentences, ", data.tokens, " tokens, ", data.labels, " labels, ", data.weights,
               " weights, checksum ", data.checksum, ")");
  }
  TrackerState& t = c.tracker;
  t.iterations = body.Get<int32_t>();
  t.last_objective = body.Get<double>();
  t.has_best = body.Get<uint8_t>() != 0;
  t.best_score = body.Get<double>();
  t.best_iteration = body.Get<int32_t>();
  t.best_objective = body.Get<double>();
  t.since_best = body.Get<int32_t>();
  t.dev_metric = body.GetString();
  t.best_weights = body.GetDoubles();
  LbfgsState& o = c.optimizer;
  o.iteration = body.Get<int32_t>();
  o.objective = body.Get<double>();
  o.x = body.GetDoubles();
  o.gradient = body.GetDoubles();
  const uint32_t pairs = body.Get<uint32_t>();
  for (uint32_t j = 0; body.ok() && j < pairs; ++j) {
    o.s.push_back(body.GetDoubles());
    o.y.push_back(body.GetDoubles());
  }
  o.past = body.GetDoubles();
  if (!body.ok() || !body.done()) return bad("malformed checkpoint body");
  const size_t n = static_cast<size_t>(data.weights);
  bool sizes_ok = o.x.size() == n && o.gradient.size() == n && o.iteration >= 0 &&
                  t.iterations == o.iteration &&
                  (t.has_best ? t.best_weights.size() == n : t.best_weights.empty());
  for (size_t j = 0; sizes_ok && j < o.s.size(); ++j) {
    sizes_ok = o.s[j].size() == n && o.y[j].size() == n;
  }
  if (!sizes_ok) return bad("malformed checkpoint: its vectors do not hold ", n, " weights");
  return c;
}

}  // namespace chaintag::train_internal
