#include <string>
#include <utility>
#include <vector>

#include "chaintag/labels.h"

namespace chaintag {

LabelSet::LabelSet(std::vector<std::string> names) {
  for (std::string& name : names) Add(name);
}

int LabelSet::Id(std::string_view name) const {
  auto it = ids_.find(absl::string_view(name.data(), name.size()));
  return it == ids_.end() ? -1 : it->second;
}

int LabelSet::Add(std::string_view name) {
  auto [it, inserted] = ids_.try_emplace(std::string(name), static_cast<int>(names_.size()));
  if (inserted) names_.emplace_back(name);
  return it->second;
}

}  // namespace chaintag
