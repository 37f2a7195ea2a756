#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "absl/hash/hash.h"
#include "absl/strings/string_view.h"
#include "chaintag/features.h"

namespace chaintag {

uint64_t AttributeDictionary::Hash(std::string_view attribute) {
  return absl::Hash<absl::string_view>{}(absl::string_view(attribute.data(), attribute.size()));
}

int AttributeDictionary::Insert(std::string_view attribute) {
  const uint64_t hash = Hash(attribute);
  const int found = FindHashed(attribute, hash);
  if (found >= 0) return found;
  // Keep the load factor at most 1/2 so probes stay short.
  if ((names_.size() + 1) * 2 > slots_.size()) Rehash(slots_.empty() ? 16 : slots_.size() * 2);
  if (arena_.empty()) arena_.push_back('\0');  // offset 0 is never an entry, so slot 0 means empty
  const int id = size();
  const uint64_t offset = arena_.size();
  EntryHeader header{hash, id, static_cast<uint32_t>(attribute.size())};
  arena_.append(reinterpret_cast<const char*>(&header), sizeof(header));
  arena_.append(attribute);
  uint64_t i = hash & mask_;
  while (slots_[i] != 0) i = (i + 1) & mask_;
  slots_[i] = (hash >> kOffsetBits) << kOffsetBits | offset;
  names_.emplace_back(attribute);
  return id;
}

void AttributeDictionary::Rehash(size_t capacity) {
  std::vector<uint64_t> slots(capacity, 0);
  const uint64_t mask = capacity - 1;
  for (uint64_t slot : slots_) {
    if (slot == 0) continue;
    EntryHeader header;
    std::memcpy(&header, arena_.data() + (slot & kOffsetMask), sizeof(header));
    uint64_t i = header.hash & mask;
    while (slots[i] != 0) i = (i + 1) & mask;
    slots[i] = slot;
  }
  slots_ = std::move(slots);
  mask_ = mask;
}

void AttributeDictionary::Reserve(int n) {
  size_t capacity = slots_.empty() ? 16 : slots_.size();
  while (static_cast<size_t>(n) * 2 > capacity) capacity *= 2;
  if (capacity != slots_.size()) Rehash(capacity);
  names_.reserve(n);
}

AttributeDictionary BuildAttributeDictionary(Featurizer& featurizer,
                                             const std::vector<Sentence>& corpus, int min_count) {
  // First pass interns every attribute in first-occurrence order and counts it.
  AttributeDictionary all;
  std::vector<int64_t> counts;
  for (const Sentence& sentence : corpus) {
    featurizer.ForEachAttribute(sentence, [&](int, std::string_view attribute) {
      const int id = all.Insert(attribute);
      if (id == static_cast<int>(counts.size())) counts.push_back(0);
      ++counts[id];
    });
  }
  if (min_count <= 1) return all;
  AttributeDictionary kept;
  for (int id = 0; id < all.size(); ++id) {
    if (counts[id] >= min_count) kept.Insert(all.name(id));
  }
  return kept;
}

}  // namespace chaintag
