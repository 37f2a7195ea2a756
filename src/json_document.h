// Internal: strict JSON documents with nlohmann-json (clique JSON lines, the service's requests).
// On top of RFC 8259 as nlohmann checks it (UTF-8, escapes, surrogates): nesting and value count
// capped, duplicate keys and non-finite numbers refused, and errors say where and what was
// expected ("invalid JSON at line 1, column 12: ...").
#ifndef CHAINTAG_JSON_DOCUMENT_H_
#define CHAINTAG_JSON_DOCUMENT_H_

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "json_string.h"
#include "nlohmann/json.hpp"

namespace chaintag {

struct JsonLimits {
  int max_depth = 16;
  int64_t max_values = 1000000;
};

namespace json_internal {

// Builds the document like nlohmann's own DOM parser (an explicit stack, so deep input cannot
// exhaust the call stack) and stops at the first violation of JsonLimits.
class StrictBuilder : public nlohmann::json_sax<nlohmann::json> {
 public:
  using json = nlohmann::json;
  StrictBuilder(json* root, const JsonLimits& limits) : root_(root), limits_(limits) {}

  bool null() override { return Put(json(nullptr)); }
  bool boolean(bool v) override { return Put(json(v)); }
  bool number_integer(number_integer_t v) override { return Put(json(v)); }
  bool number_unsigned(number_unsigned_t v) override { return Put(json(v)); }
  bool number_float(number_float_t v, const string_t&) override {
    if (!std::isfinite(v)) return Fail("number out of range");
    return Put(json(v));
  }
  bool string(string_t& v) override { return Put(json(std::move(v))); }
  bool binary(binary_t&) override { return Fail("binary values are not JSON"); }
  bool start_object(std::size_t) override { return Open(json::object()); }
  bool key(string_t& k) override {
    if (stack_.back()->contains(k)) return Fail(absl::StrCat("duplicate key ", JsonString(k)));
    key_ = std::move(k);
    return true;
  }
  bool end_object() override { return Close(); }
  bool start_array(std::size_t) override { return Open(json::array()); }
  bool end_array() override { return Close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    // "[json.exception.parse_error.101] parse error at line 1, column 5: ..." without the tag.
    std::string what = e.what();
    if (const size_t at = what.find("] ");
        what.rfind("[json.exception", 0) == 0 && at != std::string::npos) {
      what.erase(0, at + 2);
    }
    if (what.rfind("parse error ", 0) == 0) what.erase(0, 12);  // then "at line L, column C: ..."
    error_ = absl::StrCat("invalid JSON", what.rfind("at ", 0) == 0 ? " " : ": ", what);
    return false;
  }

  const std::string& error() const { return error_; }

 private:
  bool Fail(std::string what) {
    error_ = absl::StrCat("invalid JSON: ", what);
    return false;
  }
  bool Count() { return ++values_ <= limits_.max_values; }
  json* Place(json&& v) {
    if (stack_.empty()) {
      *root_ = std::move(v);
      return root_;
    }
    json& top = *stack_.back();
    if (top.is_object()) return &(top[key_] = std::move(v));
    top.push_back(std::move(v));
    return &top.back();
  }
  bool Put(json&& v) {
    if (!Count()) return Fail(absl::StrCat("more than ", limits_.max_values, " values"));
    Place(std::move(v));
    return true;
  }
  bool Open(json&& v) {
    if (!Count()) return Fail(absl::StrCat("more than ", limits_.max_values, " values"));
    if (static_cast<int>(stack_.size()) >= limits_.max_depth) {
      return Fail(absl::StrCat("nesting deeper than ", limits_.max_depth, " levels"));
    }
    stack_.push_back(Place(std::move(v)));
    return true;
  }
  bool Close() {
    stack_.pop_back();
    return true;
  }

  json* root_;
  JsonLimits limits_;
  std::vector<json*> stack_;
  std::string key_;
  int64_t values_ = 0;
  std::string error_;
};

}  // namespace json_internal

// Parses one JSON document (the whole of `text`; trailing text is an error).
inline absl::StatusOr<nlohmann::json> ParseJsonDocument(std::string_view text,
                                                        const JsonLimits& limits = {}) {
  nlohmann::json root;
  json_internal::StrictBuilder builder(&root, limits);
  const bool ok = nlohmann::json::sax_parse(text.begin(), text.end(), &builder,
                                            nlohmann::json::input_format_t::json,
                                            /*strict=*/true, /*ignore_comments=*/false);
  if (!ok) {
    return absl::InvalidArgumentError(builder.error().empty() ? "invalid JSON" : builder.error());
  }
  return root;
}

// The JSON type name of a value, for messages ("expected a string, found an array").
inline const char* JsonTypeName(const nlohmann::json& v) {
  switch (v.type()) {
    case nlohmann::json::value_t::null:
      return "null";
    case nlohmann::json::value_t::boolean:
      return "a boolean";
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
      return "an integer";
    case nlohmann::json::value_t::number_float:
      return "a number";
    case nlohmann::json::value_t::string:
      return "a string";
    case nlohmann::json::value_t::array:
      return "an array";
    case nlohmann::json::value_t::object:
      return "an object";
    default:
      return "a value";
  }
}

}  // namespace chaintag

#endif  // CHAINTAG_JSON_DOCUMENT_H_
