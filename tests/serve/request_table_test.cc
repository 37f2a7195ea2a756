// POST /tag's decode fields are the request table's (tagging/request_table.h): the same names,
// defaults, range and choice checks and resulting DecodeRequest as `tag` and Python, field by
// field; only the payload ("text", "sentences") is the service's own, and a field the table does
// not offer to JSON is refused with the list of accepted ones.
#include "tagging/request_table.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "chaintag/model.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "serve/request.h"

namespace chaintag::serve {
namespace {

using json = nlohmann::json;
using ::testing::HasSubstr;

// The shipped pipeline (en-pos then en-chunk), loaded once.
const std::vector<const Model*>& Pipeline() {
  static const auto* models = [] {
    auto* out = new std::vector<const Model*>;
    for (const char* name : {"/models/en-pos.model", "/models/en-chunk.model"}) {
      auto m = Model::Load(std::string(CHAINTAG_SOURCE_DIR) + name);
      if (!m.ok()) {
        ADD_FAILURE() << m.status();
        continue;
      }
      out->push_back(new Model(*std::move(m)));
    }
    return out;
  }();
  return *models;
}

// The server's limits opened to the table's ranges, so that every check left is the table's.
RequestLimits OpenLimits() {
  RequestLimits limits;
  limits.max_kbest = std::numeric_limits<int>::max();
  limits.max_decode_memory_bytes = DecodeRequest::kDefaultMaxMemoryBytes;
  return limits;
}

// Every decode option of a request, as text (DecodeRequest has no operator==).
std::string Describe(const DecodeRequest& q) {
  std::string out = absl::StrCat(
      "kbest=", q.kbest, " diverse=", q.diverse, " min_distance=", q.min_distance,
      " chunk_diversity=", q.chunk_diversity, " score_range=", q.score_range, " [", q.score_lower,
      ", ", q.score_upper, "] resolution=", q.score_resolution, " max_states=", q.score_max_states,
      " exclusions=", q.exclusions, " probability=", q.probability, " marginals=", q.marginals,
      " marginals_min=", q.marginals_min, " forced_column=", q.forced_column,
      " memory=", q.max_memory_bytes, " latent=", static_cast<int>(q.latent_decoder),
      " ldi_max_paths=", q.ldi_max_paths, " bb_max_nodes=", q.bb_max_nodes,
      " bb_bound=", q.bb_bound, " counts=");
  for (const CountConstraint& c : q.counts) {
    absl::StrAppend(&out, c.chunks ? "chunk:" : "", absl::StrJoin(c.ids, ","), "=", c.lower, "..",
                    c.upper, ";");
  }
  if (q.collective.has_value()) {
    const CollectiveOptions& c = *q.collective;
    absl::StrAppend(&out, " collective=", static_cast<int>(c.potential),
                    " key=", static_cast<int>(c.key), " capitalised=", c.capitalised_only,
                    " unseen=", c.unseen_only, " iterations=", c.iterations, " c=", c.c,
                    " clique=", c.max_clique_nodes, " sentences=", c.max_document_sentences,
                    " tokens=", c.max_document_tokens);
  }
  return out;
}

// The request POST /tag makes of `fields` (a JSON object without the payload).
absl::StatusOr<DecodeRequest> ThroughServe(json fields) {
  fields["text"] = "The old man saw the dog.";
  auto parsed = ParseTagRequest(fields.dump(), Pipeline(), OpenLimits());
  if (!parsed.ok()) return parsed.status();
  return parsed->decode;
}

// The request the table's builder makes of `values` on `surface` (what `tag` and Python do after
// reading their own syntax).
absl::StatusOr<DecodeRequest> ThroughTable(
    RequestSurface surface, const std::vector<std::pair<std::string, RequestValue>>& values) {
  RequestBuilder builder(*Pipeline().back(), surface);
  for (const auto& [name, value] : values) {
    if (absl::Status s = builder.Set(name, value); !s.ok()) return s;
  }
  return builder.Build();
}

// A JSON value and the table's value for it.
json AsJson(const RequestValue& v) {
  if (std::holds_alternative<bool>(v)) return std::get<bool>(v);
  if (std::holds_alternative<int64_t>(v)) return std::get<int64_t>(v);
  if (std::holds_alternative<double>(v)) return std::get<double>(v);
  return std::get<std::string>(v);
}

TEST(ServeRequestTableTest, DefaultsAreTheTablesAsForTagAndPython) {
  ASSERT_EQ(Pipeline().size(), 2u);
  auto serve = ThroughServe(json::object());
  ASSERT_TRUE(serve.ok()) << serve.status();
  for (RequestSurface surface : {kCliSurface, kPythonSurface}) {
    auto table = ThroughTable(surface, {});
    ASSERT_TRUE(table.ok()) << table.status();
    EXPECT_EQ(Describe(*serve), Describe(*table)) << "surface " << surface;
  }
  // The documented defaults a client relies on, e.g. marginals_min and the memory bound.
  EXPECT_EQ(serve->marginals_min, DecodeRequest().marginals_min);
  EXPECT_EQ(serve->kbest, 0);
  EXPECT_EQ(serve->max_memory_bytes, DecodeRequest::kDefaultMaxMemoryBytes);
  EXPECT_TRUE(serve->probability);  // the pipeline's last model has probabilities
}

TEST(ServeRequestTableTest, EveryNumberChoiceAndSwitchChecksAndLandsAsInTheTable) {
  ASSERT_EQ(Pipeline().size(), 2u);
  int checked = 0;
  for (const RequestField& f : RequestFields()) {
    if (!f.on(kJsonSurface)) continue;
    const std::string name(f.name);
    // Collective options need "collective" (and refuse kbest); the rest stand alone.
    std::vector<std::pair<std::string, RequestValue>> base;
    if (f.group == "collective" && name != "collective") base.push_back({"collective", "potts"});
    std::vector<RequestValue> good, bad;
    switch (f.type) {
      case RequestFieldType::kInt:
        good = {static_cast<int64_t>(f.min), static_cast<int64_t>(f.max)};
        bad = {static_cast<int64_t>(f.min) - 1, static_cast<int64_t>(f.max) + 1};
        break;
      case RequestFieldType::kNumber:
        good = {f.min_exclusive ? f.min + 0.5 : f.min};
        bad = {f.min_exclusive ? f.min : f.min - 0.5};
        if (std::isfinite(f.max)) {
          good.push_back(f.max);
          bad.push_back(f.max + 1);
        }
        break;
      case RequestFieldType::kChoice:
        for (const std::string& c :
             std::vector<std::string>(absl::StrSplit(std::string(f.choices), '|'))) {
          if (c != "majority") good.push_back(c);  // needs a training file (refused: below)
        }
        bad = {std::string("no-such-choice")};
        break;
      case RequestFieldType::kBool:
        good = {true, false};
        break;
      default:
        continue;  // structured values: their own tests (server_test.cc)
    }
    // The server's memory bound (--decode-memory-mb, 512 by default) is below the table's.
    if (name == "max_memory_mb") good.back() = OpenLimits().max_decode_memory_bytes >> 20;
    // The surfaces besides JSON that offer the field (and the base fields).
    std::vector<RequestSurface> surfaces;
    for (RequestSurface s : {kCliSurface, kPythonSurface}) {
      if (f.on(s) && (base.empty() || FindRequestField("collective")->on(s))) surfaces.push_back(s);
    }
    ASSERT_FALSE(surfaces.empty()) << name;
    auto body_for = [&](const RequestValue& v) {
      json body = json::object();
      for (const auto& [n, x] : base) body[n] = AsJson(x);
      body[name] = AsJson(v);
      return body;
    };
    for (const RequestValue& v : good) {
      auto values = base;
      values.push_back({name, v});
      auto serve = ThroughServe(body_for(v));
      for (RequestSurface surface : surfaces) {
        auto table = ThroughTable(surface, values);
        ASSERT_EQ(serve.ok(), table.ok())
            << body_for(v).dump() << ": serve " << serve.status() << ", table " << table.status();
        if (serve.ok()) {
          EXPECT_EQ(Describe(*serve), Describe(*table)) << body_for(v).dump();
        }
      }
      ++checked;
    }
    for (const RequestValue& v : bad) {
      auto values = base;
      values.push_back({name, v});
      auto serve = ThroughServe(body_for(v));
      ASSERT_FALSE(serve.ok()) << body_for(v).dump();
      EXPECT_TRUE(absl::IsInvalidArgument(serve.status()));
      // The same words as Python (same spelling) and as `tag` (which spells it --option).
      for (RequestSurface surface : surfaces) {
        auto table = ThroughTable(surface, values);
        ASSERT_FALSE(table.ok()) << body_for(v).dump();
        EXPECT_EQ(
            serve.status().message(),
            absl::StrReplaceAll(table.status().message(), {{"--" + std::string(f.option), name}}))
            << body_for(v).dump();
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 40);
}

TEST(ServeRequestTableTest, StructuredFieldsLandAsTheTablesValues) {
  ASSERT_EQ(Pipeline().size(), 2u);
  // counts in the JSON shapes (an object iterates in key order) and as the --count specs; a score
  // range as a pair and as A..B.
  auto serve = ThroughServe(json::parse(R"({"marginals": true, "counts": {"chunk:NP": [1, 2],
      "B-VP": 1, "I-NP": [null, 4]}, "score_range": [null, 110]})"));
  auto table = ThroughTable(
      kCliSurface, {{"marginals", true},
                    {"counts", std::vector<std::string>{"B-VP=1", "I-NP=..4", "chunk:NP=1..2"}},
                    {"score_range", std::string("..110")}});
  ASSERT_TRUE(serve.ok()) << serve.status();
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_EQ(Describe(*serve), Describe(*table));
  auto as_text = ThroughServe(json::parse(
      R"({"marginals": true, "counts": ["B-VP=1", "I-NP=..4", "chunk:NP=1..2"], "score_range": "..110"})"));
  ASSERT_TRUE(as_text.ok()) << as_text.status();
  EXPECT_EQ(Describe(*as_text), Describe(*table));
  // The same bad count and range, refused in the same words.
  auto bad_count = ThroughServe(json::parse(R"({"counts": {"chunk:XX": [1, 2]}})"));
  auto bad_count_table =
      ThroughTable(kPythonSurface, {{"counts", std::vector<std::string>{"chunk:XX=1..2"}}});
  ASSERT_FALSE(bad_count.ok());
  ASSERT_FALSE(bad_count_table.ok());
  EXPECT_EQ(bad_count.status().message(), bad_count_table.status().message());
  auto bad_range = ThroughServe(json::parse(R"({"score_range": [2, 1]})"));
  auto bad_range_table = ThroughTable(kPythonSurface, {{"score_range", ScoreBounds{2, 1}}});
  ASSERT_FALSE(bad_range.ok());
  ASSERT_FALSE(bad_range_table.ok());
  EXPECT_EQ(bad_range.status().message(), bad_range_table.status().message());
  // Exclusions switch the table's exclude on; the labelings go to the sentence.
  auto excluded = ParseTagRequest(R"({"text": "The dog barked.",
      "exclude": [["B-NP", "I-NP", "B-VP", "O"]]})",
                                  Pipeline(), OpenLimits());
  ASSERT_TRUE(excluded.ok()) << excluded.status();
  EXPECT_TRUE(excluded->decode.exclusions);
  ASSERT_EQ(excluded->inputs.size(), 1u);
  EXPECT_EQ(excluded->inputs[0].excluded,
            (std::vector<std::vector<std::string>>{{"B-NP", "I-NP", "B-VP", "O"}}));
}

TEST(ServeRequestTableTest, TheServersLimitsNarrowTheTablesRanges) {
  ASSERT_EQ(Pipeline().size(), 2u);
  RequestLimits limits;
  limits.max_kbest = 5;
  limits.max_decode_memory_bytes = int64_t{64} << 20;
  auto at_limit =
      ParseTagRequest(R"({"text": "a", "kbest": 5, "max_memory_mb": 64})", Pipeline(), limits);
  ASSERT_TRUE(at_limit.ok()) << at_limit.status();
  EXPECT_EQ(at_limit->decode.max_memory_bytes, int64_t{64} << 20);
  auto defaulted = ParseTagRequest(R"({"text": "a"})", Pipeline(), limits);
  ASSERT_TRUE(defaulted.ok()) << defaulted.status();
  EXPECT_EQ(defaulted->decode.max_memory_bytes, int64_t{64} << 20);  // --decode-memory-mb
  auto beyond = ParseTagRequest(R"({"text": "a", "diverse": 6})", Pipeline(), limits);
  ASSERT_FALSE(beyond.ok());
  EXPECT_EQ(beyond.status().message(), "diverse: expected an integer from 0 to 5, found 6");
  // Below the table's minimum the table speaks, as for `tag`.
  auto below = ParseTagRequest(R"({"text": "a", "diverse": -1})", Pipeline(), limits);
  ASSERT_FALSE(below.ok());
  EXPECT_EQ(below.status().message(), "diverse must be >= 0");
}

TEST(ServeRequestTableTest, UnknownAndNonJsonFieldsAreRefusedListingTheTablesFields) {
  ASSERT_EQ(Pipeline().size(), 2u);
  std::vector<std::string> expected = {"text", "sentences"};
  for (const RequestField& f : RequestFields()) {
    if (f.on(kJsonSurface)) expected.emplace_back(f.name);
  }
  EXPECT_EQ(TagRequestFields(), expected);
  for (const char* unknown : {"kbset", "min-distance", "count", "score-range"}) {
    auto r = ParseTagRequest(absl::StrCat(R"({"text": "a", ")", unknown, R"(": 1})"), Pipeline(),
                             OpenLimits());
    ASSERT_FALSE(r.ok()) << unknown;
    EXPECT_TRUE(absl::IsInvalidArgument(r.status()));
    EXPECT_EQ(r.status().message(),
              absl::StrCat("unknown field \"", unknown, "\"; expected one of ",
                           absl::StrJoin(expected, ", ")));
  }
  // The table's fields that name files or columns on the server are not the JSON surface's.
  for (const RequestField& f : RequestFields()) {
    if (f.on(kJsonSurface)) continue;
    auto r = ParseTagRequest(absl::StrCat(R"({"text": "a", "collective": "potts", ")",
                                          std::string(f.name), R"(": "x"})"),
                             Pipeline(), OpenLimits());
    ASSERT_FALSE(r.ok()) << f.name;
    EXPECT_THAT(r.status().message(), HasSubstr("cannot name files or columns on the server"));
  }
  auto majority =
      ParseTagRequest(R"({"text": "a", "collective": "majority"})", Pipeline(), OpenLimits());
  ASSERT_FALSE(majority.ok());
  EXPECT_THAT(majority.status().message(), HasSubstr("use \"potts\""));
  // A collective option without "collective" is refused, as by `tag` and Python.
  auto alone =
      ParseTagRequest(R"({"text": "a", "collective_lambda": 2})", Pipeline(), OpenLimits());
  ASSERT_FALSE(alone.ok());
  EXPECT_EQ(alone.status().message(), "collective_lambda needs collective (potts|majority)");
}

}  // namespace
}  // namespace chaintag::serve
