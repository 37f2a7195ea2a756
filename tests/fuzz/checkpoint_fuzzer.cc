// Fuzzes the checkpoint reader (ReadCheckpoint, train --resume): the raw input as a file, the input
// with its trailing CRC-32C repaired (so mutations reach the header checks), and the input as the
// body behind a valid header and CRC (so they reach the vector and size checks). Every damaged file
// must be refused with a Status; an accepted one must hold kWeights weights and survive a
// write/read round trip unchanged.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>

#include "model/model_file.h"
#include "train/checkpoint.h"

namespace {

namespace ti = chaintag::train_internal;

constexpr std::string_view kMagic = "chaintag checkpoint\n";
constexpr std::string_view kOptions = "objective=crf\nc2=1\nlbfgs_memory=2\n";
constexpr int64_t kWeights = 4;
// What train.cc allows for m = 2: 2m + 4 vectors of kWeights doubles, the options and 1 MiB.
constexpr int64_t kMaxBytes = (2 * 2 + 4) * kWeights * 8 + kOptions.size() + (1 << 20);

ti::DataFingerprint Fingerprint() {
  ti::DataFingerprint d;
  d.sentences = 3;
  d.tokens = 10;
  d.labels = 2;
  d.weights = kWeights;
  d.checksum = 0x5eed;
  return d;
}

const std::string& Path() {
  const char* tmp = std::getenv("TMPDIR");
  static const std::string path =
      std::string(tmp ? tmp : "/tmp") + "/chaintag-checkpoint-fuzz." + std::to_string(getpid());
  return path;
}

template <typename T>
void Put(std::string* out, T v) {
  out->append(reinterpret_cast<const char*>(&v), sizeof(v));
}

void AppendCrc(std::string* bytes) { Put<uint32_t>(bytes, chaintag::model_file::Crc32c(*bytes)); }

void Read(const std::string& bytes) {
  {
    std::ofstream out(Path(), std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  absl::StatusOr<ti::Checkpoint> c =
      ti::ReadCheckpoint(Path(), std::string(kOptions), Fingerprint(), kMaxBytes);
  if (!c.ok()) {
    if (c.status().message().empty()) std::abort();  // refusals say what is wrong
    return;
  }
  const ti::LbfgsState& o = c->optimizer;
  if (o.x.size() != kWeights || o.gradient.size() != kWeights || o.s.size() != o.y.size()) {
    std::abort();
  }
  if (!ti::WriteCheckpoint(Path(), c->options, c->data, c->tracker, o).ok()) std::abort();
  absl::StatusOr<ti::Checkpoint> again =
      ti::ReadCheckpoint(Path(), std::string(kOptions), Fingerprint(), kMaxBytes);
  if (!again.ok() || again->optimizer.s.size() != o.s.size() ||
      again->tracker.iterations != c->tracker.iterations ||
      again->optimizer.past.size() != o.past.size()) {
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  Read(input);
  if (input.size() >= 4) {
    std::string repaired = input.substr(0, input.size() - 4);
    AppendCrc(&repaired);
    Read(repaired);
  }
  std::string wrapped(kMagic);
  Put<uint32_t>(&wrapped, ti::kCheckpointVersion);
  Put<uint64_t>(&wrapped, kOptions.size());
  wrapped.append(kOptions);
  const ti::DataFingerprint d = Fingerprint();
  Put(&wrapped, d.sentences);
  Put(&wrapped, d.tokens);
  Put(&wrapped, d.labels);
  Put(&wrapped, d.weights);
  Put(&wrapped, d.checksum);
  wrapped.append(input);
  AppendCrc(&wrapped);
  Read(wrapped);
  unlink(Path().c_str());
  return 0;
}
