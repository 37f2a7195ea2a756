#include "model/model_file.h"

#include <sys/stat.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "chaintag/model.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/compression.h"
#include "support/model_sections.h"
#include "support/tiny_model.h"
#include "train/model_builder.h"

namespace chaintag {
namespace {

namespace mf = model_file;
using testing_model::BuildTinyModel;
using testing_model::Built;
using testing_model::ReplaceSection;
using testing_model::TinyCorpus;
using testing_model::TinyModelBuilder;

Model SmallModelWithSelfTests(uint32_t seed = 7) {
  ModelBuilder builder = TinyModelBuilder(seed);
  std::vector<Sentence> corpus = TinyCorpus();
  corpus.resize(2);  // keep the file tiny: every truncation is parsed
  builder.SetSelfTestSentences(corpus);
  return Built(std::move(builder));
}

const mf::SectionEntry& Section(const std::vector<mf::SectionEntry>& table, uint32_t id) {
  for (const mf::SectionEntry& e : table) {
    if (e.id == id) return e;
  }
  ADD_FAILURE() << "no section " << id;
  return table[0];
}

void PutU32(std::string* bytes, size_t pos, uint32_t v) {
  for (int i = 0; i < 4; ++i) (*bytes)[pos + i] = static_cast<char>((v >> (8 * i)) & 0xFF);
}

bool Contains(const absl::Status& status, const std::string& text) {
  return std::string(status.message()).find(text) != std::string::npos;
}

// The hardware CRC (where the CPU has SSE4.2) equals the table-driven one at every length and
// alignment.
TEST(Crc32cTest, HardwareEqualsPortable) {
  std::mt19937 rng(3);
  std::string buffer(4096, '\0');
  for (char& c : buffer) c = static_cast<char>(rng());
  for (size_t offset : {0, 1, 3, 7}) {
    for (size_t length = 0; length < 300; ++length) {
      const std::string_view data(buffer.data() + offset, length);
      EXPECT_EQ(mf::Crc32cForTesting(data, false), mf::Crc32cForTesting(data, true))
          << offset << " " << length;
    }
  }
  EXPECT_EQ(mf::Crc32cForTesting(buffer, false), mf::Crc32cForTesting(buffer, true));
}

TEST(Crc32cTest, KnownVector) {
  // The check value of CRC-32C (RFC 3720 B.4 / the CRC catalogue).
  EXPECT_EQ(mf::Crc32c("123456789"), 0xE3069283u);
  EXPECT_EQ(mf::Crc32c(""), 0u);
}

TEST(ModelFileTest, RoundTripIsIdentical) {
  const Model model = SmallModelWithSelfTests();
  const std::string bytes = model.ToBytes();
  absl::StatusOr<Model> loaded = Model::FromBytes(bytes, "mem");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->labels(), model.labels());
  EXPECT_EQ(loaded->spec().text(), model.spec().text());
  EXPECT_EQ(loaded->metadata(), model.metadata());
  EXPECT_EQ(loaded->transition_mask().allowed, model.transition_mask().allowed);
  EXPECT_EQ(loaded->transition_mask().allowed_start, model.transition_mask().allowed_start);
  EXPECT_EQ(loaded->transition_mask().allowed_end, model.transition_mask().allowed_end);
  ASSERT_EQ(loaded->self_tests().size(), model.self_tests().size());
  for (size_t k = 0; k < model.self_tests().size(); ++k) {
    EXPECT_EQ(loaded->self_tests()[k].sentence.columns, model.self_tests()[k].sentence.columns);
    EXPECT_EQ(loaded->self_tests()[k].expected, model.self_tests()[k].expected);
  }
  // Weights are identical (the model rounded them to float32 already); attributes without
  // features were dropped, so compare per attribute name.
  const ModelParameters a = model.Parameters();
  const ModelParameters b = loaded->Parameters();
  EXPECT_EQ(b.num_state_features(), a.num_state_features());
  EXPECT_LT(b.num_attributes(), a.num_attributes());
  EXPECT_TRUE(std::equal(a.weights.begin() + a.transition_offset(), a.weights.end(),
                         b.weights.begin() + b.transition_offset(), b.weights.end()));
  for (int attr = 0; attr < a.num_attributes(); ++attr) {
    const int other = loaded->attributes().Find(model.attributes().name(attr));
    if (a.attribute_offsets[attr] == a.attribute_offsets[attr + 1]) {
      EXPECT_EQ(other, -1);
      continue;
    }
    ASSERT_GE(other, 0);
    ASSERT_EQ(b.attribute_offsets[other + 1] - b.attribute_offsets[other],
              a.attribute_offsets[attr + 1] - a.attribute_offsets[attr]);
    for (int i = 0; i < a.attribute_offsets[attr + 1] - a.attribute_offsets[attr]; ++i) {
      EXPECT_EQ(b.feature_labels[b.attribute_offsets[other] + i],
                a.feature_labels[a.attribute_offsets[attr] + i]);
      EXPECT_EQ(b.weights[b.attribute_offsets[other] + i],
                a.weights[a.attribute_offsets[attr] + i]);
    }
  }
  // Identical labels and scores on sentences.
  Tagger t1(model), t2(*loaded);
  for (const Sentence& s : TinyCorpus()) {
    absl::StatusOr<Labeling> x = t1.Tag(s), y = t2.Tag(s);
    ASSERT_TRUE(x.ok() && y.ok());
    EXPECT_EQ(x->labels, y->labels);
    EXPECT_EQ(x->score, y->score);
  }
  // Saving the loaded model gives the same bytes.
  EXPECT_EQ(loaded->ToBytes(), bytes);
}

TEST(ModelFileTest, SaveAndLoadThroughFile) {
  const Model model = SmallModelWithSelfTests();
  const std::string path = ::testing::TempDir() + "/chaintag_model_file_test.model";
  ASSERT_TRUE(model.Save(path).ok());
  absl::StatusOr<Model> loaded = Model::Load(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->ToBytes(), model.ToBytes());
  // No temporary files left beside it.
  for (const auto& entry : std::filesystem::directory_iterator(::testing::TempDir())) {
    EXPECT_EQ(entry.path().filename().string().find("chaintag_model_file_test.model.tmp"),
              std::string::npos);
  }
  std::remove(path.c_str());
}

TEST(ModelFileTest, LoadMissingFileNamesIt) {
  absl::StatusOr<Model> loaded = Model::Load("/nonexistent/dir/x.model");
  ASSERT_FALSE(loaded.ok());
  EXPECT_TRUE(Contains(loaded.status(), "/nonexistent/dir/x.model")) << loaded.status();
}

// LoadAll gives the models Load gives, in `paths` order, and the error of the first failing file.
TEST(ModelFileTest, LoadAllEqualsLoadingEachInTurn) {
  const std::string dir = ::testing::TempDir();
  const std::string a = dir + "/chaintag_load_all_a.model", b = dir + "/chaintag_load_all_b.model";
  const std::string corrupt = dir + "/chaintag_load_all_corrupt.model";
  const std::string missing = dir + "/chaintag_load_all_missing.model";
  ASSERT_TRUE(SmallModelWithSelfTests(7).Save(a).ok());
  ASSERT_TRUE(SmallModelWithSelfTests(11).Save(b).ok());
  std::string bytes = SmallModelWithSelfTests(7).ToBytes();
  bytes[bytes.size() / 2] ^= 0x40;
  std::ofstream(corrupt, std::ios::binary) << bytes;
  std::remove(missing.c_str());

  absl::StatusOr<std::vector<Model>> all = Model::LoadAll({a, b, a, b, b});
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), 5u);
  const std::vector<std::string> order = {a, b, a, b, b};
  for (size_t i = 0; i < order.size(); ++i) {
    absl::StatusOr<Model> one = Model::Load(order[i]);
    ASSERT_TRUE(one.ok()) << one.status();
    EXPECT_EQ((*all)[i].ToBytes(), one->ToBytes()) << i;
  }
  EXPECT_NE((*all)[0].ToBytes(), (*all)[1].ToBytes());

  absl::StatusOr<std::vector<Model>> none = Model::LoadAll({});
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_TRUE(none->empty());
  for (int round = 0; round < 3; ++round) {  // whichever thread fails first
    absl::StatusOr<std::vector<Model>> bad = Model::LoadAll({a, missing, corrupt, b});
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.status(), Model::Load(missing).status());
    bad = Model::LoadAll({a, b, corrupt, missing});
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.status(), Model::Load(corrupt).status());
  }
  for (const std::string& path : {a, b, corrupt}) std::remove(path.c_str());
}

TEST(ModelFileTest, SaveIntoMissingDirectoryFails) {
  const Model model = SmallModelWithSelfTests();
  EXPECT_FALSE(model.Save("/nonexistent/dir/x.model").ok());
}

TEST(ModelFileTest, EveryTruncationIsRejected) {
  const std::string bytes = SmallModelWithSelfTests().ToBytes();
  ASSERT_LT(bytes.size(), 20000u) << "keep the test model tiny";
  for (size_t len = 0; len < bytes.size(); ++len) {
    // A fresh copy so ASan sees reads past the prefix.
    const std::string prefix = bytes.substr(0, len);
    absl::StatusOr<Model> loaded = Model::FromBytes(prefix, "cut.model");
    ASSERT_FALSE(loaded.ok()) << "prefix of " << len << " bytes accepted";
    EXPECT_TRUE(Contains(loaded.status(), "cut.model")) << loaded.status();
  }
}

TEST(ModelFileTest, EveryFlippedByteIsRejected) {
  const std::string bytes = SmallModelWithSelfTests().ToBytes();
  absl::StatusOr<std::vector<mf::SectionEntry>> table = mf::ReadSectionTable(bytes, "x");
  ASSERT_TRUE(table.ok()) << table.status();
  for (size_t pos = 0; pos < bytes.size(); ++pos) {
    std::string corrupt = bytes;
    corrupt[pos] = static_cast<char>(corrupt[pos] ^ 0x10);
    absl::StatusOr<Model> loaded = Model::FromBytes(corrupt, "flip.model");
    ASSERT_FALSE(loaded.ok()) << "flip at byte " << pos << " accepted";
    for (const mf::SectionEntry& e : *table) {
      if (pos >= e.offset && pos < e.offset + e.length) {
        // A flip inside a section is caught by that section's checksum.
        EXPECT_TRUE(Contains(loaded.status(), "checksum")) << pos << ": " << loaded.status();
        EXPECT_TRUE(Contains(loaded.status(), mf::SectionName(e.id))) << loaded.status();
      }
    }
  }
}

TEST(ModelFileTest, ForeignFilesHaveBadMagic) {
  for (const std::string& text :
       {std::string("The DT B-NP\ncat NN I-NP\n"), std::string("lCRF\x10\x00\x00\x00FOMC", 12),
        std::string("CHAINTAX and more bytes here")}) {
    absl::StatusOr<Model> loaded = Model::FromBytes(text, "foreign.txt");
    ASSERT_FALSE(loaded.ok());
    EXPECT_TRUE(Contains(loaded.status(), "not a chaintag model (bad magic)")) << loaded.status();
    EXPECT_TRUE(Contains(loaded.status(), "foreign.txt")) << loaded.status();
  }
}

// Versions 2-4 (before the in-place layout) are refused with a request to retrain.
TEST(ModelFileTest, VersionsBeforeTheInPlaceLayoutAskForRetraining) {
  for (uint32_t version : {2u, 3u, 4u}) {
    std::string bytes = SmallModelWithSelfTests().ToBytes();
    PutU32(&bytes, 8, version);
    ASSERT_TRUE(mf::RecomputeChecksums(&bytes).ok());
    absl::StatusOr<Model> loaded = Model::FromBytes(bytes, "old.model");
    ASSERT_FALSE(loaded.ok());
    EXPECT_EQ(loaded.status().message(),
              absl::StrCat("old.model: made by an older chaintag (model format ", version,
                           "); retrain it with tools/train-models.sh"));
  }
}

// Sections lie where the previous one ends rounded up to 64 bytes, and the padding is zero.
TEST(ModelFileTest, SectionsAreAlignedAndPaddingIsChecked) {
  const std::string bytes = SmallModelWithSelfTests().ToBytes();
  absl::StatusOr<std::vector<mf::SectionEntry>> table = mf::ReadSectionTable(bytes, "x");
  ASSERT_TRUE(table.ok()) << table.status();
  uint64_t end = mf::HeaderAndTableBytes(bytes);
  for (const mf::SectionEntry& e : *table) {
    EXPECT_EQ(e.offset % mf::kSectionAlignment, 0u);
    EXPECT_EQ(e.offset, mf::AlignedOffset(end));
    end = e.offset + e.length;
  }
  // A nonzero padding byte, with every checksum valid, is refused.
  const mf::SectionEntry& params = Section(*table, mf::kParameters);
  size_t gap = 0;  // the first padding byte after some section but the last
  for (size_t i = 0; i + 1 < table->size(); ++i) {
    const mf::SectionEntry& e = (*table)[i];
    if (e.offset + e.length < (*table)[i + 1].offset) gap = e.offset + e.length;
  }
  ASSERT_GT(gap, 0u);
  std::string corrupt = bytes;
  corrupt[gap] = 1;
  absl::StatusOr<Model> loaded = Model::FromBytes(corrupt, "pad.model");
  ASSERT_FALSE(loaded.ok());
  EXPECT_TRUE(Contains(loaded.status(), "zero padding")) << loaded.status();
  // A section moved by 8 bytes is refused with the table, before any section is read.
  corrupt = bytes;
  for (size_t i = 0; i < table->size(); ++i) {
    if ((*table)[i].id != mf::kParameters) continue;
    const size_t entry = mf::kFixedHeaderBytes + i * mf::kSectionEntryBytes;
    for (int k = 0; k < 8; ++k) {
      corrupt[entry + 8 + k] = static_cast<char>(((params.offset + 8) >> (8 * k)) & 0xFF);
    }
  }
  ASSERT_TRUE(mf::RecomputeChecksums(&corrupt).ok());
  loaded = Model::FromBytes(corrupt, "moved.model");
  ASSERT_FALSE(loaded.ok());
  EXPECT_TRUE(Contains(loaded.status(), "rounded up to a multiple of 64")) << loaded.status();
}

// The attributes section is the dictionary's table: hostile tables with valid checksums are
// refused with a message (never a crash or an endless probe).
TEST(ModelFileTest, CorruptDictionaryTablesRejected) {
  const std::string bytes = SmallModelWithSelfTests().ToBytes();
  absl::StatusOr<std::vector<mf::SectionEntry>> table = mf::ReadSectionTable(bytes, "x");
  ASSERT_TRUE(table.ok()) << table.status();
  const mf::SectionEntry& attrs = Section(*table, mf::kAttributes);
  const std::string section = bytes.substr(attrs.offset, attrs.length);
  auto u64 = [&](size_t pos) {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i)
      v |= uint64_t{static_cast<unsigned char>(section[pos + i])} << (8 * i);
    return v;
  };
  auto put64 = [](std::string* s, size_t pos, uint64_t v) {
    for (int i = 0; i < 8; ++i) (*s)[pos + i] = static_cast<char>((v >> (8 * i)) & 0xFF);
  };
  const uint64_t count = u64(0), capacity = u64(8), arena_bytes = u64(16);
  ASSERT_GE(count, 3u);
  ASSERT_EQ(24 + 8 * capacity + arena_bytes, section.size());
  const size_t slots = 24, arena = slots + 8 * capacity;
  // Arena offsets of the first three entries (they follow one another in id order).
  auto length_at = [&](size_t offset) {
    return static_cast<size_t>(static_cast<unsigned char>(section[arena + offset + 4]));
  };
  const size_t e0 = 1, e1 = e0 + 8 + length_at(e0), e2 = e1 + 8 + length_at(e1);
  size_t occupied = slots, empty = slots;
  for (size_t i = 0; i < capacity; ++i) {
    if (u64(slots + 8 * i) != 0) occupied = slots + 8 * i;
    if (u64(slots + 8 * i) == 0) empty = slots + 8 * i;
  }
  struct Case {
    const char* what;
    std::string content;
    const char* message;
  };
  std::vector<Case> cases;
  auto with = [&](const char* what, size_t pos, uint64_t v, const char* message) {
    std::string s = section;
    put64(&s, pos, v);
    cases.push_back({what, s, message});
  };
  with("capacity not a power of two", 8, capacity + 1, "need other than");
  with("count above half the capacity", 0, capacity, "twice the");
  with("slot pointing past the arena", occupied, (u64(occupied) >> 40 << 40) | (arena_bytes + 5),
       "holds no entry");
  with("slot pointing inside a name", occupied, u64(occupied) + 9, "holds no entry");
  with("slot cleared", occupied, 0, "occupied slots");
  with("extra slot", empty, u64(occupied), "occupied slots");
  {
    std::string s = section;
    s[arena + e0 + 4] = static_cast<char>(s[arena + e0 + 4] + 1);  // name 1 one byte longer
    cases.push_back({"entry length", s, "does not hold its id"});
  }
  {
    std::string s = section;
    s[arena] = 1;  // the reserved byte at offset 0
    cases.push_back({"reserved arena byte", s, "starts with a zero byte"});
  }
  {
    // Entry 1 holds id 0 (ids in order).
    std::string s = section;
    s[arena + e1] = 0;
    cases.push_back({"entry holds another id", s, "does not hold its id"});
  }
  {
    // Name 2 made equal to name 1 where they have the same length: a duplicate, found at id 1;
    // otherwise a name whose slot no longer matches: not found at its id.
    std::string s = section;
    const size_t n1 = length_at(e1), n2 = length_at(e2);
    if (n1 == n2) {
      s.replace(arena + e2 + 8, n2, section.substr(arena + e1 + 8, n1));
      cases.push_back({"duplicate name", s, "appears twice in the dictionary"});
    } else {
      s[arena + e2 + 8] = static_cast<char>(s[arena + e2 + 8] == 'x' ? 'y' : 'x');
      cases.push_back({"renamed entry", s, "is not found at its id"});
    }
  }
  {
    std::string s = section;
    s[arena + e0 + 8] = '\x01';
    cases.push_back({"control character in a name", s, "attribute 1"});
  }
  for (const Case& c : cases) {
    absl::StatusOr<Model> loaded =
        Model::FromBytes(ReplaceSection(bytes, mf::kAttributes, c.content), "dict.model");
    ASSERT_FALSE(loaded.ok()) << c.what;
    EXPECT_TRUE(Contains(loaded.status(), c.message)) << c.what << ": " << loaded.status();
    EXPECT_TRUE(Contains(loaded.status(), "dict.model")) << c.what << ": " << loaded.status();
  }
  // The unchanged section through the same helper loads.
  EXPECT_TRUE(Model::FromBytes(ReplaceSection(bytes, mf::kAttributes, section), "same.model").ok());
}

// The stored table is the dictionary's: every stored name is found at its id after loading, and
// the hash is stable (model files depend on it).
TEST(ModelFileTest, StoredDictionaryFindsEveryName) {
  const Model model = SmallModelWithSelfTests();
  absl::StatusOr<Model> loaded = Model::FromBytes(model.ToBytes(), "mem");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  for (int a = 0; a < loaded->attributes().size(); ++a) {
    EXPECT_EQ(loaded->attributes().Find(loaded->attributes().name_view(a)), a);
  }
  EXPECT_EQ(loaded->attributes().Find("no such attribute"), -1);
  // Values also computed by tools/upgrade-model.py's independent implementation.
  EXPECT_EQ(AttributeDictionary::Hash(""), 0x5a2dc9e0481681c7u);
  EXPECT_EQ(AttributeDictionary::Hash("U00:the"), 0x1a5cd10434b5627bu);
  EXPECT_EQ(AttributeDictionary::Hash("U02:a longer attribute of 34 bytes"), 0x732d9568e3489e23u);
}

TEST(ModelFileTest, FutureVersionIsAClearError) {
  std::string bytes = SmallModelWithSelfTests().ToBytes();
  PutU32(&bytes, 8, mf::kMaxFormatVersion + 1);
  ASSERT_TRUE(mf::RecomputeChecksums(&bytes).ok());
  absl::StatusOr<Model> loaded = Model::FromBytes(bytes, "future.model");
  ASSERT_FALSE(loaded.ok());
  EXPECT_TRUE(Contains(loaded.status(), "version")) << loaded.status();
  EXPECT_TRUE(Contains(loaded.status(), "newer")) << loaded.status();
}

// Format 1 files (before the input-options section) are refused with a request to retrain,
// plain or gzip-compressed, before any section is read.
TEST(ModelFileTest, OlderFormatAsksForRetraining) {
  std::string bytes = SmallModelWithSelfTests().ToBytes();
  ASSERT_EQ(mf::kFormatVersion, 5u);
  PutU32(&bytes, 8, 1);
  ASSERT_TRUE(mf::RecomputeChecksums(&bytes).ok());
  const std::string expected =
      "old.model: made by an older chaintag (model format 1); retrain it with "
      "tools/train-models.sh";
  absl::StatusOr<Model> loaded = Model::FromBytes(bytes, "old.model");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().message(), expected);
  absl::StatusOr<Model> gz = Model::FromBytes(mf::Gzip(bytes), "old.model");
  ASSERT_FALSE(gz.ok());
  EXPECT_EQ(gz.status().message(), expected);
  const std::string path = ::testing::TempDir() + "/chaintag_old_format.model";
  std::ofstream(path, std::ios::binary) << bytes;
  absl::StatusOr<Model> from_file = Model::Load(path);
  ASSERT_FALSE(from_file.ok());
  EXPECT_EQ(from_file.status().message(),
            absl::StrCat(path,
                         ": made by an older chaintag (model format 1); retrain it with "
                         "tools/train-models.sh"));
  std::remove(path.c_str());
}

TEST(ModelFileTest, InputOptionsRoundTrip) {
  ModelInputOptions input;
  input.format = CorpusFormat::kConllu;
  input.label_column = 3;
  input.conllu_label = "upos";
  input.np_chunks = true;
  ModelBuilder builder = TinyModelBuilder();
  builder.SetInputOptions(input);
  const Model model = Built(std::move(builder));
  EXPECT_EQ(model.input_options(), input);
  absl::StatusOr<Model> loaded = Model::FromBytes(model.ToBytes(), "mem");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->input_options(), input);
  EXPECT_EQ(loaded->input_options().format, CorpusFormat::kConllu);
  // ApplyTo sets the four fields and nothing else; InputOptionsOf reads them back.
  ReaderOptions reader;
  reader.tagged_separator = '/';
  loaded->input_options().ApplyTo(&reader);
  EXPECT_EQ(reader.format, CorpusFormat::kConllu);
  EXPECT_EQ(reader.label_column, 3);
  EXPECT_EQ(reader.conllu_label, "upos");
  EXPECT_TRUE(reader.np_chunks);
  EXPECT_EQ(reader.tagged_separator, '/');
  EXPECT_EQ(InputOptionsOf(reader), input);
  // A default model reads CoNLL with the label in the last column.
  EXPECT_EQ(BuildTinyModel().input_options(), ModelInputOptions());
}

TEST(ModelFileTest, BadInputOptionsRefused) {
  ModelInputOptions input;
  input.conllu_label = "lemma";
  ModelBuilder builder = TinyModelBuilder();
  builder.SetInputOptions(input);
  absl::StatusOr<Model> loaded = Model::FromBytes(Built(std::move(builder)).ToBytes(), "i.model");
  ASSERT_FALSE(loaded.ok());
  EXPECT_TRUE(Contains(loaded.status(),
                       "expected the CoNLL-U label field upos or xpos, found "
                       "'lemma'"))
      << loaded.status();
}

// Offset of the start weights inside the parameters section.
size_t StartWeightsOffset(const Model& model, const std::string& bytes) {
  // The file drops attributes without features, so count from the loaded (compacted) model.
  absl::StatusOr<Model> loaded = Model::FromBytes(bytes, "x");
  EXPECT_TRUE(loaded.ok());
  const ModelParameters p = loaded->Parameters();
  const int n = model.num_labels();
  absl::StatusOr<std::vector<mf::SectionEntry>> table = mf::ReadSectionTable(bytes, "x");
  const mf::SectionEntry& e = Section(*table, mf::kParameters);
  const size_t pad = p.num_attributes() % 2 == 0 ? 4 : 0;
  return e.offset + 16 + 4 * (p.num_attributes() + 1) + pad + 8 * p.num_state_features() +
         4 * n * n;
}

TEST(ModelFileTest, SelfTestDetectsDrift) {
  const Model model = SmallModelWithSelfTests();
  std::string bytes = model.ToBytes();
  // Make every sentence start with a label different from the expected one.
  const int expected0 = model.LabelId(model.self_tests()[0].expected[0]);
  const int other = expected0 == 0 ? 2 : 0;
  PutU32(&bytes, StartWeightsOffset(model, bytes) + 4 * other, std::bit_cast<uint32_t>(1e6f));
  ASSERT_TRUE(mf::RecomputeChecksums(&bytes).ok());
  absl::StatusOr<Model> loaded = Model::FromBytes(bytes, "drift.model");
  ASSERT_FALSE(loaded.ok());
  EXPECT_TRUE(Contains(loaded.status(), "drifted")) << loaded.status();
  EXPECT_TRUE(Contains(loaded.status(), "self-test")) << loaded.status();
}

TEST(ModelFileTest, NonFiniteWeightRejected) {
  const Model model = SmallModelWithSelfTests();
  for (float bad :
       {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
    std::string bytes = model.ToBytes();
    PutU32(&bytes, StartWeightsOffset(model, bytes), std::bit_cast<uint32_t>(bad));
    ASSERT_TRUE(mf::RecomputeChecksums(&bytes).ok());
    absl::StatusOr<Model> loaded = Model::FromBytes(bytes, "nan.model");
    ASSERT_FALSE(loaded.ok());
    EXPECT_TRUE(Contains(loaded.status(), "finite")) << loaded.status();
  }
}

TEST(ModelFileTest, StructuralErrorsWithValidChecksumsRejected) {
  const Model model = SmallModelWithSelfTests();
  const std::string bytes = model.ToBytes();
  absl::StatusOr<std::vector<mf::SectionEntry>> table = mf::ReadSectionTable(bytes, "x");
  ASSERT_TRUE(table.ok());
  absl::StatusOr<Model> compact = Model::FromBytes(bytes, "x");
  ASSERT_TRUE(compact.ok());
  const mf::SectionEntry& params = Section(*table, mf::kParameters);
  const int num_attr = compact->Parameters().num_attributes();
  const size_t offsets_at = params.offset + 16;
  // The (label, weight) entries start at a multiple of 8 after the offsets.
  const size_t labels_at = offsets_at + 4 * (num_attr + 1) + (num_attr % 2 == 0 ? 4 : 0);
  struct Case {
    const char* what;
    size_t pos;
    uint32_t value;
    const char* message;
  };
  const std::vector<Case> cases = {
      {"feature label out of range", labels_at, 3, "label id"},
      {"negative feature label", labels_at, 0xFFFFFFFFu, "label id"},
      {"offsets decrease", offsets_at + 4, 1u << 20, "offsets"},
      {"first offset not zero", offsets_at, 1, "offsets"},
      {"label count mismatch", params.offset, 4, "labels"},
      {"attribute count mismatch", params.offset + 4, static_cast<uint32_t>(num_attr + 1),
       "attributes"},
      {"huge label count", Section(*table, mf::kLabels).offset, 0x7FFFFFFF, "count"},
      {"huge self-test count", Section(*table, mf::kSelfTests).offset, 0x7FFFFFFF, "count"},
      {"huge self-test length", Section(*table, mf::kSelfTests).offset + 4, 0xFFFFFFFFu,
       "does not fit"},
      {"huge self-test width", Section(*table, mf::kSelfTests).offset + 8, 0xFFFFFFFFu,
       "does not fit"},
      {"huge metadata count", Section(*table, mf::kMetadata).offset, 0xFFFFFFFFu, "count"},
      {"huge attribute count", Section(*table, mf::kAttributes).offset, 0xFFFFFFFFu,
       "twice the 4294967295 attributes"},
  };
  for (const Case& c : cases) {
    std::string corrupt = bytes;
    PutU32(&corrupt, c.pos, c.value);
    ASSERT_TRUE(mf::RecomputeChecksums(&corrupt).ok());
    absl::StatusOr<Model> loaded = Model::FromBytes(corrupt, "bad.model");
    ASSERT_FALSE(loaded.ok()) << c.what;
    EXPECT_TRUE(Contains(loaded.status(), c.message)) << c.what << ": " << loaded.status();
  }
}

TEST(ModelFileTest, DuplicateLabelRejected) {
  const Model model = SmallModelWithSelfTests();
  std::string bytes = model.ToBytes();
  absl::StatusOr<std::vector<mf::SectionEntry>> table = mf::ReadSectionTable(bytes, "x");
  // Labels are "B-NP", "I-NP", "O": turn the 'I' of I-NP into 'B'.
  const mf::SectionEntry& labels = Section(*table, mf::kLabels);
  const size_t pos = bytes.find("I-NP", labels.offset);
  ASSERT_LT(pos, labels.offset + labels.length);
  bytes[pos] = 'B';
  ASSERT_TRUE(mf::RecomputeChecksums(&bytes).ok());
  absl::StatusOr<Model> loaded = Model::FromBytes(bytes, "dup.model");
  ASSERT_FALSE(loaded.ok());
  EXPECT_TRUE(Contains(loaded.status(), "appears twice")) << loaded.status();
}

TEST(ModelFileTest, BrokenTemplateRejected) {
  const Model model = SmallModelWithSelfTests();
  std::string bytes = model.ToBytes();
  absl::StatusOr<std::vector<mf::SectionEntry>> table = mf::ReadSectionTable(bytes, "x");
  const mf::SectionEntry& templates = Section(*table, mf::kTemplates);
  // Template names must be unique: rename U01 to U00.
  const size_t pos = bytes.find("U01:", templates.offset);
  ASSERT_LT(pos, templates.offset + templates.length);
  bytes[pos + 2] = '0';
  ASSERT_TRUE(mf::RecomputeChecksums(&bytes).ok());
  absl::StatusOr<Model> loaded = Model::FromBytes(bytes, "tmpl.model");
  ASSERT_FALSE(loaded.ok());
  EXPECT_TRUE(Contains(loaded.status(), "templates")) << loaded.status();
}

// A checksum-valid model whose templates nest 100,000 calls deep is refused with a message, not
// a stack overflow (issue 27 item 3); 32 levels still load.
TEST(ModelFileTest, DeeplyNestedTemplatesSectionRefused) {
  const Model model = SmallModelWithSelfTests();
  const std::string bytes = model.ToBytes();
  auto nested = [](int depth) {
    std::string text = "U00:";
    for (int i = 0; i < depth; ++i) text += "lower(";
    text += "%x[0,0]";
    text.append(depth, ')');
    return text + "\nB\n";
  };
  absl::StatusOr<Model> deep =
      Model::FromBytes(ReplaceSection(bytes, mf::kTemplates, nested(100000)), "deep.model");
  ASSERT_FALSE(deep.ok());
  EXPECT_TRUE(Contains(deep.status(),
                       "deep.model: stored templates do not parse: template line 1: "
                       "expected function calls nested at most 32 deep"))
      << deep.status();
  EXPECT_FALSE(
      Model::FromBytes(ReplaceSection(bytes, mf::kTemplates, nested(33)), "deep.model").ok());
  // The image rebuilt around an unchanged section still loads (the helper itself is sound); a
  // spec nested 32 deep parses.
  EXPECT_TRUE(
      Model::FromBytes(ReplaceSection(bytes, mf::kTemplates, std::string(model.spec().text())),
                       "same.model")
          .ok());
  EXPECT_TRUE(FeatureSpec::Parse(nested(32)).ok());
}

std::shared_ptr<const Lexicon> TinyLexicon() {
  absl::StatusOr<Lexicon> lexicon =
      Lexicon::Parse("cat\tNN VB\ndog\tNN\nbarked\tVBD\n", "tiny.lex");
  EXPECT_TRUE(lexicon.ok()) << lexicon.status();
  return std::make_shared<const Lexicon>(*lexicon);
}

Model SmallLexiconModel() {
  ModelBuilder builder = TinyModelBuilder(7, 0.0, true, TinyLexicon());
  std::vector<Sentence> corpus = TinyCorpus();
  corpus.resize(2);
  builder.SetSelfTestSentences(corpus);
  return Built(std::move(builder));
}

TEST(ModelFileTest, LexiconRoundTripsAndScoresTheSame) {
  const Model model = SmallLexiconModel();
  const std::string bytes = model.ToBytes();
  absl::StatusOr<std::vector<mf::SectionEntry>> table = mf::ReadSectionTable(bytes, "x");
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_EQ(Section(*table, mf::kLexicon).length, model.spec().lexicon()->Serialize().size());
  absl::StatusOr<Model> loaded = Model::FromBytes(bytes, "lex.model");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_NE(loaded->spec().lexicon(), nullptr);
  EXPECT_EQ(loaded->spec().lexicon()->Serialize(), model.spec().lexicon()->Serialize());
  EXPECT_EQ(loaded->spec().lexicon()->Lookup("cat"), "NN|VB");
  EXPECT_EQ(loaded->ToBytes(), bytes);
  // The lexicon's attributes are in the model: lex() reaches the weights.
  int lexicon_attributes = 0;
  for (int a = 0; a < loaded->attributes().size(); ++a) {
    const std::string name = loaded->attributes().name(a);
    lexicon_attributes += name == "U04:NN|VB" || name == "U04:NN" || name == "U04:VBD";
  }
  EXPECT_GT(lexicon_attributes, 0);
  Tagger before(model), after(*loaded);
  for (const Sentence& s : TinyCorpus()) {
    absl::StatusOr<Labeling> a = before.Tag(s);
    absl::StatusOr<Labeling> b = after.Tag(s);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(a->labels, b->labels);
    EXPECT_EQ(a->score, b->score);
  }
}

TEST(ModelFileTest, EveryTruncationOfALexiconModelIsRejected) {
  const std::string bytes = SmallLexiconModel().ToBytes();
  for (size_t len = 0; len < bytes.size(); ++len) {
    absl::StatusOr<Model> loaded = Model::FromBytes(bytes.substr(0, len), "cut.model");
    ASSERT_FALSE(loaded.ok()) << "prefix of " << len << " bytes accepted";
  }
}

TEST(ModelFileTest, LexiconModelWithoutItsLexiconIsRejected) {
  std::string bytes = SmallLexiconModel().ToBytes();
  absl::StatusOr<std::vector<mf::SectionEntry>> table = mf::ReadSectionTable(bytes, "x");
  ASSERT_TRUE(table.ok());
  // Renumber the lexicon section to an id this reader does not know, so it is skipped.
  const size_t count = table->size();
  for (size_t i = 0; i < count; ++i) {
    const size_t pos = mf::kFixedHeaderBytes + i * mf::kSectionEntryBytes;
    if ((*table)[i].id == mf::kLexicon) PutU32(&bytes, pos, 60);
  }
  ASSERT_TRUE(mf::RecomputeChecksums(&bytes).ok());
  absl::StatusOr<Model> loaded = Model::FromBytes(bytes, "nolex.model");
  ASSERT_FALSE(loaded.ok());
  EXPECT_TRUE(Contains(loaded.status(), "lex()")) << loaded.status();
}

TEST(ModelFileTest, BrokenLexiconRejected) {
  std::string bytes = SmallLexiconModel().ToBytes();
  absl::StatusOr<std::vector<mf::SectionEntry>> table = mf::ReadSectionTable(bytes, "x");
  ASSERT_TRUE(table.ok());
  const mf::SectionEntry& lexicon = Section(*table, mf::kLexicon);
  const size_t tab = bytes.find('\t', lexicon.offset);
  ASSERT_LT(tab, lexicon.offset + lexicon.length);
  bytes[tab] = 'x';
  ASSERT_TRUE(mf::RecomputeChecksums(&bytes).ok());
  absl::StatusOr<Model> loaded = Model::FromBytes(bytes, "badlex.model");
  ASSERT_FALSE(loaded.ok());
  EXPECT_TRUE(Contains(loaded.status(), "lexicon")) << loaded.status();
  EXPECT_TRUE(Contains(loaded.status(), "expected WORD<TAB>CLASS")) << loaded.status();
}

TEST(ModelFileTest, GzipModelsLoadLikeTheImage) {
  const Model model = SmallLexiconModel();
  const std::string image = model.ToBytes();
  const std::string gz = mf::Gzip(image);
  ASSERT_TRUE(mf::IsGzip(gz));
  EXPECT_EQ(mf::Gzip(image), gz);  // no timestamp: reproducible files
  absl::StatusOr<Model> loaded = Model::FromBytes(gz, "gz.model");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->ToBytes(), image);
  // Through files: Save with kGzip writes the gzip image, Load detects it.
  const std::string path =
      (std::filesystem::temp_directory_path() / "chaintag_gzip_test.model").string();
  ASSERT_TRUE(model.Save(path, ModelFileCompression::kGzip).ok());
  std::ifstream in(path, std::ios::binary);
  const std::string file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(file, gz);
  absl::StatusOr<Model> from_file = Model::Load(path);
  ASSERT_TRUE(from_file.ok()) << from_file.status();
  EXPECT_EQ(from_file->ToBytes(), image);
  std::filesystem::remove(path);
}

TEST(ModelFileTest, EveryTruncationAndFlippedByteOfAGzipModelIsRejected) {
  const std::string image = SmallModelWithSelfTests().ToBytes();
  const std::string gz = mf::Gzip(image);
  for (size_t len = 0; len < gz.size(); ++len) {
    absl::StatusOr<Model> loaded = Model::FromBytes(gz.substr(0, len), "cut.model");
    ASSERT_FALSE(loaded.ok()) << "prefix of " << len << " bytes accepted";
    EXPECT_TRUE(Contains(loaded.status(), "cut.model")) << loaded.status();
  }
  int same = 0;
  for (size_t pos = 0; pos < gz.size(); ++pos) {
    // Flags, timestamp, extra-flags and OS bytes of the gzip header carry no data.
    if (pos >= 3 && pos < 10) continue;
    std::string corrupt = gz;
    corrupt[pos] = static_cast<char>(corrupt[pos] ^ 0x10);
    absl::StatusOr<Model> loaded = Model::FromBytes(corrupt, "flip.model");
    // A flip in the code lengths of a Huffman symbol the stream never uses decodes to the same
    // bytes (the gzip CRC and the model's checksums agree); any other flip is rejected.
    if (loaded.ok()) {
      EXPECT_EQ(loaded->ToBytes(), image) << "flip at byte " << pos << " changed the model";
      ++same;
    }
  }
  EXPECT_LT(same, static_cast<int>(gz.size()) / 10);
}

TEST(ModelFileTest, GzipOfSomethingElseIsRejected) {
  absl::StatusOr<Model> loaded = Model::FromBytes(mf::Gzip("not a model"), "text.gz");
  ASSERT_FALSE(loaded.ok());
  EXPECT_TRUE(Contains(loaded.status(), "not a chaintag model")) << loaded.status();
  loaded = Model::FromBytes(mf::Gzip(mf::Gzip(SmallModelWithSelfTests().ToBytes())), "twice.gz");
  ASSERT_FALSE(loaded.ok());
  EXPECT_TRUE(Contains(loaded.status(), "another gzip stream")) << loaded.status();
  absl::StatusOr<std::string> bomb =
      mf::Gunzip(mf::Gzip(std::string(100000, 'x')), "bomb.gz", 4096);
  ASSERT_FALSE(bomb.ok());
  EXPECT_TRUE(Contains(bomb.status(), "expands beyond 4096 bytes")) << bomb.status();
}

// Issue 18, item 2: a directory is refused with a status, never an std::ios_failure.
TEST(ModelFileTest, LoadRefusesADirectory) {
  const std::string dir = ::testing::TempDir() + "/chaintag_model_dir_test";
  std::filesystem::create_directories(dir);
  absl::StatusOr<Model> loaded = Model::Load(dir);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().message(), dir + ": expected a model file, found a directory");
  std::filesystem::remove(dir);
}

// Issue 18, item 3: /dev/zero is endless; the loader reads its header only and stops.
TEST(ModelFileTest, LoadOfAnEndlessDeviceReadsOnlyTheHeader) {
  absl::StatusOr<Model> loaded = Model::Load("/dev/zero");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().message(), "/dev/zero: not a chaintag model (bad magic)");
}

// A file of zeros (regular file) fails on its magic too.
TEST(ModelFileTest, LoadOfAFileOfZerosFailsOnTheMagic) {
  const std::string path = ::testing::TempDir() + "/chaintag_zeros.model";
  std::ofstream(path, std::ios::binary) << std::string(1 << 20, '\0');
  absl::StatusOr<Model> loaded = Model::Load(path);
  ASSERT_FALSE(loaded.ok());
  EXPECT_TRUE(Contains(loaded.status(), "bad magic")) << loaded.status();
  std::remove(path.c_str());
}

// Models also stream from pipes (no size known in advance).
TEST(ModelFileTest, LoadFromAPipe) {
  const std::string image = SmallModelWithSelfTests().ToBytes();
  for (const std::string& bytes : {image, mf::Gzip(image)}) {
    const std::string fifo = ::testing::TempDir() + "/chaintag_model_fifo";
    std::remove(fifo.c_str());
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    std::thread writer([&] { std::ofstream(fifo, std::ios::binary) << bytes; });
    absl::StatusOr<Model> loaded = Model::Load(fifo);
    writer.join();
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    EXPECT_EQ(loaded->ToBytes(), image);
    std::remove(fifo.c_str());
  }
}

// A gzip bomb of zeros: the image header is checked on the first decompressed bytes, so only the
// start of the compressed stream is consumed (64 MiB of zeros compress to about 64 KiB).
TEST(ModelFileTest, GzipBombOfZerosStopsAtTheHeader) {
  const std::string bomb = mf::Gzip(std::string(64 << 20, '\0'));
  ASSERT_GT(bomb.size(), 60000u);
  size_t consumed = 0;
  const mf::ByteSource source = [&](char* buffer, size_t n) -> absl::StatusOr<size_t> {
    const size_t k = std::min(n, bomb.size() - consumed);
    std::memcpy(buffer, bomb.data() + consumed, k);
    consumed += k;
    return k;
  };
  size_t seen_prefix = 0;
  absl::StatusOr<std::string> out = mf::GunzipStream(
      source, "bomb.gz", mf::kFixedHeaderBytes,
      [&](std::string_view prefix) -> absl::StatusOr<mf::HeaderVerdict> {
        seen_prefix = prefix.size();
        absl::StatusOr<uint64_t> size = mf::CheckHeader(prefix, "bomb.gz");
        if (!size.ok()) return size.status();
        return mf::HeaderVerdict{*size};
      },
      mf::kMaxModelBytes);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().message(), "bomb.gz: not a chaintag model (bad magic)");
  EXPECT_EQ(seen_prefix, mf::kFixedHeaderBytes);
  EXPECT_LE(consumed, 16384u);
  // The same through Load of a file.
  const std::string path = ::testing::TempDir() + "/chaintag_bomb.model";
  std::ofstream(path, std::ios::binary) << bomb;
  absl::StatusOr<Model> loaded = Model::Load(path);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().message(), path + ": not a chaintag model (bad magic)");
  std::remove(path.c_str());
}

// A valid image followed by 64 MiB of zeros inside the gzip stream: decompression stops at the
// size the header declares instead of inflating everything.
TEST(ModelFileTest, GzipStopsAtTheDeclaredSize) {
  const std::string image = SmallModelWithSelfTests().ToBytes();
  const std::string padded = mf::Gzip(image + std::string(64 << 20, '\0'));
  absl::StatusOr<Model> loaded = Model::FromBytes(padded, "padded.gz");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().message(),
            absl::StrCat("padded.gz: gzip-compressed model expands beyond ", image.size(),
                         " bytes (the size its header declares)"));
}

// Issue 27 item 8: a gzip model whose header (checksum recomputed) declares 3 GiB, with 64 MiB
// of real zeros behind the image, is refused at its section table: nothing near the declared
// size is decompressed, and no message names a C++ exception.
TEST(ModelFileTest, OverstatedSizeInAGzipModelIsRefusedAtTheSectionTable) {
  std::string image = SmallModelWithSelfTests().ToBytes();
  const uint64_t real_size = image.size();
  const uint64_t declared = uint64_t{3} << 30;
  for (int i = 0; i < 8; ++i) image[16 + i] = static_cast<char>(declared >> (8 * i));
  ASSERT_TRUE(mf::RecomputeChecksums(&image).ok());
  const std::string gz = mf::Gzip(image + std::string(64 << 20, '\0'));
  size_t consumed = 0;
  const mf::ByteSource source = [&](char* buffer, size_t n) -> absl::StatusOr<size_t> {
    const size_t k = std::min(n, gz.size() - consumed);
    std::memcpy(buffer, gz.data() + consumed, k);
    consumed += k;
    return k;
  };
  const std::string expected =
      absl::StrCat("lying.gz: expected the sections to end at byte ", declared,
                   " (the size recorded in the header), they end at ", real_size);
  absl::StatusOr<Model> loaded = Model::FromBytes(gz, "lying.gz");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().message(), expected);
  // Through a file: the same message, and only the start of the stream is read.
  const std::string path = ::testing::TempDir() + "/chaintag_lying.model";
  std::ofstream(path, std::ios::binary) << gz;
  loaded = Model::Load(path);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().message(),
            absl::StrCat(path, expected.substr(std::string("lying.gz").size())));
  std::remove(path.c_str());
  // The uncompressed image with the same header, as a pipe would deliver it: refused at the table.
  absl::StatusOr<Model> raw = Model::FromBytes(image, "lying.model");
  ASSERT_FALSE(raw.ok());
  EXPECT_THAT(std::string(raw.status().message()), ::testing::HasSubstr("expected "));
}

// Corrupt gzip streams are described in words, never by an exception's text.
TEST(ModelFileTest, CorruptGzipMessagesNameNoException) {
  const std::string gz = mf::Gzip(SmallModelWithSelfTests().ToBytes());
  for (size_t at : {size_t{12}, gz.size() / 2, gz.size() - 6}) {
    std::string bad = gz;
    bad[at] = static_cast<char>(bad[at] ^ 0x55);
    absl::StatusOr<Model> loaded = Model::FromBytes(bad, "bad.gz");
    ASSERT_FALSE(loaded.ok()) << at;
    const std::string message(loaded.status().message());
    EXPECT_THAT(message, ::testing::StartsWith("bad.gz: ")) << message;
    for (const char* name : {"std::", "bad_alloc", "gzip error", "zlib error", "basic_ios"}) {
      EXPECT_THAT(message, ::testing::Not(::testing::HasSubstr(name))) << message;
    }
  }
}

// A header declaring more than kMaxModelBytes is refused before anything else is read.
TEST(ModelFileTest, HugeDeclaredSizeIsRefusedUpFront) {
  std::string bytes = SmallModelWithSelfTests().ToBytes();
  for (int i = 0; i < 8; ++i) bytes[16 + i] = static_cast<char>(i == 5 ? 1 : 0);  // 2^40
  const std::string path = ::testing::TempDir() + "/chaintag_huge.model";
  std::ofstream(path, std::ios::binary) << bytes;
  absl::StatusOr<Model> loaded = Model::Load(path);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().message(),
            absl::StrCat(path, ": expected a model of at most ", mf::kMaxModelBytes,
                         " bytes, the header declares 1099511627776 bytes"));
  absl::StatusOr<Model> gz = Model::FromBytes(mf::Gzip(bytes), "huge.gz");
  ASSERT_FALSE(gz.ok());
  EXPECT_TRUE(Contains(gz.status(), "the header declares 1099511627776 bytes")) << gz.status();
  std::remove(path.c_str());
}

// Issue 18, item 13: CRC-valid models with strings that would break the writers or JSON output
// are refused on load (and on save).
Model WithLabels(const Model& base, std::vector<std::string> labels) {
  return Built(ModelBuilder(std::move(labels), base.spec(), base.attributes(), base.Parameters(),
                            base.transition_mask()));
}

TEST(ModelFileTest, LabelsWithWhitespaceControlsOrBadUtf8AreRefused) {
  const Model base = BuildTinyModel();
  const struct {
    std::string label;
    std::string message;
  } cases[] = {
      {"B NP",
       "x.model: expected label 1 to be UTF-8 text without whitespace or control "
       "characters, found a space at byte offset 1 in \"B NP\""},
      {"B\tNP", "found a tab at byte offset 1"},
      {"B\nNP", "found a line feed at byte offset 1"},
      {std::string("B\0NP", 4), "found a NUL byte at byte offset 1 in \"B\\x00NP\""},
      {"B\xFFNP", "found invalid byte 0xFF at byte offset 1"},
      {"B\xC2\x85NP", "found U+0085 at byte offset 1"},
      {"B\xC2\xA0NP", "found U+00A0 at byte offset 1"},
      {"B\x7FNP", "found U+007F at byte offset 1"},
  };
  for (const auto& c : cases) {
    const Model model = WithLabels(base, {c.label, "I-NP", "O"});
    absl::StatusOr<Model> loaded = Model::FromBytes(model.ToBytes(), "x.model");
    ASSERT_FALSE(loaded.ok()) << c.message;
    EXPECT_TRUE(Contains(loaded.status(), c.message)) << loaded.status();
    EXPECT_FALSE(model.Save(::testing::TempDir() + "/chaintag_bad_label.model").ok());
  }
  // Non-ASCII labels are fine.
  absl::StatusOr<Model> ok =
      Model::FromBytes(WithLabels(base, {"B-NP", "I-NP", "Ö"}).ToBytes(), "x.model");
  EXPECT_TRUE(ok.ok()) << ok.status();
}

TEST(ModelFileTest, MetadataAttributesAndSelfTestsAreValidated) {
  {
    ModelBuilder builder = TinyModelBuilder();
    builder.AddMetadata("task", std::string("po\0s", 4));
    const Model model = Built(std::move(builder));
    absl::StatusOr<Model> loaded = Model::FromBytes(model.ToBytes(), "m.model");
    ASSERT_FALSE(loaded.ok());
    EXPECT_TRUE(Contains(loaded.status(), "expected metadata value 'task' to be UTF-8 text"))
        << loaded.status();
  }
  {
    ModelBuilder builder = TinyModelBuilder();
    builder.AddMetadata("a key", "v");
    const Model model = Built(std::move(builder));
    absl::StatusOr<Model> loaded = Model::FromBytes(model.ToBytes(), "m.model");
    ASSERT_FALSE(loaded.ok());
    EXPECT_TRUE(Contains(loaded.status(),
                         "expected metadata key 4 to be UTF-8 text without "
                         "whitespace"))
        << loaded.status();
  }
  {
    // Tab-separated metadata values (file lists) and spaces stay allowed.
    ModelBuilder builder = TinyModelBuilder();
    builder.AddMetadata("training_files", "a b.conll\tc.conll");
    const Model model = Built(std::move(builder));
    absl::StatusOr<Model> loaded = Model::FromBytes(model.ToBytes(), "m.model");
    EXPECT_TRUE(loaded.ok()) << loaded.status();
  }
  {
    const Model base = BuildTinyModel();
    AttributeDictionary attributes;
    for (int a = 0; a < base.attributes().size(); ++a) {
      attributes.Insert(a == 2 ? std::string("U00:\xE2\x82") : base.attributes().name(a));
    }
    const Model model = Built(ModelBuilder(base.labels(), base.spec(), std::move(attributes),
                                           base.Parameters(), base.transition_mask()));
    absl::StatusOr<Model> loaded = Model::FromBytes(model.ToBytes(), "a.model");
    ASSERT_FALSE(loaded.ok());
    EXPECT_TRUE(Contains(loaded.status(), "expected attribute 3 to be UTF-8 text"))
        << loaded.status();
  }
  {
    // Long names are scanned eight bytes at a time: a refused byte anywhere in the word, or in
    // the tail, is still found; printable names (space and tilde at the ends of the printable
    // range, tabs, non-ASCII letters) pass.
    const Model base = BuildTinyModel();
    auto with_attribute = [&](const std::string& name) {
      AttributeDictionary attributes;
      for (int a = 0; a < base.attributes().size(); ++a) {
        attributes.Insert(a == 2 ? name : base.attributes().name(a));
      }
      return Built(ModelBuilder(base.labels(), base.spec(), std::move(attributes),
                                base.Parameters(), base.transition_mask()));
    };
    for (const std::string bad : {"\x7F", "\x1F", "\n", "\xC2\x85", "\r"}) {
      for (size_t at : {0, 3, 7, 8, 13, 17}) {
        std::string name = "U99:abcdefghijklm";  // 17 bytes: two words and a tail
        name.insert(at, bad);
        absl::StatusOr<Model> loaded = Model::FromBytes(with_attribute(name).ToBytes(), "a.model");
        ASSERT_FALSE(loaded.ok()) << "byte at " << at;
        EXPECT_TRUE(Contains(loaded.status(), "expected attribute 3 to be UTF-8 text"))
            << loaded.status();
      }
    }
    for (const std::string good :
         {"U99: ~ldefghijklmnop~ ", "U99:\tab\tcdefghijk", "U99:caf\xC3\xA9 na\xC3\xAFve"}) {
      absl::StatusOr<Model> loaded = Model::FromBytes(with_attribute(good).ToBytes(), "a.model");
      EXPECT_TRUE(loaded.ok()) << loaded.status();
    }
  }
  {
    ModelBuilder builder = TinyModelBuilder();
    std::vector<Sentence> corpus = TinyCorpus();
    corpus.resize(1);
    corpus[0].columns[0][1] = "c\x01t";
    builder.SetSelfTestSentences(corpus);
    const Model model = Built(std::move(builder));
    absl::StatusOr<Model> loaded = Model::FromBytes(model.ToBytes(), "s.model");
    ASSERT_FALSE(loaded.ok());
    EXPECT_TRUE(Contains(loaded.status(),
                         "expected a cell of self-test 1 to be UTF-8 text without "
                         "tabs, line breaks or control characters, found U+0001"))
        << loaded.status();
  }
}

TEST(ModelFileTest, CheckModelStringRules) {
  using mf::StringRule;
  EXPECT_TRUE(mf::CheckModelString("U00:a b\tc", StringRule::kLine, "x", "n").ok());
  EXPECT_FALSE(mf::CheckModelString("a\nb", StringRule::kLine, "x", "n").ok());
  EXPECT_TRUE(mf::CheckModelString("U00:%x[0,0]\r\nB\r\n", StringRule::kText, "x", "n").ok());
  EXPECT_FALSE(mf::CheckModelString("U00:%x[0,0]\rB", StringRule::kText, "x", "n").ok());
  EXPECT_TRUE(mf::CheckModelString("a b", StringRule::kCell, "x", "n").ok());
  EXPECT_FALSE(mf::CheckModelString("a\tb", StringRule::kCell, "x", "n").ok());
  EXPECT_FALSE(mf::CheckModelString("", StringRule::kName, "x", "n").ok());
  EXPECT_TRUE(mf::CheckModelString("", StringRule::kLine, "x", "n").ok());
}

// Inconsistent parameters never become a Model; a model the loader would refuse is not saved.
TEST(ModelFileTest, SaveRejectsInconsistentModel) {
  ModelParameters p;
  p.num_labels = 2;
  p.attribute_offsets = {0, 1};
  p.feature_labels = {5};  // out of range
  p.weights.assign(1 + 4 + 4, 0.5);
  AttributeDictionary dict;
  dict.Insert("U00:x");
  absl::StatusOr<FeatureSpec> spec = FeatureSpec::Parse("U00:%x[0,0]\n");
  ASSERT_TRUE(spec.ok());
  absl::StatusOr<Model> bad = ModelBuilder({"A", "B"}, *spec, dict, p, TransitionMask()).Build();
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(Contains(bad.status(), "feature 0 has label id 5, expected 0 to 1")) << bad.status();
  p.feature_labels = {1};
  absl::StatusOr<Model> twice = ModelBuilder({"A", "A"}, *spec, dict, p, TransitionMask()).Build();
  ASSERT_TRUE(twice.ok()) << twice.status();
  const std::string path = ::testing::TempDir() + "/chaintag_bad.model";
  const absl::Status saved = twice->Save(path);
  EXPECT_TRUE(Contains(saved, "label 'A' appears twice")) << saved;
  EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace chaintag
