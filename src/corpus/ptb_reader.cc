// Penn Treebank bracketed trees (.mrg): words and POS from pre-terminals, optional IOB2 base-NP
// chunks. Base-NP rules (see docs/formats.md) follow Ramshaw & Marcus (1995), "Text Chunking
// using Transformation-Based Learning": an NP that dominates no other NP is a chunk.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "chaintag/corpus.h"
#include "corpus/line_reader.h"
#include "corpus/reader_base.h"

namespace chaintag::corpus_internal {
namespace {

// Function tags and indices are not part of the category: NP-SBJ-1 -> NP, NP=2 -> NP.
// Labels that start with '-' (-NONE-, -LRB-) are kept whole.
std::string_view StripFunctionTags(std::string_view label) {
  if (label.empty() || label[0] == '-') return label;
  const size_t cut = label.find_first_of("-=");
  return cut == std::string_view::npos ? label : label.substr(0, cut);
}

// Treebank text escapes '/' and '*' ("1\\/2", "\\*"); CoNLL-2000 and UD write them plain.
void AssignUnescaped(std::string_view word, std::string* out) {
  out->clear();
  for (size_t i = 0; i < word.size(); ++i) {
    if (word[i] == '\\' && i + 1 < word.size() && (word[i + 1] == '/' || word[i + 1] == '*')) {
      continue;
    }
    out->push_back(word[i]);
  }
}

class PtbReader : public LineSentenceReader {
 public:
  using LineSentenceReader::LineSentenceReader;

 protected:
  absl::StatusOr<bool> ReadSentence(Sentence* s) override {
    while (true) {
      absl::StatusOr<bool> got = ParseTree();
      if (!got.ok()) return got;
      if (!*got) return false;
      if (BuildSentence(s)) return true;
      // A tree made only of empty elements has no words: not a sentence.
    }
  }

 private:
  struct Node {
    std::string label;  // category with function tags stripped; POS tags verbatim
    std::string word;
    bool preterminal = false;
    int parent = -1;
    int64_t line = 0;
    // Filled by BuildSentence.
    int begin = -1;  // first surviving word
    int end = -1;    // one past the last surviving word
    bool is_np = false;
    bool contains_np = false;  // dominates a surviving NP
  };

  // Next bracket or atom; returns false at end of input.
  absl::StatusOr<bool> NextToken(std::string_view* token, int64_t* line) {
    while (true) {
      while (!rest_.empty() && (rest_[0] == ' ' || rest_[0] == '\t')) rest_.remove_prefix(1);
      if (!rest_.empty()) break;
      absl::StatusOr<bool> got = lines_.Next(&rest_);
      if (!got.ok()) return got.status();
      if (!*got) return false;
    }
    *line = lines_.line_number();
    if (rest_[0] == '(' || rest_[0] == ')') {
      *token = rest_.substr(0, 1);
      rest_.remove_prefix(1);
      return true;
    }
    size_t n = 0;
    while (n < rest_.size() && rest_[n] != ' ' && rest_[n] != '\t' && rest_[n] != '(' &&
           rest_[n] != ')') {
      ++n;
    }
    *token = rest_.substr(0, n);
    rest_.remove_prefix(n);
    return true;
  }

  // Reads one complete bracketed tree into nodes_ (pre-order); false at end of input.
  absl::StatusOr<bool> ParseTree() {
    nodes_.clear();
    stack_.clear();
    std::string_view token;
    int64_t line = 0;
    // How much of the current node has been seen: 0 = just opened, 1 = label, 2 = word.
    std::vector<int>& seen = seen_;
    seen.clear();
    size_t words = 0;
    // Brackets without words cost memory too; a tree has far fewer nodes than this per word.
    const size_t max_nodes = 64 * max_tokens() + 1024;
    while (true) {
      absl::StatusOr<bool> got = NextToken(&token, &line);
      if (!got.ok()) return got.status();
      if (!*got) {
        if (stack_.empty()) return false;
        return lines_.Error(absl::StrCat("expected ')' to close the bracket opened at line ",
                                         nodes_[stack_.back()].line,
                                         ", found end of input (unbalanced brackets)"));
      }
      if (token == "(") {
        if (!stack_.empty()) {
          Node& parent = nodes_[stack_.back()];
          if (parent.preterminal) {
            return LineError(
                line, absl::StrCat("expected ')' after the word \"", parent.word, "\", found '('"));
          }
          seen[stack_.back()] = 2;  // no label may follow a child
        }
        if (nodes_.size() == max_nodes) {
          return LineError(line, absl::StrCat("expected at most ", max_nodes,
                                              " brackets in a tree (64 per --max-sentence-tokens), "
                                              "found more"));
        }
        Node& node = nodes_.emplace_back();
        node.parent = stack_.empty() ? -1 : stack_.back();
        node.line = line;
        stack_.push_back(static_cast<int>(nodes_.size()) - 1);
        seen.push_back(0);
      } else if (token == ")") {
        if (stack_.empty()) {
          return LineError(line, "expected '(' to start a tree, found ')' (unbalanced brackets)");
        }
        stack_.pop_back();
        if (stack_.empty()) return true;
      } else {
        if (stack_.empty()) {
          return LineError(
              line, absl::StrCat("expected '(' to start a tree, found \"", ToAbsl(token), "\""));
        }
        const int id = stack_.back();
        Node& node = nodes_[id];
        if (seen[id] == 0) {
          node.label.assign(token.data(), token.size());
          seen[id] = 1;
        } else if (seen[id] == 1) {
          if (node.label != "-NONE-" && ++words > max_tokens()) {
            return TooManyTokens(line, /*can_split=*/false);
          }
          AssignUnescaped(token, &node.word);
          node.preterminal = true;
          node.line = line;  // a word's line is where the word is written
          seen[id] = 2;
        } else {
          return LineError(line, absl::StrCat("expected ')' or '(', found \"", ToAbsl(token),
                                              "\" (a constituent holds either one word or "
                                              "bracketed children)"));
        }
      }
    }
  }

  absl::Status LineError(int64_t line, std::string_view message) const {
    return ErrorAt(lines_.name(), line, message);
  }

  // Turns nodes_ into a sentence; returns false when no word survives empty-element removal.
  bool BuildSentence(Sentence* s) {
    const int n = static_cast<int>(nodes_.size());
    int words = 0;
    for (Node& node : nodes_) {
      if (node.preterminal && node.label != "-NONE-") {
        node.begin = words;
        node.end = ++words;
      } else if (!node.preterminal) {
        node.label.assign(StripFunctionTags(node.label));
      }
    }
    if (words == 0) return false;
    // Pre-order numbering puts children after parents, so a reverse pass is a post-order pass.
    for (int i = n - 1; i >= 0; --i) {
      Node& node = nodes_[i];
      const bool survives = node.begin >= 0;
      node.is_np = survives && !node.preterminal && node.label == "NP";
      if (!survives || node.parent < 0) continue;
      Node& parent = nodes_[node.parent];
      if (parent.begin < 0 || node.begin < parent.begin) parent.begin = node.begin;
      if (node.end > parent.end) parent.end = node.end;
      if (node.is_np || node.contains_np) parent.contains_np = true;
    }
    s->columns.assign(options_.np_chunks ? 2 : 1, {});
    for (auto& column : s->columns) column.reserve(words);
    s->labels.reserve(words);
    s->token_lines.reserve(words);
    for (const Node& node : nodes_) {
      if (!node.preterminal || node.begin < 0) continue;
      s->columns[0].push_back(node.word);
      if (options_.np_chunks) {
        s->columns[1].push_back(node.label);
      } else {
        s->labels.push_back(node.label);
      }
      s->token_lines.push_back(node.line);
    }
    if (options_.np_chunks) AssignChunks(s, words);
    return true;
  }

  bool IsPossessiveNp(const Node& node) const {
    return node.is_np && node.end > 0 && pos_of_word_[node.end - 1] == "POS";
  }

  // IOB2 base-NP tags: every NP dominating no other NP is a chunk, plus the pre-head words
  // that follow a possessive NP inside a larger NP ((NP (NP John 's) big dog) -> [John 's]
  // [big dog]).
  void AssignChunks(Sentence* s, int words) {
    s->labels.assign(words, "O");
    pos_of_word_.assign(s->columns[1].begin(), s->columns[1].end());
    for (const Node& node : nodes_) {
      if (node.is_np && !node.contains_np) Mark(s, node.begin, node.end, true);
    }
    // state per parent: 0 = nothing, 1 = previous child is a possessive NP, 2 = in residual run.
    residual_state_.assign(nodes_.size(), 0);
    for (const Node& node : nodes_) {
      if (node.parent < 0 || node.begin < 0) continue;
      const Node& parent = nodes_[node.parent];
      if (!parent.is_np) continue;
      int& state = residual_state_[node.parent];
      if (IsPossessiveNp(node)) {
        state = 1;
        continue;
      }
      const bool modifier =
          !node.contains_np &&
          (node.preterminal ? (node.label != "," && node.label != ":" && node.label != "CC")
                            : (node.label == "ADJP" || node.label == "QP"));
      if (state != 0 && modifier) {
        Mark(s, node.begin, node.end, state == 1);
        state = 2;
      } else {
        state = 0;
      }
    }
  }

  static void Mark(Sentence* s, int begin, int end, bool starts) {
    for (int t = begin; t < end; ++t) {
      s->labels[t] = (t == begin && starts) ? "B-NP" : "I-NP";
    }
  }

  std::string_view rest_;
  std::vector<Node> nodes_;
  std::vector<int> stack_;
  std::vector<int> seen_;
  std::vector<int> residual_state_;
  std::vector<std::string> pos_of_word_;
};

}  // namespace

std::unique_ptr<SentenceReader> MakePtbReader(std::istream& in, std::unique_ptr<std::istream> owned,
                                              std::string name, const ReaderOptions& options) {
  return std::make_unique<PtbReader>(in, std::move(owned), std::move(name), options);
}

}  // namespace chaintag::corpus_internal
