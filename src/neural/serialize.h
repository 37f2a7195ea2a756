// Internal: the neural encoder's model-file section (docs/model-format.md, section 'neural'):
// a version, the configuration, the vocabularies, the dense parameters (float32) and the word
// embeddings (float16). Parsing checks every count against the bytes left before allocating,
// every value's range and finiteness, so a corrupt section is an error, never a crash.
#ifndef CHAINTAG_SRC_NEURAL_SERIALIZE_H_
#define CHAINTAG_SRC_NEURAL_SERIALIZE_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "neural/encoder.h"

namespace chaintag::neural {

inline constexpr uint32_t kEncoderSectionVersion = 1;

// Rounds the word embeddings to float16 and back, as the section stores them (ModelBuilder does
// this before self-tests are recorded, so a loaded model tags as the built one did).
void RoundEmbeddingsToHalf(Encoder<float>* encoder);

std::string SerializeEncoder(const Encoder<float>& encoder);
// `name` prefixes errors ("FILE: section 'neural': ...").
absl::StatusOr<Encoder<float>> ParseEncoder(std::string_view bytes, const std::string& name);

}  // namespace chaintag::neural

#endif  // CHAINTAG_SRC_NEURAL_SERIALIZE_H_
