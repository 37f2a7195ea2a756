// Built-in English abbreviation list and the sentence-starter list used to disambiguate it.
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "chaintag/text.h"
#include "text/tokenizer.h"

namespace chaintag {
namespace {

// Never end a sentence: titles and words that need something after them.
constexpr std::string_view kPrepositive[] = {
    "Mr",   "Mrs",  "Ms",   "Messrs", "Mme",  "Mlle",   "Dr",    "Drs",  "Prof", "St",    "Rev",
    "Hon",  "Gen",  "Col",  "Lt",     "Maj",  "Capt",   "Cmdr",  "Sgt",  "Adm",  "Gov",   "Sen",
    "Rep",  "Reps", "Pres", "Supt",   "Det",  "Insp",   "Mt",    "Ft",   "No",   "Nos",   "vs",
    "v",    "cf",   "e.g",  "i.e",    "viz",  "approx", "ca",    "Fig",  "Figs", "fig",   "Eq",
    "Eqs",  "Vol",  "vol",  "Ch",     "ch",   "Sec",    "sec",   "pp",   "ed",   "eds",   "Jan",
    "Feb",  "Mar",  "Apr",  "Jun",    "Jul",  "Aug",    "Sep",   "Sept", "Oct",  "Nov",   "Dec",
    "Mon",  "Tue",  "Tues", "Wed",    "Thu",  "Thur",   "Thurs", "Fri",  "Ariz", "Calif", "Colo",
    "Conn", "Fla",  "Ill",  "Kan",    "Mass", "Mich",   "Minn",  "Nev",  "Okla", "Ore",   "Penn",
    "Tenn", "Wash", "Wis",  "Univ",   "Op",   "Art",    "Nr"};

// May end a sentence ("... and Co." / "... in the U.S.").
constexpr std::string_view kFinal[] = {
    "etc", "Inc", "Corp", "Ltd", "Co",  "Bros",  "Jr",   "Sr",   "Esq", "Ave", "Blvd", "Rd",
    "Ln",  "U.S", "U.K",  "U.N", "E.U", "U.S.A", "a.m",  "p.m",  "A.M", "P.M", "Ph.D", "M.D",
    "B.A", "M.A", "B.S",  "M.S", "al",  "est",   "govt", "yr",   "yrs", "min", "max",  "hr",
    "hrs", "oz",  "lb",   "lbs", "sq",  "Dept",  "Assn", "Intl", "Natl"};

constexpr std::string_view kSentenceStarters[] = {
    "The",    "A",      "An",    "I",     "He",     "She",     "It",      "We",       "They",
    "You",    "This",   "That",  "These", "Those",  "There",   "Then",    "But",      "And",
    "So",     "Or",     "Yet",   "In",    "On",     "At",      "As",      "If",       "When",
    "While",  "Where",  "What",  "Why",   "How",    "Who",     "Which",   "My",       "Our",
    "Your",   "His",    "Her",   "Their", "Its",    "One",     "Some",    "Many",     "Most",
    "All",    "Both",   "Each",  "Now",   "Today",  "However", "Also",    "After",    "Before",
    "For",    "From",   "To",    "With",  "By",     "Since",   "Because", "Although", "Though",
    "Please", "Thanks", "Thank", "Here",  "Is",     "Are",     "Was",     "Do",       "Did",
    "Does",   "Can",    "Will",  "Would", "Should", "Could",   "Let",     "Just",     "No",
    "Yes",    "Not"};

bool IsAsciiLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// "U.S", "Ph.D", "e.g": letter groups of at most two letters joined by periods.
bool LooksDotted(std::string_view w) {
  if (w.find('.') == std::string_view::npos) return false;
  int run = 0;
  for (char c : w) {
    if (c == '.') {
      if (run == 0) return false;
      run = 0;
    } else if (IsAsciiLetter(c)) {
      if (++run > 2) return false;
    } else {
      return false;
    }
  }
  return run > 0;
}

}  // namespace

const std::vector<std::string>& BuiltinAbbreviations() {
  static const auto* list = [] {
    auto* v = new std::vector<std::string>;
    for (std::string_view s : kPrepositive) v->emplace_back(s);
    for (std::string_view s : kFinal) v->emplace_back(s);
    return v;
  }();
  return *list;
}

absl::StatusOr<InvalidUtf8Policy> ParseInvalidUtf8Policy(std::string_view name) {
  if (name == "error") return InvalidUtf8Policy::kError;
  if (name == "replace") return InvalidUtf8Policy::kReplace;
  return absl::InvalidArgumentError(absl::StrCat(
      "--on-invalid: expected \"error\" or \"replace\", found \"", std::string(name), "\""));
}

namespace text_internal {

AbbreviationSet::AbbreviationSet(bool builtin, const std::vector<std::string>& extra) {
  if (builtin) {
    for (std::string_view s : kPrepositive) {
      if (!s.empty() && s.back() == '.') s.remove_suffix(1);
      prepositive_.insert(std::string(s));
    }
    for (std::string_view s : kFinal) final_.insert(std::string(s));
  }
  for (std::string_view s : extra) {
    if (!s.empty() && s.back() == '.') s.remove_suffix(1);
    if (s.empty()) continue;
    final_.erase(std::string(s));
    prepositive_.insert(std::string(s));
  }
}

// Exact match, or a lower-case list entry matched case-insensitively ("E.g" -> "e.g").
bool AbbreviationSet::Lookup(const absl::flat_hash_set<std::string>& set,
                             std::string_view word) const {
  std::string key(word);
  if (set.contains(key)) return true;
  absl::AsciiStrToLower(&key);
  return key != word && set.contains(key);
}

bool AbbreviationSet::IsAbbreviation(std::string_view word) const {
  if (word.size() == 1 && word[0] >= 'A' && word[0] <= 'Z' && word[0] != 'I') return true;
  return Lookup(prepositive_, word) || Lookup(final_, word) || LooksDotted(word);
}

bool AbbreviationSet::MayEndSentence(std::string_view word) const {
  if (word.size() == 1) return false;  // initials: "J. Smith"
  if (Lookup(prepositive_, word)) return false;
  return true;
}

bool AbbreviationSet::IsSentenceStarter(std::string_view word) {
  for (std::string_view s : kSentenceStarters) {
    if (s == word) return true;
  }
  return false;
}

}  // namespace text_internal
}  // namespace chaintag
