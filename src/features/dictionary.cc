#include <algorithm>
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
  return InsertHashed(attribute, Hash(attribute));
}

int AttributeDictionary::InsertHashed(std::string_view attribute, uint64_t hash) {
  if (slots_.empty() && size_ > 0) RestoreIndex();
  // Keep the load factor at most 1/2 so probes stay short.
  if ((static_cast<size_t>(size_) + 1) * 2 > slots_.size())
    Rehash(slots_.empty() ? 16 : slots_.size() * 2);
  if (arena_.empty()) arena_.push_back('\0');  // offset 0 is never an entry, so slot 0 means empty
  // One probe finds the name or the empty slot it goes to.
  const uint64_t tag = hash >> kOffsetBits;
  uint64_t i = hash & mask_;
  for (; slots_[i] != 0; i = (i + 1) & mask_) {
    if ((slots_[i] >> kOffsetBits) != tag) continue;
    const char* entry = arena_.data() + (slots_[i] & kOffsetMask);
    EntryHeader h;
    std::memcpy(&h, entry, sizeof(h));
    if (h.length == attribute.size() &&
        std::memcmp(entry + sizeof(h), attribute.data(), attribute.size()) == 0) {
      return h.id;
    }
  }
  const int id = size();
  const uint64_t offset = arena_.size();
  EntryHeader header{id, static_cast<uint32_t>(attribute.size())};
  arena_.append(reinterpret_cast<const char*>(&header), sizeof(header));
  arena_.append(attribute.data(), attribute.size());
  slots_[i] = tag << kOffsetBits | offset;
  entry_offsets_.push_back(offset);
  ++size_;
  return id;
}

void AttributeDictionary::Rehash(size_t capacity) {
  std::vector<uint64_t> slots(capacity, 0);
  const uint64_t mask = capacity - 1;
  // Walking ids rather than old slots needs no tag decoding; the hash is recomputed from the name.
  for (int id = 0; id < size(); ++id) {
    const uint64_t offset = entry_offsets_[id];
    const uint64_t hash = Hash(name_view(id));
    uint64_t i = hash & mask;
    while (slots[i] != 0) i = (i + 1) & mask;
    slots[i] = (hash >> kOffsetBits) << kOffsetBits | offset;
  }
  slots_ = std::move(slots);
  mask_ = mask;
}

void AttributeDictionary::Reserve(int n, int64_t name_bytes) {
  if (slots_.empty() && size_ > 0) RestoreIndex();
  size_t capacity = slots_.empty() ? 16 : slots_.size();
  // A released index may be smaller than the entries it must hold.
  const size_t entries = std::max(static_cast<size_t>(std::max(n, 0)), entry_offsets_.size());
  while (entries * 2 > capacity) capacity *= 2;
  if (capacity != slots_.size()) Rehash(capacity);
  entry_offsets_.reserve(n);
  if (name_bytes > 0) {
    // Offset 0 is reserved; each entry is a header and the name.
    arena_.reserve(arena_.size() + 1 + static_cast<size_t>(std::max(n, 0)) * sizeof(EntryHeader) +
                   static_cast<size_t>(name_bytes));
  }
}

void AttributeDictionary::ReleaseIndex() {
  std::vector<uint64_t>().swap(slots_);
  std::vector<uint64_t>().swap(entry_offsets_);
  mask_ = 0;
}

void AttributeDictionary::RestoreIndex() {
  if (static_cast<int>(entry_offsets_.size()) != size_) {
    // Entries were appended in id order, so one walk over the arena recovers every offset.
    entry_offsets_.reserve(size_);
    uint64_t offset = 1;
    while (offset < arena_.size()) {
      EntryHeader header;
      std::memcpy(&header, arena_.data() + offset, sizeof(header));
      entry_offsets_.push_back(offset);
      offset += sizeof(header) + header.length;
    }
  }
  if (!slots_.empty() || size_ == 0) return;
  size_t capacity = 16;
  while (static_cast<size_t>(size_) * 2 > capacity) capacity *= 2;
  Rehash(capacity);
}

size_t AttributeDictionary::MemoryBytes() const {
  return slots_.capacity() * sizeof(uint64_t) + arena_.capacity() +
         entry_offsets_.capacity() * sizeof(uint64_t);
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
    if (counts[id] >= min_count) kept.Insert(all.name_view(id));
  }
  return kept;
}

}  // namespace chaintag
