// Library messages name the command line's options ("--kbest must be >= 0"); Python users know
// them as keyword arguments ("kbest must be >= 0"). This is the one place that maps one to the
// other: a flag becomes its keyword (dashes to underscores) unless the table below says otherwise.
#include <cctype>
#include <string>
#include <string_view>

#include "python/convert.h"

namespace chaintag::python {

namespace {

struct Rename {
  std::string_view flag;     // without the leading "--"
  std::string_view keyword;  // what Python calls it
  bool quote_value;          // the word after the flag is a value: keyword='value'
};

constexpr Rename kRenames[] = {
    {"count", "counts", false},
    {"forced-column", "forced", false},
    {"marginals", "marginals=True", false},
    {"algorithm", "algorithm", true},
    {"objective", "objective", true},
    {"loss", "loss", true},
    {"collective", "collective", true},
    {"latent-decoder", "latent_decoder", false},
    {"preset", "preset", true},
    {"format", "format", true},
};

bool FlagChar(char c) {
  return std::islower(static_cast<unsigned char>(c)) || c == '-' ||
         std::isdigit(static_cast<unsigned char>(c));
}

}  // namespace

std::string KeywordText(std::string_view message) {
  std::string out;
  out.reserve(message.size());
  size_t i = 0;
  while (i < message.size()) {
    const bool boundary = i == 0 || message[i - 1] == ' ' || message[i - 1] == '(' ||
                          message[i - 1] == '"' || message[i - 1] == '\'' || message[i - 1] == ',';
    if (!boundary || message.compare(i, 2, "--") != 0 || i + 2 >= message.size() ||
        !std::islower(static_cast<unsigned char>(message[i + 2]))) {
      out += message[i++];
      continue;
    }
    size_t end = i + 2;
    while (end < message.size() && FlagChar(message[end])) ++end;
    while (end > i + 2 && message[end - 1] == '-') --end;
    const std::string_view flag = message.substr(i + 2, end - i - 2);
    const Rename* rename = nullptr;
    for (const Rename& r : kRenames) {
      if (r.flag == flag) rename = &r;
    }
    if (rename == nullptr) {
      for (char c : flag) out += c == '-' ? '_' : c;
      i = end;
      continue;
    }
    out += rename->keyword;
    i = end;
    // "--algorithm owlqn" -> "algorithm='owlqn'" (a value is a word of lower-case letters).
    if (rename->quote_value && i + 1 < message.size() && message[i] == ' ' &&
        std::islower(static_cast<unsigned char>(message[i + 1]))) {
      size_t v = i + 1;
      while (v < message.size() && (std::isalnum(static_cast<unsigned char>(message[v])) ||
                                    message[v] == '-' || message[v] == '_' || message[v] == ':'))
        ++v;
      const std::string_view value = message.substr(i + 1, v - i - 1);
      static constexpr std::string_view kWords[] = {
          "and", "or", "needs", "is", "must", "with", "not", "for", "only", "takes", "expects"};
      bool word = false;
      for (std::string_view w : kWords) word |= value == w;
      if (!word) {
        out += "='";
        out += value;
        out += "'";
        i = v;
      }
    }
  }
  return out;
}

}  // namespace chaintag::python
