// Internal: the one JSON string escaper (eval reports, info, stats, tag --output-format jsonl).
#ifndef CHAINTAG_JSON_STRING_H_
#define CHAINTAG_JSON_STRING_H_

#include <cstdio>
#include <string>
#include <string_view>

namespace chaintag {

// Appends `text` as a JSON string literal (RFC 8259): quotes, backslashes and control characters
// escaped; other bytes (valid UTF-8 is the caller's to ensure) copied as they are.
inline void AppendJsonString(std::string_view text, std::string* out) {
  out->push_back('"');
  for (unsigned char c : text) {
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      case '\b':
        out->append("\\b");
        break;
      case '\f':
        out->append("\\f");
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out->append(buf);
        } else {
          out->push_back(static_cast<char>(c));
        }
    }
  }
  out->push_back('"');
}

inline std::string JsonString(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  AppendJsonString(text, &out);
  return out;
}

}  // namespace chaintag

#endif  // CHAINTAG_JSON_STRING_H_
