// Brown clustering (Brown et al. 1992) with Liang's windowed algorithm and incremental loss
// tables (Liang 2005, section 3.2): chaintag::BrownCorpus, chaintag::BrownCluster.
#include "features/brown_clusters.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "chaintag/clusters.h"
#include "chaintag/corpus.h"
#include "corpus/line_reader.h"
#include "string_view_compat.h"
#include "text/text_file.h"

namespace chaintag {

namespace {
constexpr uint32_t kSentenceBreak = std::numeric_limits<uint32_t>::max();
// Longest input line (a paragraph) read for clustering.
constexpr int64_t kMaxClusterLineBytes = int64_t{1} << 24;
}  // namespace

struct BrownCorpus::Impl {
  absl::flat_hash_map<std::string, uint32_t> ids;
  std::vector<int64_t> counts;   // by id
  std::vector<uint32_t> stream;  // word ids, kSentenceBreak after each sentence
  int64_t tokens = 0;

  absl::Status Add(std::string_view token) {
    if (token.empty() || token.size() > static_cast<size_t>(kMaxWordBytes) ||
        token.find_first_of("\t\n\r") != std::string_view::npos) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected tokens of 1 to ", kMaxWordBytes,
          " bytes without tabs or line breaks (a paths file could not hold them), found ",
          token.empty() ? std::string("an empty token")
                        : corpus_internal::QuoteLine(token.substr(0, 80))));
    }
    if (tokens >= kMaxTokens) {
      return absl::ResourceExhaustedError(
          absl::StrCat("expected at most ", kMaxTokens, " tokens of text to cluster, found more"));
    }
    auto [it, inserted] = ids.try_emplace(ToAbsl(token), static_cast<uint32_t>(counts.size()));
    if (inserted) {
      if (static_cast<int64_t>(counts.size()) >= kMaxWordTypes) {
        ids.erase(it);
        return absl::ResourceExhaustedError(
            absl::StrCat("expected at most ", kMaxWordTypes,
                         " distinct words in the text to cluster, found more"));
      }
      counts.push_back(0);
    }
    ++counts[it->second];
    stream.push_back(it->second);
    ++tokens;
    return absl::OkStatus();
  }
};

BrownCorpus::BrownCorpus() : impl_(std::make_unique<Impl>()) {}
BrownCorpus::~BrownCorpus() = default;
BrownCorpus::BrownCorpus(BrownCorpus&&) noexcept = default;
BrownCorpus& BrownCorpus::operator=(BrownCorpus&&) noexcept = default;

absl::Status BrownCorpus::AddSentence(absl::Span<const std::string_view> tokens) {
  if (tokens.empty()) return absl::OkStatus();
  for (std::string_view token : tokens) {
    if (absl::Status s = impl_->Add(token); !s.ok()) return s;
  }
  impl_->stream.push_back(kSentenceBreak);
  return absl::OkStatus();
}

absl::Status BrownCorpus::AddSentence(absl::Span<const std::string> tokens) {
  std::vector<std::string_view> views(tokens.begin(), tokens.end());
  return AddSentence(absl::MakeConstSpan(views));
}

absl::Status BrownCorpus::AddTextFile(const std::string& path, bool pretokenized) {
  return text_internal::ForEachTextSentence(
      path, pretokenized, kMaxClusterLineBytes,
      [&](absl::Span<const std::string_view> tokens) { return AddSentence(tokens); });
}

int64_t BrownCorpus::tokens() const { return impl_->tokens; }
int64_t BrownCorpus::word_types() const { return static_cast<int64_t>(impl_->counts.size()); }

namespace features {

BigramGraph BuildBigramGraph(const BrownCorpus& corpus, int64_t min_count, int64_t max_words) {
  const BrownCorpus::Impl& impl = corpus.impl();
  BigramGraph graph;
  std::vector<std::pair<std::string_view, uint32_t>> kept;
  for (const auto& [word, id] : impl.ids) {
    if (impl.counts[id] >= min_count) kept.emplace_back(word, id);
  }
  std::sort(kept.begin(), kept.end(), [&](const auto& a, const auto& b) {
    const int64_t ca = impl.counts[a.second], cb = impl.counts[b.second];
    return ca != cb ? ca > cb : a.first < b.first;
  });
  if (static_cast<int64_t>(kept.size()) > max_words) kept.resize(static_cast<size_t>(max_words));
  std::vector<int32_t> rank(impl.counts.size(), -1);
  for (size_t r = 0; r < kept.size(); ++r) {
    rank[kept[r].second] = static_cast<int32_t>(r);
    graph.words.emplace_back(kept[r].first);
    graph.counts.push_back(impl.counts[kept[r].second]);
  }
  const int n = graph.num_words();
  std::vector<uint64_t> pairs;
  // The text is one stream, as in Liang's wcluster: a sentence's last word and the next one's
  // first word are a bigram too (without that, words that only end sentences and words that
  // only begin them would merge at no loss). A word left out by min_count breaks the stream.
  int32_t prev = -1;
  for (const uint32_t id : impl.stream) {
    if (id == kSentenceBreak) continue;
    if (rank[id] < 0) {
      prev = -1;
      continue;
    }
    if (prev >= 0) pairs.push_back(uint64_t(uint32_t(prev)) << 32 | uint32_t(rank[id]));
    prev = rank[id];
  }
  graph.total_bigrams = static_cast<int64_t>(pairs.size());
  std::sort(pairs.begin(), pairs.end());
  // Runs of equal pairs become (u, v, count) in (u, v) order: the out lists directly.
  std::vector<std::tuple<int32_t, int32_t, int64_t>> edges;
  for (size_t i = 0; i < pairs.size();) {
    size_t j = i;
    while (j < pairs.size() && pairs[j] == pairs[i]) ++j;
    edges.emplace_back(static_cast<int32_t>(pairs[i] >> 32),
                       static_cast<int32_t>(pairs[i] & 0xffffffffu), static_cast<int64_t>(j - i));
    i = j;
  }
  std::vector<uint64_t>().swap(pairs);
  graph.out_begin.assign(n + 1, 0);
  graph.in_begin.assign(n + 1, 0);
  graph.left_total.assign(n, 0);
  graph.right_total.assign(n, 0);
  for (const auto& [u, v, c] : edges) {
    ++graph.out_begin[u + 1];
    ++graph.in_begin[v + 1];
    graph.left_total[u] += c;
    graph.right_total[v] += c;
  }
  for (int w = 0; w < n; ++w) {
    graph.out_begin[w + 1] += graph.out_begin[w];
    graph.in_begin[w + 1] += graph.in_begin[w];
  }
  graph.out_word.resize(edges.size());
  graph.out_count.resize(edges.size());
  graph.in_word.resize(edges.size());
  graph.in_count.resize(edges.size());
  std::vector<int64_t> in_next(graph.in_begin.begin(), graph.in_begin.end() - 1);
  for (size_t e = 0; e < edges.size(); ++e) {
    const auto& [u, v, c] = edges[e];
    graph.out_word[e] = v;
    graph.out_count[e] = c;
    const int64_t slot = in_next[v]++;
    graph.in_word[slot] = u;
    graph.in_count[slot] = c;
  }
  return graph;
}

BigramGraph GraphFromBigrams(int n,
                             const std::vector<std::pair<std::pair<int, int>, int64_t>>& bigrams) {
  std::map<std::pair<int, int>, int64_t> merged;
  for (const auto& [pair, count] : bigrams) merged[pair] += count;
  BigramGraph graph;
  graph.out_begin.assign(n + 1, 0);
  graph.in_begin.assign(n + 1, 0);
  graph.left_total.assign(n, 0);
  graph.right_total.assign(n, 0);
  for (int w = 0; w < n; ++w) graph.words.push_back(absl::StrCat("w", w));
  for (const auto& [pair, count] : merged) {
    ++graph.out_begin[pair.first + 1];
    ++graph.in_begin[pair.second + 1];
    graph.left_total[pair.first] += count;
    graph.right_total[pair.second] += count;
    graph.total_bigrams += count;
  }
  for (int w = 0; w < n; ++w) {
    graph.out_begin[w + 1] += graph.out_begin[w];
    graph.in_begin[w + 1] += graph.in_begin[w];
    graph.counts.push_back(std::max(graph.left_total[w], graph.right_total[w]));
  }
  std::vector<int64_t> out_next(graph.out_begin.begin(), graph.out_begin.end() - 1);
  std::vector<int64_t> in_next(graph.in_begin.begin(), graph.in_begin.end() - 1);
  graph.out_word.resize(merged.size());
  graph.out_count.resize(merged.size());
  graph.in_word.resize(merged.size());
  graph.in_count.resize(merged.size());
  for (const auto& [pair, count] : merged) {
    const int64_t o = out_next[pair.first]++;
    graph.out_word[o] = pair.second;
    graph.out_count[o] = count;
    const int64_t i = in_next[pair.second]++;
    graph.in_word[i] = pair.first;
    graph.in_count[i] = count;
  }
  return graph;
}

double AverageMutualInformation(const BigramGraph& graph, const std::vector<int>& cluster_of_word) {
  std::map<std::pair<int, int>, double> joint;
  std::map<int, double> left, right;
  for (int w = 0; w < graph.num_words(); ++w) {
    const int c = cluster_of_word[w];
    if (c < 0) continue;
    left[c] += static_cast<double>(graph.left_total[w]);
    right[c] += static_cast<double>(graph.right_total[w]);
    for (int64_t e = graph.out_begin[w]; e < graph.out_begin[w + 1]; ++e) {
      const int d = cluster_of_word[graph.out_word[e]];
      if (d >= 0) joint[{c, d}] += static_cast<double>(graph.out_count[e]);
    }
  }
  const double n = static_cast<double>(graph.total_bigrams);
  double ami = 0;
  for (const auto& [pair, count] : joint) {
    const double p = count / n;
    ami += p * std::log(p / ((left[pair.first] / n) * (right[pair.second] / n)));
  }
  return ami;
}

namespace {

// Runs fn(begin, end) over [0, n) split into `threads` contiguous ranges on persistent workers.
class ParallelRanges {
 public:
  explicit ParallelRanges(int threads) : threads_(std::max(1, threads)) {
    for (int k = 1; k < threads_; ++k) {
      workers_.emplace_back([this, k] { Work(k); });
    }
  }
  ~ParallelRanges() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
      ++generation_;
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
  }

  void Run(int n, const std::function<void(int, int)>& fn) {
    if (threads_ == 1 || n < 64) {
      fn(0, n);
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      fn_ = &fn;
      n_ = n;
      pending_ = threads_ - 1;
      ++generation_;
    }
    wake_.notify_all();
    RunPart(0);
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return pending_ == 0; });
    fn_ = nullptr;
  }

 private:
  void RunPart(int k) {
    const int begin = static_cast<int>(int64_t{n_} * k / threads_);
    const int end = static_cast<int>(int64_t{n_} * (k + 1) / threads_);
    if (begin < end) (*fn_)(begin, end);
  }
  void Work(int k) {
    uint64_t seen = 0;
    while (true) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return generation_ != seen; });
        seen = generation_;
        if (stop_) return;
      }
      RunPart(k);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (--pending_ == 0) done_.notify_one();
      }
    }
  }

  int threads_;
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  uint64_t generation_ = 0;
  bool stop_ = false;
  int pending_ = 0;
  int n_ = 0;
  const std::function<void(int, int)>* fn_ = nullptr;
};

constexpr int kNLogNTable = 1 << 16;

}  // namespace

// Everything is in bigram counts: Q(n, x, y) = n log(n N / (left(x) right(y))) is N times the
// mutual-information term of cluster pair (x, y); losses are divided by N only when reported.
struct BrownClusterer::State {
  const BigramGraph& graph;
  int slots;  // clusters + 1
  ParallelRanges pool;
  double log_n;
  std::vector<double> nlogn;  // n log n for small n
  // Words belong to groups (merged smaller into larger, so a word is relabelled O(log V) times);
  // each active slot holds one group.
  std::vector<int> group_of_word;  // -1 while not added
  std::vector<int> slot_of_group, group_of_slot;
  std::vector<std::vector<int>> members;  // words of each group
  std::vector<char> active;
  std::vector<int> active_list;  // sorted active slots
  std::vector<int64_t> n2;       // bigram counts between slots, slots x slots
  std::vector<int64_t> left, right;
  std::vector<double> log_left, log_right;
  std::vector<double> log_left_pair, log_right_pair;  // log of the merged pair's totals
  std::vector<double> loss;                           // L(s, t) for s < t, slots x slots
  std::vector<double> involving;                      // sum of Q terms that involve s (each once)
  std::vector<int> first_rank;                        // most frequent word of each slot
  int next_word = 0;

  State(const BigramGraph& g, int clusters, int threads)
      : graph(g), slots(clusters + 1), pool(threads) {
    log_n = graph.total_bigrams > 0 ? std::log(static_cast<double>(graph.total_bigrams)) : 0;
    nlogn.resize(kNLogNTable);
    for (int i = 1; i < kNLogNTable; ++i) nlogn[i] = i * std::log(static_cast<double>(i));
    group_of_word.assign(graph.num_words(), -1);
    slot_of_group.assign(graph.num_words(), -1);
    group_of_slot.assign(slots, -1);
    members.resize(graph.num_words());
    active.assign(slots, 0);
    const size_t s2 = static_cast<size_t>(slots) * slots;
    n2.assign(s2, 0);
    left.assign(slots, 0);
    right.assign(slots, 0);
    log_left.assign(slots, 0);
    log_right.assign(slots, 0);
    log_left_pair.assign(s2, 0);
    log_right_pair.assign(s2, 0);
    loss.assign(s2, 0);
    involving.assign(slots, 0);
    first_rank.assign(slots, -1);
  }

  int SlotOfWord(int w) const {
    return group_of_word[w] < 0 ? -1 : slot_of_group[group_of_word[w]];
  }
  static double SafeLog(int64_t x) { return x > 0 ? std::log(static_cast<double>(x)) : 0; }
  double NLogN(int64_t n) const {
    return n < kNLogNTable ? nlogn[n] : static_cast<double>(n) * std::log(static_cast<double>(n));
  }
  double Q(int64_t n, double log_l, double log_r) const {
    if (n == 0) return 0;
    return NLogN(n) + static_cast<double>(n) * (log_n - log_l - log_r);
  }
  int64_t N2(int s, int t) const { return n2[static_cast<size_t>(s) * slots + t]; }
  int64_t& N2(int s, int t) { return n2[static_cast<size_t>(s) * slots + t]; }
  size_t At(int s, int t) const { return static_cast<size_t>(s) * slots + t; }
  double QSlots(int s, int t) const { return Q(N2(s, t), log_left[s], log_right[t]); }

  void RefreshActiveList() {
    active_list.clear();
    for (int s = 0; s < slots; ++s) {
      if (active[s]) active_list.push_back(s);
    }
  }

  void RefreshInvolving() {
    const int a = static_cast<int>(active_list.size());
    pool.Run(a, [&](int begin, int end) {
      for (int i = begin; i < end; ++i) {
        const int s = active_list[i];
        double sum = -QSlots(s, s);
        for (int f : active_list) sum += QSlots(s, f) + QSlots(f, s);
        involving[s] = sum;
      }
    });
  }

  void RefreshPairLogs(int x) {
    for (int f : active_list) {
      const double l = SafeLog(left[x] + left[f]), r = SafeLog(right[x] + right[f]);
      log_left_pair[At(x, f)] = log_left_pair[At(f, x)] = l;
      log_right_pair[At(x, f)] = log_right_pair[At(f, x)] = r;
    }
  }

  // L(s, t) from the current counts: terms involving s or t minus the merged cluster's terms.
  double FreshLoss(int s, int t) const {
    const double ll = log_left_pair[At(s, t)], lr = log_right_pair[At(s, t)];
    double after = Q(N2(s, s) + N2(s, t) + N2(t, s) + N2(t, t), ll, lr);
    for (int f : active_list) {
      if (f == s || f == t) continue;
      after += Q(N2(s, f) + N2(t, f), ll, log_right[f]) + Q(N2(f, s) + N2(f, t), log_left[f], lr);
    }
    return involving[s] + involving[t] - QSlots(s, t) - QSlots(t, s) - after;
  }

  void SetLoss(int s, int t, double value) { loss[At(std::min(s, t), std::max(s, t))] = value; }

  // Fresh losses of x with every other active slot.
  void RefreshLossesOf(int x) {
    const int a = static_cast<int>(active_list.size());
    pool.Run(a, [&](int begin, int end) {
      for (int i = begin; i < end; ++i) {
        const int f = active_list[i];
        if (f != x) SetLoss(x, f, FreshLoss(x, f));
      }
    });
  }

  void AddWord() {
    const int w = next_word++;
    int x = 0;
    while (active[x]) ++x;
    group_of_word[w] = w;
    slot_of_group[w] = x;
    group_of_slot[x] = w;
    members[w].assign(1, w);
    first_rank[x] = w;
    for (int f = 0; f < slots; ++f) N2(x, f) = N2(f, x) = 0;
    for (int64_t e = graph.out_begin[w]; e < graph.out_begin[w + 1]; ++e) {
      const int v = SlotOfWord(graph.out_word[e]);
      if (v >= 0) N2(x, v) += graph.out_count[e];
    }
    for (int64_t e = graph.in_begin[w]; e < graph.in_begin[w + 1]; ++e) {
      const int u = graph.in_word[e];
      if (u != w && SlotOfWord(u) >= 0) N2(SlotOfWord(u), x) += graph.in_count[e];
    }
    left[x] = graph.left_total[w];
    right[x] = graph.right_total[w];
    log_left[x] = SafeLog(left[x]);
    log_right[x] = SafeLog(right[x]);
    // Existing pairs gain the new cluster's terms: involving gains Q(c,x), Q(x,c), Q(d,x),
    // Q(x,d); the merged pair's terms gain Q(cd,x), Q(x,cd).
    std::vector<double> single(slots, 0);
    for (int c : active_list) single[c] = QSlots(c, x) + QSlots(x, c);
    const int a = static_cast<int>(active_list.size());
    pool.Run(a, [&](int begin, int end) {
      for (int i = begin; i < end; ++i) {
        const int c = active_list[i];
        for (int j = i + 1; j < a; ++j) {
          const int d = active_list[j];
          const double merged = Q(N2(c, x) + N2(d, x), log_left_pair[At(c, d)], log_right[x]) +
                                Q(N2(x, c) + N2(x, d), log_left[x], log_right_pair[At(c, d)]);
          loss[At(c, d)] += single[c] + single[d] - merged;
        }
      }
    });
    active[x] = 1;
    RefreshActiveList();
    RefreshPairLogs(x);
    RefreshInvolving();
    RefreshLossesOf(x);
  }

  std::pair<int, int> BestPair() const {
    double best = std::numeric_limits<double>::infinity();
    std::pair<int, int> pair{-1, -1};
    const int a = static_cast<int>(active_list.size());
    for (int i = 0; i < a; ++i) {
      for (int j = i + 1; j < a; ++j) {
        const double l = loss[At(active_list[i], active_list[j])];
        if (l < best) {
          best = l;
          pair = {active_list[i], active_list[j]};
        }
      }
    }
    return pair;
  }

  // Merges slots s < t into s; t becomes free.
  void Merge(int s, int t) {
    const double ll_m = log_left_pair[At(s, t)], lr_m = log_right_pair[At(s, t)];
    // Per-slot change of the single terms: minus Q(c,s), Q(s,c), Q(c,t), Q(t,c), plus Q(c,m),
    // Q(m,c); per pair: the merged pair's terms with s and t go, those with m come.
    std::vector<double> single(slots, 0);
    for (int c : active_list) {
      if (c == s || c == t) continue;
      single[c] = -(QSlots(c, s) + QSlots(s, c) + QSlots(c, t) + QSlots(t, c)) +
                  Q(N2(c, s) + N2(c, t), log_left[c], lr_m) +
                  Q(N2(s, c) + N2(t, c), ll_m, log_right[c]);
    }
    const int a = static_cast<int>(active_list.size());
    pool.Run(a, [&](int begin, int end) {
      for (int i = begin; i < end; ++i) {
        const int c = active_list[i];
        if (c == s || c == t) continue;
        for (int j = i + 1; j < a; ++j) {
          const int d = active_list[j];
          if (d == s || d == t) continue;
          const double ll = log_left_pair[At(c, d)], lr = log_right_pair[At(c, d)];
          const int64_t cd_s = N2(c, s) + N2(d, s), s_cd = N2(s, c) + N2(s, d);
          const int64_t cd_t = N2(c, t) + N2(d, t), t_cd = N2(t, c) + N2(t, d);
          const double old_terms = Q(cd_s, ll, log_right[s]) + Q(s_cd, log_left[s], lr) +
                                   Q(cd_t, ll, log_right[t]) + Q(t_cd, log_left[t], lr);
          const double new_terms = Q(cd_s + cd_t, ll, lr_m) + Q(s_cd + t_cd, ll_m, lr);
          loss[At(c, d)] += single[c] + single[d] + old_terms - new_terms;
        }
      }
    });
    // Fold t into s.
    const int64_t self = N2(s, s) + N2(s, t) + N2(t, s) + N2(t, t);
    for (int f = 0; f < slots; ++f) {
      if (f == s || f == t) continue;
      N2(s, f) += N2(t, f);
      N2(f, s) += N2(f, t);
    }
    N2(s, s) = self;
    for (int f = 0; f < slots; ++f) N2(t, f) = N2(f, t) = 0;
    left[s] += left[t];
    right[s] += right[t];
    log_left[s] = ll_m;
    log_right[s] = lr_m;
    int keep = group_of_slot[s], gone = group_of_slot[t];
    if (members[gone].size() > members[keep].size()) std::swap(keep, gone);
    for (int w : members[gone]) group_of_word[w] = keep;
    members[keep].insert(members[keep].end(), members[gone].begin(), members[gone].end());
    std::vector<int>().swap(members[gone]);
    slot_of_group[gone] = -1;
    slot_of_group[keep] = s;
    group_of_slot[s] = keep;
    group_of_slot[t] = -1;
    first_rank[s] = std::min(first_rank[s], first_rank[t]);
    first_rank[t] = -1;
    active[t] = 0;
    RefreshActiveList();
    RefreshPairLogs(s);
    RefreshInvolving();
    RefreshLossesOf(s);
  }
};

BrownClusterer::BrownClusterer(const BigramGraph& graph, int clusters, int threads)
    : state_(std::make_unique<State>(graph, clusters, threads)) {}
BrownClusterer::~BrownClusterer() = default;

bool BrownClusterer::AddNextWord() {
  if (state_->next_word >= state_->graph.num_words()) return false;
  state_->AddWord();
  return true;
}

std::pair<int, int> BrownClusterer::MergeBest() {
  const auto [s, t] = state_->BestPair();
  if (s < 0) return {-1, -1};
  state_->Merge(s, t);
  return {s, t};
}

int BrownClusterer::num_active() const { return static_cast<int>(state_->active_list.size()); }
int BrownClusterer::words_added() const { return state_->next_word; }
std::vector<int> BrownClusterer::ActiveSlots() const { return state_->active_list; }
double BrownClusterer::Loss(int s, int t) const {
  const double n = static_cast<double>(std::max<int64_t>(state_->graph.total_bigrams, 1));
  return state_->loss[state_->At(std::min(s, t), std::max(s, t))] / n;
}
std::vector<int> BrownClusterer::slot_of_word() const {
  std::vector<int> slots(state_->graph.num_words());
  for (int w = 0; w < state_->graph.num_words(); ++w) slots[w] = state_->SlotOfWord(w);
  return slots;
}

std::vector<std::string> BrownClusterer::Run(
    const std::function<void(const BrownProgress&)>& progress) {
  State& st = *state_;
  const int v = st.graph.num_words();
  const int clusters = st.slots - 1;
  BrownProgress p;
  p.vocabulary = v;
  const int report_every = std::max(1, v / 20);
  while (AddNextWord()) {
    if (num_active() > clusters) MergeBest();
    if (progress && (words_added() % report_every == 0 || words_added() == v)) {
      p.words_added = words_added();
      p.active_clusters = num_active();
      progress(p);
    }
  }
  // Hierarchy over the remaining clusters: tree nodes, leaves first.
  struct Node {
    int zero = -1, one = -1;
  };
  std::vector<Node> nodes;
  std::vector<int> node_of_slot(st.slots, -1);
  for (int s : st.active_list) {
    node_of_slot[s] = static_cast<int>(nodes.size());
    nodes.push_back({});
  }
  std::vector<int> leaf_slot_members_node(v, -1);
  for (int s : st.active_list) {
    for (int w : st.members[st.group_of_slot[s]]) leaf_slot_members_node[w] = node_of_slot[s];
  }
  p.finishing = true;
  while (num_active() > 1) {
    const auto [s, t] = st.BestPair();
    // The side holding the more frequent word is 0, so paths do not depend on slot numbers.
    const bool s_first = st.first_rank[s] < st.first_rank[t];
    Node node{s_first ? node_of_slot[s] : node_of_slot[t],
              s_first ? node_of_slot[t] : node_of_slot[s]};
    st.Merge(s, t);
    node_of_slot[s] = static_cast<int>(nodes.size());
    node_of_slot[t] = -1;
    nodes.push_back(node);
    if (progress) {
      p.words_added = v;
      p.active_clusters = num_active();
      if (num_active() % 64 == 0 || num_active() == 1) progress(p);
    }
  }
  std::vector<std::string> node_path(nodes.size());
  for (int i = static_cast<int>(nodes.size()) - 1; i >= 0; --i) {
    if (nodes[i].zero >= 0) {
      node_path[nodes[i].zero] = node_path[i] + "0";
      node_path[nodes[i].one] = node_path[i] + "1";
    }
  }
  std::vector<std::string> paths(v);
  for (int w = 0; w < v; ++w) paths[w] = node_path[leaf_slot_members_node[w]];
  return paths;
}

}  // namespace features

BrownVocabulary BrownVocabularyOf(const BrownCorpus& corpus, const BrownOptions& options) {
  BrownVocabulary v;
  for (const int64_t c : corpus.impl().counts) v.words_at_min_count += c >= options.min_count;
  v.words = std::min(v.words_at_min_count, std::max<int64_t>(options.max_words, 0));
  return v;
}

absl::StatusOr<WordClusters> BrownCluster(
    const BrownCorpus& corpus, const BrownOptions& options,
    const std::function<void(const BrownProgress&)>& progress) {
  if (options.clusters < 1 || options.clusters > BrownOptions::kMaxClusters) {
    return absl::InvalidArgumentError(absl::StrCat("expected a cluster count from 1 to ",
                                                   BrownOptions::kMaxClusters, ", found ",
                                                   options.clusters));
  }
  if (options.min_count < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected a minimum count of at least 1, found ", options.min_count));
  }
  if (options.max_words < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected a maximum of at least 1 word, found ", options.max_words));
  }
  features::BigramGraph graph =
      features::BuildBigramGraph(corpus, options.min_count, options.max_words);
  if (graph.num_words() == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected text with at least one word seen ", options.min_count,
                     " times or more, found ", corpus.tokens() == 0 ? "no words at all" : "none"));
  }
  features::BrownClusterer clusterer(graph, options.clusters, options.threads);
  std::vector<std::string> paths = clusterer.Run(progress);
  std::vector<WordClusters::Entry> entries(graph.num_words());
  for (int w = 0; w < graph.num_words(); ++w) {
    entries[w] = {std::move(paths[w]), std::move(graph.words[w]), graph.counts[w]};
  }
  return WordClusters::FromEntries(std::move(entries));
}

}  // namespace chaintag
