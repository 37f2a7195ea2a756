// The model pipeline and the dispatch of a DecodeRequest to the decoders of the last model.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <memory>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "chaintag/tagging.h"
#include "collective/collective.h"
#include "model/family.h"
#include "tagging/request_table.h"
#include "worker_threads.h"

namespace chaintag {

class Pipeline::Impl {
 public:
  Impl(const std::vector<const Model*>& models, const DecodeRequest& request,
       std::string exclude_file)
      : models_(models),
        request_(request),
        exclude_file_(std::move(exclude_file)),
        chunk_table_(models.back()->labels()) {
    for (const Model* m : models) taggers_.emplace_back(*m);
  }
  void Run(TagResult* r) { RunModels(r, nullptr); }
  void RunDocument(absl::Span<TagResult> document, DocumentReport* report);

 private:
  // Runs every model but the last; the last one tags (RunLast) or, when `last_lattice` is given,
  // only builds its lattice there.
  void RunModels(TagResult* r, Lattice* last_lattice);
  absl::Status RunDocumentJointly(absl::Span<TagResult> document, DocumentReport* report);
  // Decodes the request with the last model's family (model/family.h).
  absl::Status RunLast(const Sentence& input, TagResult* r);
  // Reads TagResult::forced (from the forced column first) into label ids of the last model for
  // a sentence of `m` tokens; empty when there are none.
  absl::Status ResolveForced(TagResult* r, int m, std::vector<int>* ids);

  std::vector<const Model*> models_;
  DecodeRequest request_;
  std::string exclude_file_;
  std::vector<Tagger> taggers_;
  ChunkTable chunk_table_;
  Sentence stage_;
  // Per count constraint: the clamped upper bound and the statistic built for it.
  std::vector<std::pair<int, std::unique_ptr<Statistic>>> count_statistics_;
  ViterbiScratch viterbi_;
  ForwardBackwardScratch forward_backward_;
  std::vector<Lattice> document_lattices_;
};

Pipeline::Pipeline(const std::vector<const Model*>& models, const DecodeRequest& request,
                   std::string exclude_file)
    : impl_(std::make_unique<Impl>(models, request, std::move(exclude_file))) {}
Pipeline::~Pipeline() = default;
Pipeline::Pipeline(Pipeline&&) noexcept = default;
Pipeline& Pipeline::operator=(Pipeline&&) noexcept = default;

void Pipeline::Run(TagResult* r) { impl_->Run(r); }

void Pipeline::RunDocument(absl::Span<TagResult> document, DocumentReport* report) {
  impl_->RunDocument(document, report);
}

void Pipeline::Impl::RunModels(TagResult* r, Lattice* last_lattice) {
  for (size_t k = 0; k < taggers_.size(); ++k) {
    const Sentence* input = &r->sentence;
    if (k > 0) {
      // The word column plus the previous models' predictions. The word column, lines and file
      // name are borrowed from the sentence (swapped in and back), not copied.
      stage_.columns.resize(1 + k);
      stage_.columns[0].swap(r->sentence.columns[0]);
      stage_.token_lines.swap(r->sentence.token_lines);
      stage_.file.swap(r->sentence.file);
      const Model& prev = *models_[k - 1];
      auto& col = stage_.columns[k];
      const std::vector<int>& layer = r->layers[k - 1];
      // Assigning into kept strings reuses their buffers: no allocation per token once warm.
      col.resize(layer.size());
      for (size_t t = 0; t < layer.size(); ++t) col[t] = prev.labels()[layer[t]];
      input = &stage_;
    }
    absl::Status status;
    if (k + 1 == taggers_.size()) {
      if (last_lattice != nullptr) {
        r->label_names = &models_.back()->labels();
        status = taggers_.back().BuildLattice(*input, last_lattice);
      } else {
        status = RunLast(*input, r);
      }
    } else if (auto labeling = taggers_[k].Tag(*input); labeling.ok()) {
      r->layers.push_back(std::move(labeling->labels));
      std::vector<std::string_view>& names = r->layer_names.emplace_back();
      names.reserve(r->layers.back().size());
      for (int y : r->layers.back()) names.push_back(models_[k]->labels()[y]);
    } else {
      status = labeling.status();
    }
    if (k > 0) {
      stage_.columns[0].swap(r->sentence.columns[0]);
      stage_.token_lines.swap(r->sentence.token_lines);
      stage_.file.swap(r->sentence.file);
    }
    if (!status.ok()) {
      r->error = status;
      return;
    }
  }
}

absl::Status Pipeline::Impl::ResolveForced(TagResult* r, int m, std::vector<int>* ids) {
  const Sentence& s = r->sentence;
  if (request_.forced_column >= 0 && r->forced.empty()) {
    if (request_.forced_column >= s.num_columns()) {
      return ErrorAt(s, 0,
                     absl::StrCat("expected a forced-label column ", request_.forced_column + 1,
                                  ", found ", s.num_columns(), " columns"));
    }
    r->forced = s.columns[request_.forced_column];
  }
  ids->clear();
  if (r->forced.empty()) return absl::OkStatus();
  if (static_cast<int>(r->forced.size()) != m) {
    return ErrorAt(s, 0, absl::StrCat("expected ", m, " forced labels, found ", r->forced.size()));
  }
  const Model& model = *models_.back();
  ids->assign(r->forced.size(), -1);
  for (size_t t = 0; t < r->forced.size(); ++t) {
    if (r->forced[t] == "_") continue;
    (*ids)[t] = model.LabelId(r->forced[t]);
    if ((*ids)[t] < 0) {
      return ErrorAt(s, static_cast<int64_t>(t),
                     absl::StrCat("expected a label of the model or '_' in the forced-label "
                                  "column, found '",
                                  r->forced[t], "'"));
    }
  }
  return absl::OkStatus();
}

absl::Status Pipeline::Impl::RunLast(const Sentence& input, TagResult* r) {
  Family& family = taggers_.back().family();
  const Model& model = *models_.back();
  r->label_names = &model.labels();
  // Refused again for callers that skip RequestBuilder (exclusions may come per sentence).
  if (absl::Status s =
          CheckSupported(model, request_, request_.exclusions || !r->excluded.empty(), kCliSurface);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = family.Prepare(input); !s.ok()) return s;
  const int m = family.size();
  SentenceConstraints resolved;
  if (absl::Status s = ResolveForced(r, m, &resolved.forced); !s.ok()) return s;

  // Count constraints, with bounds clamped to what a sentence of M tokens can hold (at most M
  // labels or chunks), so huge bounds cost nothing and unreachable ones are infeasible at once.
  // A statistic is rebuilt only when the clamped bound differs from the previous sentence's.
  count_statistics_.resize(request_.counts.size());
  for (size_t i = 0; i < request_.counts.size(); ++i) {
    const CountConstraint& c = request_.counts[i];
    if (c.lower > m) {
      resolved.infeasible = true;
      continue;
    }
    const int upper = c.upper < 0 || c.upper >= m ? -1 : c.upper;
    if (c.lower == 0 && upper < 0) continue;  // always satisfied
    auto& [cached_upper, statistic] = count_statistics_[i];
    if (statistic == nullptr || cached_upper != upper) {
      cached_upper = upper;
      if (c.chunks) {
        statistic = std::make_unique<ChunkCountStatistic>(chunk_table_, c.ids, c.lower, upper);
      } else {
        statistic =
            std::make_unique<LabelCountStatistic>(model.num_labels(), c.ids, c.lower, upper);
      }
    }
    resolved.counts.push_back(statistic.get());
  }

  for (const auto& labels : r->excluded) {
    if (static_cast<int>(labels.size()) != input.size()) {
      return ErrorAt(exclude_file_, r->exclude_line,
                     absl::StrCat("expected labelings of ", input.size(),
                                  " labels (the sentence's length), found ", labels.size()));
    }
    std::vector<int> ids;
    for (const std::string& label : labels) {
      const int y = model.LabelId(label);
      if (y < 0) {
        return ErrorAt(exclude_file_, r->exclude_line,
                       absl::StrCat("expected a label of the model, found '", label, "'"));
      }
      ids.push_back(y);
    }
    resolved.excluded.push_back(std::move(ids));
  }
  resolved.chunks = &chunk_table_;
  return family.Decode(request_, std::move(resolved), r);
}

void Pipeline::Impl::RunDocument(absl::Span<TagResult> document, DocumentReport* report) {
  if (document.empty()) return;
  if (absl::Status s = RunDocumentJointly(document, report); !s.ok()) {
    if (document[0].error.ok()) document[0].error = s;
  }
}

absl::Status Pipeline::Impl::RunDocumentJointly(absl::Span<TagResult> document,
                                                DocumentReport* report) {
  const CollectiveOptions& options = *request_.collective;
  const Model& model = *models_.back();
  const int m = model.num_labels();
  if (absl::Status s = CheckCollectiveRequest(model, request_); !s.ok()) return s;
  document_lattices_.resize(document.size());
  report->sentences = static_cast<int>(document.size());
  report->tokens = 0;
  for (size_t i = 0; i < document.size(); ++i) {
    RunModels(&document[i], &document_lattices_[i]);
    if (!document[i].error.ok()) return absl::OkStatus();  // reported by the sentence
    report->tokens += document[i].sentence.size();
  }
  // Cliques: the occurrences of every key (after the filters), in document order, split into
  // pieces of at most max_clique_nodes.
  std::optional<SeenWordTest> seen;
  if (options.unseen_only) {
    auto test = SeenWordTest::ForModel(model);
    if (!test.ok()) return test.status();
    seen = *std::move(test);
  }
  absl::flat_hash_map<std::string, std::vector<std::pair<int, int>>> groups;
  std::vector<std::string> order;  // keys in order of first occurrence (deterministic cliques)
  for (size_t i = 0; i < document.size(); ++i) {
    const Sentence& s = document[i].sentence;
    for (int t = 0; t < s.size(); ++t) {
      const std::string& word = s.word(t);
      if (options.capitalised_only && !IsCapitalised(word)) continue;
      if (seen.has_value() && seen->Seen(word)) continue;
      auto [it, inserted] = groups.try_emplace(CollectiveWordKey(word, options.key));
      if (inserted) order.push_back(it->first);
      it->second.emplace_back(static_cast<int>(i), t);
    }
  }
  std::vector<DocumentClique> cliques;
  std::vector<std::vector<double>> w;
  if (options.potential == CollectivePotentialKind::kMajority) {
    w.assign(m, std::vector<double>(m));
    for (int a = 0; a < m; ++a) {
      for (int y = 0; y < m; ++y) {
        w[a][y] = options.c * options.majority_weights[static_cast<size_t>(a) * m + y];
      }
    }
  }
  for (const std::string& key : order) {
    const std::vector<std::pair<int, int>>& nodes = groups[key];
    for (size_t begin = 0; begin < nodes.size(); begin += options.max_clique_nodes) {
      const size_t end = std::min(nodes.size(), begin + options.max_clique_nodes);
      const int n = static_cast<int>(end - begin);
      if (n < 2) continue;
      absl::StatusOr<CliquePotential> potential =
          options.potential == CollectivePotentialKind::kPotts
              ? CliquePotential::Potts(options.c / n, m, n)
              : CliquePotential::Majority(w);
      if (!potential.ok()) return potential.status();
      cliques.push_back(DocumentClique{
          std::vector<std::pair<int, int>>(nodes.begin() + begin, nodes.begin() + end),
          *std::move(potential)});
      report->clique_sizes.push_back(n);
    }
  }
  CollectiveDecodeOptions decode;
  decode.max_iterations = options.iterations;
  absl::StatusOr<CollectiveDecodeResult> result =
      CollectiveDecode(document_lattices_, cliques, decode);
  std::vector<std::vector<int>> labels;
  if (result.ok()) {
    report->iterations = result->iterations;
    report->converged = result->converged;
    report->plain_objective = result->plain_objective;
    report->objective = result->objective;
    for (size_t i = 0; i < document.size(); ++i) {
      for (size_t t = 0; t < result->labels[i].size(); ++t) {
        report->changed_tokens += result->labels[i][t] != result->plain_labels[i][t];
      }
    }
    labels = std::move(result->labels);
  } else if (IsInfeasible(result.status())) {
    for (TagResult& r : document) r.status = SentenceStatus::kInfeasible;
    return absl::OkStatus();
  } else if (result.status().code() == absl::StatusCode::kResourceExhausted) {
    // A clique too costly for its max-marginals: the sentences are tagged one by one.
    report->warning = absl::StrCat("tagged sentence by sentence: ", result.status().message());
    report->clique_sizes.clear();
    for (size_t i = 0; i < document.size(); ++i) {
      auto best = ViterbiDecode(document_lattices_[i], &viterbi_);
      if (!best.ok()) return best.status();
      labels.push_back(std::move(best->labels));
    }
  } else {
    return result.status();
  }
  for (size_t i = 0; i < document.size(); ++i) {
    TagResult& r = document[i];
    const Lattice& lattice = document_lattices_[i];
    double log_z = 0.0;
    if (request_.marginals) {
      auto marginals = ForwardBackward(lattice, &forward_backward_);
      if (!marginals.ok()) return marginals.status();
      log_z = marginals->log_z;
      r.marginals = std::move(marginals->unary);
    } else if (request_.probability) {
      auto z = LogPartition(lattice, &forward_backward_);
      if (!z.ok()) return z.status();
      log_z = *z;
    }
    Solution solution;
    solution.labels = std::move(labels[i]);
    solution.score = lattice.Score(solution.labels);
    solution.probability = request_.probability ? std::exp(solution.score - log_z) : 0.0;
    for (int y : solution.labels) solution.names.push_back(model.labels()[y]);
    r.solutions.push_back(std::move(solution));
  }
  return absl::OkStatus();
}

BatchTagger::BatchTagger(const std::vector<const Model*>& models, const DecodeRequest& request,
                         int threads, Sink sink, std::string exclude_file, size_t batch_size)
    : sink_(std::move(sink)),
      batch_size_(std::max<size_t>(batch_size, 1)),
      collective_(request.collective) {
  if (threads > 1) {
    pool_ = std::make_unique<WorkerPool>(threads);
    threads = pool_->size();
    if (threads == 0) pool_.reset();  // no thread to be had: tag on the caller's thread
  }
  for (int i = 0; i < std::max(threads, 1); ++i) {
    pipelines_.push_back(std::make_unique<Pipeline>(models, request, exclude_file));
  }
}

absl::Status BatchTagger::Add(TagResult result) {
  if (!collective_.has_value()) {
    batch_.push_back(std::move(result));
    units_.push_back(Unit{batch_.size() - 1, batch_.size(), nullptr});
    if (batch_.size() >= batch_size_) return TagBatch();
    return absl::OkStatus();
  }
  // Collective tagging: a document is queued whole, and the batch is tagged between documents.
  if (result.sentence.new_document || !open_) {
    CloseDocument();
    if (batch_.size() >= batch_size_) {
      if (absl::Status s = TagBatch(); !s.ok()) return s;
    }
    open_ = true;
    overflow_ = false;
    open_begin_ = batch_.size();
    open_tokens_ = 0;
    ++documents_;
  }
  open_tokens_ += result.sentence.size();
  batch_.push_back(std::move(result));
  const int64_t sentences = static_cast<int64_t>(batch_.size() - open_begin_);
  if (!overflow_ && (sentences > collective_->max_document_sentences ||
                     open_tokens_ > collective_->max_document_tokens)) {
    // Too large to hold: this document is tagged sentence by sentence, with a warning.
    overflow_ = true;
    ++fallback_documents_;
  }
  if (overflow_) {
    auto report = std::make_shared<DocumentReport>();
    report->index = documents_ - 1;
    report->warning =
        absl::StrCat("document larger than --collective-max-sentences ",
                     collective_->max_document_sentences, " or --collective-max-tokens ",
                     collective_->max_document_tokens, ": tagged sentence by sentence");
    for (size_t i = open_begin_; i < batch_.size(); ++i) {
      units_.push_back(Unit{i, i + 1, report});
    }
    open_begin_ = batch_.size();
    if (batch_.size() >= batch_size_) return TagBatch();
  }
  return absl::OkStatus();
}

void BatchTagger::CloseDocument() {
  if (!open_) return;
  if (open_begin_ < batch_.size()) {
    auto report = std::make_shared<DocumentReport>();
    report->index = documents_ - 1;
    units_.push_back(Unit{open_begin_, batch_.size(), std::move(report)});
  }
  open_begin_ = batch_.size();
}

absl::Status BatchTagger::Flush() {
  CloseDocument();
  open_ = false;
  if (absl::Status s = TagBatch(); !s.ok()) return s;
  return Drain();
}

BatchTagger::~BatchTagger() {
  if (tagging_) {
    try {
      pool_->Wait();
    } catch (...) {  // the error was not asked for: the stream is being abandoned
    }
  }
}

void BatchTagger::TagUnits(std::vector<TagResult>* results, const std::vector<Unit>& units,
                           int worker) {
  std::vector<TagResult>& batch = *results;
  Pipeline& pipeline = *pipelines_[worker];
  for (size_t i = next_unit_++; i < units.size(); i = next_unit_++) {
    const Unit& unit = units[i];
    if (unit.document == nullptr) {
      pipeline.Run(&batch[unit.begin]);
    } else if (!unit.document->warning.empty()) {
      pipeline.Run(&batch[unit.begin]);  // a document too large: sentence by sentence
    } else {
      pipeline.RunDocument(absl::MakeSpan(batch).subspan(unit.begin, unit.end - unit.begin),
                           unit.document.get());
    }
    for (size_t k = unit.begin; k < unit.end; ++k) {
      batch[k].document = unit.document;
      batch[k].document_first = false;
    }
  }
}

absl::Status BatchTagger::Drain() {
  if (tagging_) {
    tagging_ = false;
    try {
      pool_->Wait();
    } catch (...) {
      inflight_.clear();
      inflight_units_.clear();
      throw;
    }
  }
  for (const Unit& unit : inflight_units_) {
    if (unit.document != nullptr) inflight_[unit.begin].document_first = true;
  }
  absl::Status status = absl::OkStatus();
  for (const TagResult& r : inflight_) {
    if (!r.error.ok()) {
      status = r.error;
      break;
    }
    if (r.status == SentenceStatus::kTooLarge) ++too_large_;
    status = sink_(r);
    if (!status.ok()) break;
    ++sentences_;
    tokens_ += r.sentence.size();
  }
  inflight_.clear();
  inflight_units_.clear();
  return status;
}

absl::Status BatchTagger::TagBatch() {
  if (batch_.empty()) return absl::OkStatus();
  if (absl::Status s = Drain(); !s.ok()) return s;
  inflight_.swap(batch_);
  inflight_units_.swap(units_);
  open_begin_ = 0;
  // Workers take units (a sentence or a document) by index and results stay in place, so order
  // is the input's.
  next_unit_ = 0;
  if (pool_ != nullptr) {
    // Tagged in the background while the caller reads the next batch.
    pool_->Start([this](int worker) { TagUnits(&inflight_, inflight_units_, worker); });
    tagging_ = true;
    return absl::OkStatus();
  }
  TagUnits(&inflight_, inflight_units_, 0);
  return Drain();
}

}  // namespace chaintag
