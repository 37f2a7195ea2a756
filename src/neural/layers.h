// Internal: the neural encoder's layers with hand-written backward passes. Every dense parameter
// lives in one flat array (a ParameterLayout gives each block its offset), so gradients, their
// reduction across threads, Adam and serialisation are loops over one vector. Templates on the
// scalar type: float for training and tagging, double for the finite-difference gradient checks.
#ifndef CHAINTAG_SRC_NEURAL_LAYERS_H_
#define CHAINTAG_SRC_NEURAL_LAYERS_H_

#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace chaintag::neural {

template <typename T>
using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
template <typename T>
using Vec = Eigen::Matrix<T, Eigen::Dynamic, 1>;
template <typename T>
using MapMat = Eigen::Map<Mat<T>>;
template <typename T>
using ConstMapMat = Eigen::Map<const Mat<T>>;

// Blocks of a flat parameter array, column-major matrices.
class ParameterLayout {
 public:
  struct Block {
    std::string name;
    int64_t offset = 0;
    int rows = 0;
    int cols = 0;
  };
  int Add(std::string name, int rows, int cols) {
    blocks_.push_back({std::move(name), size_, rows, cols});
    size_ += int64_t{rows} * cols;
    return static_cast<int>(blocks_.size()) - 1;
  }
  int64_t size() const { return size_; }
  const std::vector<Block>& blocks() const { return blocks_; }
  const Block& block(int id) const { return blocks_[id]; }
  template <typename T>
  ConstMapMat<T> View(const T* params, int id) const {
    const Block& b = blocks_[id];
    return ConstMapMat<T>(params + b.offset, b.rows, b.cols);
  }
  template <typename T>
  MapMat<T> View(T* params, int id) const {
    const Block& b = blocks_[id];
    return MapMat<T>(params + b.offset, b.rows, b.cols);
  }

 private:
  std::vector<Block> blocks_;
  int64_t size_ = 0;
};

// y = W x + b for every column x of X.
class Linear {
 public:
  Linear() = default;
  Linear(ParameterLayout* layout, const std::string& name, int in, int out) : in_(in), out_(out) {
    w_ = layout->Add(name + ".W", out, in);
    b_ = layout->Add(name + ".b", out, 1);
  }
  int in() const { return in_; }
  int out() const { return out_; }
  int weight_block() const { return w_; }
  int bias_block() const { return b_; }

  template <typename T>
  void Forward(const ParameterLayout& l, const T* p, const Mat<T>& x, Mat<T>* y) const {
    y->noalias() = l.View(p, w_) * x;
    y->colwise() += l.View(p, b_).col(0);
  }
  // Adds the parameter gradients to `g`; `dx` (if not null) gets the input gradient.
  template <typename T>
  void Backward(const ParameterLayout& l, const T* p, const Mat<T>& x, const Mat<T>& dy, T* g,
                Mat<T>* dx) const {
    l.View(g, w_).noalias() += dy * x.transpose();
    l.View(g, b_).col(0) += dy.rowwise().sum();
    if (dx != nullptr) dx->noalias() = l.View(p, w_).transpose() * dy;
  }

 private:
  int in_ = 0, out_ = 0;
  int w_ = -1, b_ = -1;
};

// One LSTM direction (Hochreiter and Schmidhuber 1997, with a forget gate, Gers et al. 2000):
// gates i, f, g, o stacked in that order in W (4h x in), U (4h x h) and b (4h).
class Lstm {
 public:
  template <typename T>
  struct Cache {
    Mat<T> gates;   // 4h x n, after their nonlinearities
    Mat<T> c;       // h x n cell states
    Mat<T> h;       // h x n outputs
    Mat<T> tanh_c;  // h x n, tanh of the cell states
  };

  Lstm() = default;
  Lstm(ParameterLayout* layout, const std::string& name, int in, int hidden, bool reverse)
      : in_(in), hidden_(hidden), reverse_(reverse) {
    w_ = layout->Add(name + ".W", 4 * hidden, in);
    u_ = layout->Add(name + ".U", 4 * hidden, hidden);
    b_ = layout->Add(name + ".b", 4 * hidden, 1);
  }
  int hidden() const { return hidden_; }
  int bias_block() const { return b_; }

  template <typename T>
  void Forward(const ParameterLayout& l, const T* p, const Mat<T>& x, Cache<T>* cache) const {
    const int n = static_cast<int>(x.cols()), h = hidden_;
    Mat<T>& gates = cache->gates;
    gates.noalias() = l.View(p, w_) * x;
    gates.colwise() += l.View(p, b_).col(0);
    cache->c.resize(h, n);
    cache->h.resize(h, n);
    cache->tanh_c.resize(h, n);
    const ConstMapMat<T> u = l.View(p, u_);
    for (int k = 0; k < n; ++k) {
      const int t = reverse_ ? n - 1 - k : k;
      const int prev = reverse_ ? t + 1 : t - 1;
      // The pre-activations, replaced by the gates' values in place; the whole gate block at
      // once through Eigen's vectorised logistic and tanh (one call per gate, not per unit).
      if (k > 0) gates.col(t).noalias() += u * cache->h.col(prev);
      auto z = gates.col(t).array();
      z.head(2 * h) = z.head(2 * h).logistic();  // i, f
      z.segment(2 * h, h) = z.segment(2 * h, h).tanh();
      z.tail(h) = z.tail(h).logistic();
      auto c = cache->c.col(t).array();
      if (k > 0) {
        c = z.segment(h, h) * cache->c.col(prev).array() + z.head(h) * z.segment(2 * h, h);
      } else {
        c = z.head(h) * z.segment(2 * h, h);
      }
      cache->tanh_c.col(t).array() = c.tanh();
      cache->h.col(t).array() = z.tail(h) * cache->tanh_c.col(t).array();
    }
  }

  template <typename T>
  void Backward(const ParameterLayout& l, const T* p, const Mat<T>& x, const Cache<T>& cache,
                const Mat<T>& dh_out, T* g, Mat<T>* dx) const {
    const int n = static_cast<int>(x.cols()), h = hidden_;
    Mat<T> dz(4 * h, n);
    Vec<T> dh_next = Vec<T>::Zero(h), dc_next = Vec<T>::Zero(h);
    const ConstMapMat<T> u = l.View(p, u_);
    for (int k = n - 1; k >= 0; --k) {
      const int t = reverse_ ? n - 1 - k : k;
      const int prev = reverse_ ? t + 1 : t - 1;
      const auto gates = cache.gates.col(t).array();
      const auto i = gates.head(h), f = gates.segment(h, h), gg = gates.segment(2 * h, h),
                 o = gates.tail(h);
      const auto tc = cache.tanh_c.col(t).array();
      const Vec<T> dh = dh_out.col(t) + dh_next;
      const Vec<T> dc = dc_next.array() + dh.array() * o * (T(1) - tc * tc);
      auto d = dz.col(t).array();
      d.head(h) = dc.array() * gg * i * (T(1) - i);
      if (k > 0) {
        d.segment(h, h) = dc.array() * cache.c.col(prev).array() * f * (T(1) - f);
      } else {
        d.segment(h, h).setZero();
      }
      d.segment(2 * h, h) = dc.array() * i * (T(1) - gg * gg);
      d.tail(h) = dh.array() * tc * o * (T(1) - o);
      dc_next.array() = dc.array() * f;
      if (k > 0) dh_next.noalias() = u.transpose() * dz.col(t);
    }
    l.View(g, w_).noalias() += dz * x.transpose();
    l.View(g, b_).col(0) += dz.rowwise().sum();
    // dU = sum over t of dz_t h_{t-1}^T, h_{t-1} the state before t in this direction.
    MapMat<T> du = l.View(g, u_);
    if (n > 1) {
      if (reverse_) {
        du.noalias() += dz.leftCols(n - 1) * cache.h.rightCols(n - 1).transpose();
      } else {
        du.noalias() += dz.rightCols(n - 1) * cache.h.leftCols(n - 1).transpose();
      }
    }
    if (dx != nullptr) dx->noalias() = l.View(p, w_).transpose() * dz;
  }

 private:
  int in_ = 0, hidden_ = 0;
  bool reverse_ = false;
  int w_ = -1, u_ = -1, b_ = -1;
};

// Character CNN over one word (Ma and Hovy 2016): character embeddings, a convolution of width w
// with F filters, max over positions.
class CharCnn {
 public:
  // Character ids 0..3 are reserved: padding, unknown, begin and end of word.
  static constexpr int kPad = 0, kUnknown = 1, kBegin = 2, kEnd = 3;
  template <typename T>
  struct Cache {
    std::vector<int32_t> ids;   // padded character ids
    Mat<T> windows;             // (w*c) x positions
    std::vector<int32_t> best;  // per filter: the position of the maximum
  };

  CharCnn() = default;
  CharCnn(ParameterLayout* layout, const std::string& name, int num_chars, int dim, int filters,
          int width)
      : dim_(dim), filters_(filters), width_(width) {
    e_ = layout->Add(name + ".E", dim, num_chars);
    w_ = layout->Add(name + ".W", filters, width * dim);
    b_ = layout->Add(name + ".b", filters, 1);
  }
  int filters() const { return filters_; }
  int num_chars(const ParameterLayout& l) const { return l.block(e_).cols; }

  // `chars`: the word's character ids without the begin/end marks. Writes F values to `out`.
  template <typename T>
  void Forward(const ParameterLayout& l, const T* p, const std::vector<int32_t>& chars,
               Cache<T>* cache, T* out) const {
    std::vector<int32_t>& ids = cache->ids;
    ids.clear();
    const int pad = (width_ - 1) / 2;
    ids.insert(ids.end(), pad, kPad);
    ids.push_back(kBegin);
    ids.insert(ids.end(), chars.begin(), chars.end());
    ids.push_back(kEnd);
    ids.insert(ids.end(), width_ - 1 - pad, kPad);
    const int positions = static_cast<int>(ids.size()) - width_ + 1;
    const ConstMapMat<T> e = l.View(p, e_);
    cache->windows.resize(width_ * dim_, positions);
    for (int t = 0; t < positions; ++t) {
      for (int k = 0; k < width_; ++k) {
        cache->windows.col(t).segment(k * dim_, dim_) = e.col(ids[t + k]);
      }
    }
    Mat<T> z = l.View(p, w_) * cache->windows;
    cache->best.assign(filters_, 0);
    for (int f = 0; f < filters_; ++f) {
      int best = 0;
      for (int t = 1; t < positions; ++t) {
        if (z(f, t) > z(f, best)) best = t;
      }
      cache->best[f] = best;
      out[f] = z(f, best) + l.View(p, b_)(f, 0);
    }
  }

  // `dout`: F values.
  template <typename T>
  void Backward(const ParameterLayout& l, const T* p, const Cache<T>& cache, const T* dout,
                T* g) const {
    const int positions = static_cast<int>(cache.windows.cols());
    Mat<T> dz = Mat<T>::Zero(filters_, positions);
    for (int f = 0; f < filters_; ++f) dz(f, cache.best[f]) = dout[f];
    l.View(g, w_).noalias() += dz * cache.windows.transpose();
    l.View(g, b_).col(0) += Eigen::Map<const Vec<T>>(dout, filters_);
    const Mat<T> dwin = l.View(p, w_).transpose() * dz;
    MapMat<T> de = l.View(g, e_);
    for (int t = 0; t < positions; ++t) {
      for (int k = 0; k < width_; ++k) {
        de.col(cache.ids[t + k]) += dwin.col(t).segment(k * dim_, dim_);
      }
    }
  }

 private:
  int dim_ = 0, filters_ = 0, width_ = 0;
  int e_ = -1, w_ = -1, b_ = -1;
};

// Character BiLSTM over one word (Lample et al. 2016): character embeddings, a forward and a
// backward LSTM over [begin, characters..., end]; the word's representation is the forward
// LSTM's last output followed by the backward LSTM's first (2 x hidden values).
class CharBiLstm {
 public:
  template <typename T>
  struct Cache {
    std::vector<int32_t> ids;  // character ids with the begin and end marks
    Mat<T> x;                  // dim x positions, their embeddings
    Lstm::Cache<T> forward, backward;
  };

  CharBiLstm() = default;
  CharBiLstm(ParameterLayout* layout, const std::string& name, int num_chars, int dim, int hidden)
      : hidden_(hidden) {
    e_ = layout->Add(name + ".E", dim, num_chars);
    forward_ = Lstm(layout, name + ".fw", dim, hidden, false);
    backward_ = Lstm(layout, name + ".bw", dim, hidden, true);
  }
  int outputs() const { return 2 * hidden_; }
  const Lstm& forward() const { return forward_; }
  const Lstm& backward() const { return backward_; }

  // `chars`: the word's character ids without the begin/end marks (CharCnn's ids). Writes
  // 2 x hidden values to `out`.
  template <typename T>
  void Forward(const ParameterLayout& l, const T* p, const std::vector<int32_t>& chars,
               Cache<T>* cache, T* out) const {
    std::vector<int32_t>& ids = cache->ids;
    ids.clear();
    ids.push_back(CharCnn::kBegin);
    ids.insert(ids.end(), chars.begin(), chars.end());
    ids.push_back(CharCnn::kEnd);
    const int m = static_cast<int>(ids.size());
    const ConstMapMat<T> e = l.View(p, e_);
    cache->x.resize(e.rows(), m);
    for (int t = 0; t < m; ++t) cache->x.col(t) = e.col(ids[t]);
    forward_.Forward(l, p, cache->x, &cache->forward);
    backward_.Forward(l, p, cache->x, &cache->backward);
    Eigen::Map<Vec<T>> o(out, 2 * hidden_);
    o.head(hidden_) = cache->forward.h.col(m - 1);
    o.tail(hidden_) = cache->backward.h.col(0);
  }

  // `dout`: 2 x hidden values.
  template <typename T>
  void Backward(const ParameterLayout& l, const T* p, const Cache<T>& cache, const T* dout,
                T* g) const {
    const int m = static_cast<int>(cache.ids.size());
    const Eigen::Map<const Vec<T>> d(dout, 2 * hidden_);
    Mat<T> dh = Mat<T>::Zero(hidden_, m);
    Mat<T> dx_forward, dx_backward;
    dh.col(m - 1) = d.head(hidden_);
    forward_.Backward(l, p, cache.x, cache.forward, dh, g, &dx_forward);
    dh.col(m - 1).setZero();
    dh.col(0) = d.tail(hidden_);
    backward_.Backward(l, p, cache.x, cache.backward, dh, g, &dx_backward);
    MapMat<T> de = l.View(g, e_);
    for (int t = 0; t < m; ++t) de.col(cache.ids[t]) += dx_forward.col(t) + dx_backward.col(t);
  }

 private:
  int hidden_ = 0;
  int e_ = -1;
  Lstm forward_, backward_;
};

// Inverted dropout masks: each kept unit is scaled by 1/(1-p), so inference needs no scaling.
template <typename T, typename Rng>
Mat<T> DropoutMask(int rows, int cols, double p, Rng& rng) {
  Mat<T> m(rows, cols);
  const T keep = T(1) / T(1 - p);
  for (int64_t i = 0; i < m.size(); ++i) {
    const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;
    m.data()[i] = u < p ? T(0) : keep;
  }
  return m;
}

}  // namespace chaintag::neural

#endif  // CHAINTAG_SRC_NEURAL_LAYERS_H_
