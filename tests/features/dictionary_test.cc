#include <string>
#include <vector>

#include "chaintag/features.h"
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
