// A word-class lexicon from WordNet's database files (chaintag::WordNetLexicon): each word's
// WordNet parts of speech, and the inflected forms its exception lists and regular morphology
// give (the inverse of WordNet's morphy detachment rules).
#include <algorithm>
#include <functional>
#include <istream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "chaintag/corpus.h"
#include "chaintag/features.h"
#include "corpus/line_reader.h"
#include "string_view_compat.h"

namespace chaintag {
namespace {

constexpr int64_t kMaxWordNetLineBytes = 1 << 20;

using Classes = std::map<std::string, std::set<std::string>>;

bool IsVowel(char c) { return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u'; }
bool EndsWith(std::string_view s, std::string_view suffix) { return s.ends_with(suffix); }

// Reads the lines of DIR/NAME (data lines only: the licence header starts with spaces).
absl::Status ForEachLine(const std::string& dir, const std::string& name,
                         const std::function<absl::Status(std::string_view)>& fn) {
  const std::string path = dir + "/" + name;
  absl::StatusOr<std::unique_ptr<std::istream>> in = OpenInputStream(path);
  if (!in.ok()) {
    return absl::NotFoundError(absl::StrCat(in.status().message(),
                                            " (expected a WordNet database directory with ", name,
                                            ", e.g. /usr/share/wordnet)"));
  }
  corpus_internal::LineReader reader(**in, path, kMaxWordNetLineBytes);
  std::string_view line;
  while (true) {
    absl::StatusOr<bool> more = reader.Next(&line);
    if (!more.ok()) return more.status();
    if (!*more) break;
    if (line.empty() || line[0] == ' ') continue;
    if (absl::Status s = fn(line); !s.ok())
      return reader.Error(std::string_view(s.message().data(), s.message().size()));
  }
  if ((*in)->bad()) return absl::DataLossError(absl::StrCat(path, ": read error"));
  return absl::OkStatus();
}

// Regular inflections of a lemma of part of speech `pos` (n, v, a), with their classes.
void AddRegularForms(const std::string& lemma, char pos, Classes* classes) {
  const size_t n = lemma.size();
  if (n < 2) return;
  const char last = lemma[n - 1];
  const bool consonant_y = last == 'y' && !IsVowel(lemma[n - 2]);
  const bool sibilant =
      last == 's' || last == 'x' || last == 'z' || EndsWith(lemma, "ch") || EndsWith(lemma, "sh");
  const std::string stem_y = lemma.substr(0, n - 1);
  auto s_form = [&] {
    if (consonant_y) return stem_y + "ies";
    if (sibilant) return lemma + "es";
    return lemma + "s";
  };
  switch (pos) {
    case 'n':
      (*classes)[EndsWith(lemma, "man") ? lemma.substr(0, n - 3) + "men" : s_form()].insert("n-s");
      break;
    case 'v': {
      (*classes)[s_form()].insert("v-s");
      (*classes)[consonant_y   ? stem_y + "ied"
                 : last == 'e' ? lemma + "d"
                               : lemma + "ed"]
          .insert("v-ed");
      const bool drop_e =
          last == 'e' && !EndsWith(lemma, "ee") && !EndsWith(lemma, "ye") && !EndsWith(lemma, "oe");
      (*classes)[EndsWith(lemma, "ie") ? lemma.substr(0, n - 2) + "ying"
                 : drop_e              ? lemma.substr(0, n - 1) + "ing"
                                       : lemma + "ing"]
          .insert("v-ing");
      break;
    }
    case 'a':
      (*classes)[consonant_y   ? stem_y + "ier"
                 : last == 'e' ? lemma + "r"
                               : lemma + "er"]
          .insert("a-er");
      (*classes)[consonant_y   ? stem_y + "iest"
                 : last == 'e' ? lemma + "st"
                               : lemma + "est"]
          .insert("a-est");
      break;
    default:
      break;
  }
}

}  // namespace

absl::StatusOr<Lexicon> WordNetLexicon(const std::string& dir) {
  Classes classes;
  // Lemmas per part of speech from the data files: "OFFSET LEXFILE SSTYPE WCNT WORD LEXID ...".
  std::map<char, std::set<std::string>> lemmas;
  for (const auto& [file, part] : std::vector<std::pair<std::string, char>>{
           {"data.noun", 'n'}, {"data.verb", 'v'}, {"data.adj", 'a'}, {"data.adv", 'r'}}) {
    // A copy: lambdas may not capture structured bindings before C++20 (clang 14).
    const char pos = part;
    absl::Status s = ForEachLine(dir, file, [&](std::string_view line) -> absl::Status {
      std::vector<absl::string_view> f = absl::StrSplit(ToAbsl(line), ' ');
      int count = 0;
      if (f.size() < 4 || f[3].size() != 2 || !absl::SimpleHexAtoi(f[3], &count) ||
          f.size() < 4 + 2 * static_cast<size_t>(count)) {
        return absl::InvalidArgumentError(
            "expected a WordNet data line (OFFSET LEXFILE TYPE WORDCOUNT WORD LEXID ...)");
      }
      for (int k = 0; k < count; ++k) {
        std::string word(f[4 + 2 * k]);
        if (const size_t paren = word.find('('); paren != std::string::npos) word.resize(paren);
        if (word.empty() || word.find('_') != std::string::npos) continue;  // multiword entries
        const bool capitalised = std::any_of(word.begin(), word.end(), [](char c) {
          return absl::ascii_isupper(static_cast<unsigned char>(c));
        });
        const std::string key = absl::AsciiStrToLower(word);
        classes[key].insert(std::string(1, pos));
        if (pos == 'n' && capitalised) classes[key].insert("P");
        lemmas[pos].insert(key);
      }
      return absl::OkStatus();
    });
    if (!s.ok()) return s;
  }
  for (const auto& [pos, words] : lemmas) {
    for (const std::string& lemma : words) AddRegularForms(lemma, pos, &classes);
  }
  // Exception lists: "INFLECTED BASE [BASE ...]".
  for (const auto& [file, part] : std::vector<std::pair<std::string, char>>{
           {"noun.exc", 'n'}, {"verb.exc", 'v'}, {"adj.exc", 'a'}, {"adv.exc", 'r'}}) {
    const char pos = part;  // captured below (see above)
    absl::Status s = ForEachLine(dir, file, [&](std::string_view line) -> absl::Status {
      std::vector<absl::string_view> f = absl::StrSplit(ToAbsl(line), ' ', absl::SkipEmpty());
      if (f.size() < 2) return absl::InvalidArgumentError("expected INFLECTED BASE [BASE ...]");
      const std::string form = absl::AsciiStrToLower(f[0]);
      if (form.find('_') != std::string::npos || form == absl::AsciiStrToLower(f[1])) {
        return absl::OkStatus();
      }
      std::string cls;
      switch (pos) {
        case 'n':
          cls = "n-s";
          break;
        case 'v':
          cls = EndsWith(form, "ing") ? "v-ing" : EndsWith(form, "s") ? "v-s" : "v-ed";
          break;
        default:
          cls = absl::StrCat(std::string(1, pos), EndsWith(form, "st") ? "-est" : "-er");
          break;
      }
      classes[form].insert(cls);
      return absl::OkStatus();
    });
    if (!s.ok()) return s;
  }
  std::string text;
  for (const auto& [word, set] : classes) {
    if (word.find_first_of(" \t") != std::string::npos) continue;
    absl::StrAppend(&text, word, "\t");
    bool first = true;
    for (const std::string& c : set) {
      absl::StrAppend(&text, first ? "" : " ", c);
      first = false;
    }
    text.push_back('\n');
  }
  return Lexicon::Parse(text, dir);
}

}  // namespace chaintag
