#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "chaintag/features.h"
#include "features/featurizer.h"

namespace chaintag {

namespace {

// The high and low halves of a 64x64-bit product folded together (the mixing step of wyhash).
inline uint64_t FoldedMultiply(uint64_t a, uint64_t b) {
  const unsigned __int128 product = static_cast<unsigned __int128>(a) * b;
  return static_cast<uint64_t>(product) ^ static_cast<uint64_t>(product >> 64);
}

inline uint64_t Load64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
  return v;
}
inline uint64_t Load32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap32(v);
  return v;
}

}  // namespace

uint64_t AttributeDictionary::Hash(std::string_view attribute) {
  // Not absl::Hash: its seed may change between builds, and model files store the table. The
  // structure of wyhash (Wang Yi, 2019): fixed-size overlapping reads, two multiplies for names
  // up to 16 bytes.
  constexpr uint64_t k0 = 0xA0761D6478BD642FULL, k1 = 0xE7037ED1A0B428DBULL,
                     k2 = 0x8EBC6AF09C88C6E3ULL;
  const char* p = attribute.data();
  const size_t n = attribute.size();
  uint64_t seed = k0, a = 0, b = 0;
  if (n <= 16) {
    if (n >= 4) {
      const size_t mid = (n >> 3) << 2;  // 0 below 8 bytes, else 4
      a = Load32(p) << 32 | Load32(p + mid);
      b = Load32(p + n - 4) << 32 | Load32(p + n - 4 - mid);
    } else if (n > 0) {
      const auto byte = [&](size_t i) { return uint64_t{static_cast<unsigned char>(p[i])}; };
      a = byte(0) << 16 | byte(n >> 1) << 8 | byte(n - 1);
    }
  } else {
    size_t i = n;
    for (; i > 16; i -= 16, p += 16) seed = FoldedMultiply(Load64(p) ^ k1, Load64(p + 8) ^ seed);
    a = Load64(p + i - 16);
    b = Load64(p + i - 8);
  }
  return FoldedMultiply(FoldedMultiply(a ^ k1, b ^ seed) ^ k0 ^ n, k2);
}

absl::StatusOr<AttributeDictionary> AttributeDictionary::FromStoredTable(
    uint64_t count, std::string_view slots, std::string_view arena,
    const std::function<absl::Status(std::string_view name, int id)>& check_name,
    const std::function<absl::Status(std::string_view what)>& error) {
  const uint64_t capacity = slots.size() / 8;
  if (slots.size() % 8 != 0 || capacity < 16 || !std::has_single_bit(capacity) ||
      count * 2 > capacity || count > static_cast<uint64_t>(INT32_MAX)) {
    return error(absl::StrCat("expected a power-of-two capacity of at least 16 and twice the ",
                              count, " attributes, found ", capacity));
  }
  if (arena.size() > kOffsetMask || (count > 0) != !arena.empty() ||
      (!arena.empty() && arena[0] != '\0')) {
    return error(
        absl::StrCat("expected an arena that starts with a zero byte (empty only for no "
                     "attributes), found ",
                     arena.size(), " bytes"));
  }
  AttributeDictionary d;
  // Straight from the image, without zero-filling first, where its words are aligned.
  if (std::endian::native == std::endian::little &&
      reinterpret_cast<uintptr_t>(slots.data()) % alignof(uint64_t) == 0) {
    const auto* words = reinterpret_cast<const uint64_t*>(slots.data());
    d.slots_.assign(words, words + capacity);
  } else {
    d.slots_.resize(capacity);
    for (uint64_t i = 0; i < capacity; ++i) d.slots_[i] = Load64(&slots[8 * i]);
  }
  // Counted first, so probing meets an empty slot (count * 2 <= capacity).
  const uint64_t occupied =
      capacity - static_cast<uint64_t>(std::count(d.slots_.begin(), d.slots_.end(), 0));
  if (occupied != count) {
    return error(absl::StrCat("expected ", count, " occupied slots, found ", occupied));
  }
  d.arena_.assign(arena);
  d.mask_ = capacity - 1;
  // Entries in id order, each right after the previous one, the last ending the arena: the walk
  // recovers each id's offset.
  d.entry_offsets_.reserve(count);
  uint64_t offset = count > 0 ? 1 : 0;
  for (uint64_t id = 0; id < count; ++id) {
    EntryHeader h{};
    if (offset + sizeof(h) > d.arena_.size() ||
        (std::memcpy(&h, d.arena_.data() + offset, sizeof(h)), h.id != static_cast<int32_t>(id)) ||
        h.length > d.arena_.size() - offset - sizeof(h)) {
      return error(absl::StrCat("the entry of attribute ", id + 1, " at arena offset ", offset,
                                " does not hold its id and a name inside the arena"));
    }
    d.entry_offsets_.push_back(offset);
    offset += sizeof(h) + h.length;
  }
  if (offset != d.arena_.size()) {
    return error(absl::StrCat("expected the arena to end after the last entry at byte ", offset,
                              ", found ", d.arena_.size(), " bytes"));
  }
  // Each name must be found at its own id. Its probe ends at the slot holding its own offset;
  // another slot is read only when its tag matches, after checking it points at an entry. Ids
  // end at distinct slots, so with exactly `count` occupied slots every occupied one is valid.
  const auto valid_slot = [&](uint64_t slot) {
    const uint64_t at = slot & kOffsetMask;
    if (at == 0 || at + sizeof(EntryHeader) > d.arena_.size()) return false;
    EntryHeader h;
    std::memcpy(&h, d.arena_.data() + at, sizeof(h));
    return h.id >= 0 && static_cast<uint64_t>(h.id) < count && d.entry_offsets_[h.id] == at;
  };
  constexpr uint64_t kBlock = 16;
  std::array<uint64_t, kBlock> hashes;
  for (uint64_t start = 0; start < count; start += kBlock) {
    const uint64_t n = std::min(kBlock, count - start);
    for (uint64_t k = 0; k < n; ++k) {
      const std::string_view name = d.name_view(static_cast<int>(start + k));
      if (absl::Status s = check_name(name, static_cast<int>(start + k)); !s.ok()) return s;
      hashes[k] = Hash(name);
      d.PrefetchSlot(hashes[k]);
    }
    for (uint64_t k = 0; k < n; ++k) {
      const int id = static_cast<int>(start + k);
      const uint64_t own = d.entry_offsets_[id];
      const uint64_t tag = hashes[k] >> kOffsetBits;
      const std::string_view name = d.name_view(id);
      bool found = false, duplicate = false;
      for (uint64_t i = hashes[k] & d.mask_;; i = (i + 1) & d.mask_) {
        const uint64_t slot = d.slots_[i];
        if (slot == 0) break;
        if ((slot >> kOffsetBits) != tag) continue;
        if ((slot & kOffsetMask) == own) {
          found = true;
          break;
        }
        if (!valid_slot(slot)) {
          return error(absl::StrCat("slot ", i, " points at arena offset ", slot & kOffsetMask,
                                    ", which holds no entry"));
        }
        EntryHeader h;
        std::memcpy(&h, d.arena_.data() + (slot & kOffsetMask), sizeof(h));
        if (d.name_view(h.id) == name) {
          duplicate = true;
          break;
        }
      }
      if (!found) {
        const absl::string_view text(name.data(), name.size());
        return error(duplicate
                         ? absl::StrCat("attribute '", text, "' appears twice in the dictionary")
                         : absl::StrCat("attribute ", id + 1, " ('", text,
                                        "') is not found at its id in the table"));
      }
    }
  }
  d.size_ = static_cast<int>(count);
  return d;
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
