#include <string>
#include <vector>

#include "chaintag/features.h"
#include "features/featurizer.h"
#include "gtest/gtest.h"

namespace chaintag {
namespace {

TEST(AttributeDictionaryTest, InsertAndFind) {
  AttributeDictionary dict;
  dict.Reserve(4);
  EXPECT_EQ(dict.size(), 0);
  EXPECT_EQ(dict.Find("a"), -1);
  EXPECT_EQ(dict.Insert("a"), 0);
  EXPECT_EQ(dict.Insert("b"), 1);
  EXPECT_EQ(dict.Insert("a"), 0);  // already present
  EXPECT_EQ(dict.Insert(""), 2);
  EXPECT_EQ(dict.size(), 3);
  EXPECT_EQ(dict.Find("b"), 1);
  EXPECT_EQ(dict.Find(""), 2);
  EXPECT_EQ(dict.Find("c"), -1);
  EXPECT_EQ(dict.name(0), "a");
  EXPECT_EQ(dict.name(1), "b");
  // Lookup by a view into a longer buffer.
  const std::string buffer = "xbx";
  EXPECT_EQ(dict.Find(std::string_view(buffer).substr(1, 1)), 1);
}

TEST(AttributeDictionaryTest, GrowsAndFindsEverything) {
  AttributeDictionary dict;
  constexpr int kCount = 20000;
  for (int i = 0; i < kCount; ++i) {
    // Lengths 1..40 so short and long entries both occur.
    const std::string a = std::to_string(i) + std::string(i % 37, 'x');
    ASSERT_EQ(dict.Insert(a), i);
  }
  ASSERT_EQ(dict.size(), kCount);
  for (int i = 0; i < kCount; ++i) {
    const std::string a = std::to_string(i) + std::string(i % 37, 'x');
    const uint64_t hash = AttributeDictionary::Hash(a);
    dict.PrefetchSlot(hash);
    dict.PrefetchEntry(hash);
    EXPECT_EQ(dict.FindHashed(a, hash), i);
    EXPECT_EQ(dict.Find(a), i);
    EXPECT_EQ(dict.name(i), a);
    EXPECT_EQ(dict.Find(a + "y"), -1);
  }
  AttributeDictionary reserved;
  reserved.Reserve(1000);
  EXPECT_EQ(reserved.Find("a"), -1);
  EXPECT_EQ(reserved.Insert("a"), 0);
  EXPECT_EQ(reserved.Find("a"), 0);
  // An empty dictionary answers lookups without a table.
  AttributeDictionary empty;
  empty.PrefetchSlot(AttributeDictionary::Hash("a"));
  empty.PrefetchEntry(AttributeDictionary::Hash("a"));
  EXPECT_EQ(empty.FindHashed("a", AttributeDictionary::Hash("a")), -1);
}

TEST(AttributeDictionaryTest, StoresEachNameOnce) {
  AttributeDictionary dict;
  constexpr int kCount = 50000;
  size_t name_bytes = 0;
  for (int i = 0; i < kCount; ++i) {
    std::string a = "U";
    a.append(std::to_string(i % 23)).append(":").append(i % 29, 'q').append(std::to_string(i));
    name_bytes += a.size();
    ASSERT_EQ(dict.Insert(a), i);
    ASSERT_EQ(dict.name_view(i), a);  // views stay valid until the next Insert
  }
  for (int i = 0; i < kCount; i += 97) {
    EXPECT_EQ(dict.name(i), std::string(dict.name_view(i)));
    EXPECT_EQ(dict.Find(dict.name(i)), i);
  }
  // Names once (arena) plus per entry an 8-byte header and an 8-byte id -> offset, plus the index
  // at load factor >= 1/4; growth may leave each buffer up to twice its content. A second copy
  // of the names (std::string per id: 32 bytes + heap) would exceed this bound.
  const size_t content = name_bytes + kCount * 16;
  size_t index_slots = 16;
  while (index_slots < 2 * static_cast<size_t>(kCount)) index_slots *= 2;
  EXPECT_LE(dict.MemoryBytes(), 2 * content + index_slots * 8);
  EXPECT_GE(dict.MemoryBytes(), name_bytes + index_slots * 8);
}

std::string Key(int i) {
  std::string key = "a";
  key += std::to_string(i);
  return key;
}

std::string LongKey(int i) {
  std::string key = Key(i);
  key.append(i % 41, 'z');
  return key;
}

TEST(AttributeDictionaryTest, ReleasedIndexKeepsNamesAndComesBack) {
  AttributeDictionary dict;
  for (int i = 0; i < 1000; ++i) dict.Insert(Key(i));
  dict.Insert("");  // id 1000 -> 1001 below: an empty name must survive the arena walk
  for (int i = 1000; i < 1999; ++i) dict.Insert(LongKey(i));
  const size_t before = dict.MemoryBytes();
  dict.ReleaseIndex();
  EXPECT_LT(dict.MemoryBytes(), before);
  EXPECT_EQ(dict.size(), 2000);
  EXPECT_EQ(dict.Find("a123"), -1);  // no index: lookups fail rather than scan
  dict.RestoreIndex();
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(dict.Find(Key(i)), i);
  EXPECT_EQ(dict.Find(""), 1000);
  EXPECT_EQ(dict.name(1000), "");
  for (int i = 1000; i < 1999; ++i) {
    ASSERT_EQ(dict.name(i + 1), LongKey(i));
    ASSERT_EQ(dict.Find(dict.name_view(i + 1)), i + 1);
  }
  // Insert and Reserve on a released index restore it first, so no duplicate ids appear.
  dict.ReleaseIndex();
  EXPECT_EQ(dict.Insert("a7"), 7);
  EXPECT_EQ(dict.Insert("new"), 2000);
  EXPECT_EQ(dict.Find("a999"), 999);
  EXPECT_EQ(dict.name(2000), "new");
  dict.ReleaseIndex();
  dict.Reserve(4);
  EXPECT_EQ(dict.Find("new"), 2000);
  EXPECT_EQ(dict.name(2000), "new");
  EXPECT_EQ(dict.Insert("a0"), 0);
}

TEST(AttributeDictionaryTest, CopiesAreIndependent) {
  AttributeDictionary a;
  a.Insert("x");
  AttributeDictionary b = a;
  b.Insert("y");
  EXPECT_EQ(a.size(), 1);
  EXPECT_EQ(a.Find("y"), -1);
  EXPECT_EQ(b.Find("x"), 0);
  EXPECT_EQ(b.Find("y"), 1);
}

Sentence Words(std::vector<std::string> words) {
  Sentence s;
  s.columns = {std::move(words)};
  return s;
}

TEST(BuildAttributeDictionaryTest, MinCountKeepsFrequentAttributesInFirstOccurrenceOrder) {
  absl::StatusOr<FeatureSpec> spec = FeatureSpec::Parse("W:%x[0,0]\n");
  ASSERT_TRUE(spec.ok());
  Featurizer featurizer(*spec);
  // Counts: c=1, b=3, a=2, d=1; occurrences within one sentence count too.
  const std::vector<Sentence> corpus = {Words({"c", "b", "a"}), Words({"b", "b"}),
                                        Words({"a", "d"})};
  AttributeDictionary all = BuildAttributeDictionary(featurizer, corpus, 1);
  ASSERT_EQ(all.size(), 4);
  EXPECT_EQ(all.name(0), "W:c");
  EXPECT_EQ(all.name(1), "W:b");
  EXPECT_EQ(all.name(2), "W:a");
  EXPECT_EQ(all.name(3), "W:d");

  AttributeDictionary two = BuildAttributeDictionary(featurizer, corpus, 2);
  ASSERT_EQ(two.size(), 2);
  EXPECT_EQ(two.name(0), "W:b");
  EXPECT_EQ(two.name(1), "W:a");
  EXPECT_EQ(two.Find("W:c"), -1);

  AttributeDictionary three = BuildAttributeDictionary(featurizer, corpus, 3);
  ASSERT_EQ(three.size(), 1);
  EXPECT_EQ(three.name(0), "W:b");

  EXPECT_EQ(BuildAttributeDictionary(featurizer, corpus, 4).size(), 0);
  EXPECT_EQ(BuildAttributeDictionary(featurizer, corpus, 0).size(), 4);
  EXPECT_EQ(BuildAttributeDictionary(featurizer, {}, 1).size(), 0);
}

}  // namespace
}  // namespace chaintag
