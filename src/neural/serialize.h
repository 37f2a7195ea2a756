// Internal: the neural encoder's model-file section (docs/model-format.md, section 'neural'):
// a version, the configuration, the vocabularies, the dense parameters (float32) and the word
// embeddings (version 1: float16; version 2: int8 with one float32 scale per word; versions 3 and
// 4: the same with the character encoder after the configuration). Parsing checks
// every count against the bytes left before allocating, every value's range and finiteness, so a
// corrupt section is an error, never a crash.
#ifndef CHAINTAG_SRC_NEURAL_SERIALIZE_H_
#define CHAINTAG_SRC_NEURAL_SERIALIZE_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "neural/encoder.h"

namespace chaintag::neural {

// Version 1 stores float16 embeddings, version 2 int8 ones; both are read. An encoder whose
// embedding_scales() are set is written as version 2, otherwise as version 1 (so a loaded
// version-1 model saves to the same bytes).
inline constexpr uint32_t kEncoderSectionHalf = 1;
inline constexpr uint32_t kEncoderSectionInt8 = 2;
// Versions 1 and 2 plus one uint32 after max_word_chars, the character encoder (CharEncoder);
// written only for a character BiLSTM, so models with the CNN keep their bytes.
inline constexpr uint32_t kEncoderSectionHalfChars = 3;
inline constexpr uint32_t kEncoderSectionInt8Chars = 4;

// Rounds each word's embedding to int8 with its own scale (max |value| / 127) and back, as
// version 2 stores them, and records the scales (ModelBuilder does this before self-tests are
// recorded, so a loaded model tags as the built one did).
void QuantizeEmbeddings(Encoder<float>* encoder);

std::string SerializeEncoder(const Encoder<float>& encoder);
// `name` prefixes errors ("FILE: section 'neural': ...").
absl::StatusOr<Encoder<float>> ParseEncoder(std::string_view bytes, const std::string& name);

}  // namespace chaintag::neural

#endif  // CHAINTAG_SRC_NEURAL_SERIALIZE_H_
