"""chaintag.sklearn.CRF: a drop-in for sklearn_crfsuite.CRF.

Code written for sklearn-crfsuite runs by changing the import::

    from chaintag.sklearn import CRF          # was: from sklearn_crfsuite import CRF
    crf = CRF(algorithm="lbfgs", c1=0.1, c2=0.1, max_iterations=100,
              all_possible_transitions=True)
    crf.fit(X_train, y_train)                 # X: list of sentences, each a list of feature dicts
    y_pred = crf.predict(X_test)

X is a list of sequences; each token is a dict of features as python-crfsuite reads them
(str values give the attribute "name=value" with weight 1, numbers and bools are weights, nested
dicts give "name:inner" attributes) or a list of attribute names (weight 1). y is a list of label
sequences. Weighted attributes are real-valued features.

Constructor arguments of sklearn-crfsuite and what they do here:

    algorithm       "lbfgs" (L-BFGS; OWL-QN when c1 > 0, as CRFsuite does), "l2sgd" (the same CRF
                    objective, solved by L-BFGS: chaintag has no SGD for it), "ap" (averaged
                    perceptron), "pa" and "arow" (chaintag's nearest large-margin counterpart: the
                    structural SVM, ssvm-margin with block-coordinate Frank-Wolfe)
    c1, c2          L1 and L2 coefficients: objective + c1 |w|_1 + c2 |w|^2 (CRFsuite's
                    convention; defaults 0 and 1)
    max_iterations  iterations (L-BFGS) or passes (the other algorithms)
    num_memories    L-BFGS corrections (lbfgs_memory)
    delta, period   stop when the objective improved by less than delta (relative) over period
                    iterations (chaintag's tolerance and period)
    min_freq        attributes seen fewer times are dropped (min_feature_count)
    verbose         print one line per iteration to stderr
    model_filename  when given, the trained model is saved there; an estimator made with the
                    file of an existing model and never fitted tags with that model (as
                    sklearn-crfsuite's)
    all_possible_transitions  as CRFsuite: True gives every label pair a weight (no mask),
                    False only the transitions (and first and last labels) seen in training, the
                    others scoring 0; not given (None): chaintag's default, a weight for every
                    pair plus the IOB mask that forbids transitions such as O -> I-X never seen
                    in training. Stored in the model (info()["metadata"]["transitions"]: all,
                    observed; absent for the default)
    all_possible_states, epsilon, linesearch, max_linesearch, calibration_*, pa_type, c,
    error_sensitive, averaging, variance, gamma, keep_tempfiles, trainer_cls
                    accepted for compatibility and not used (chaintag has no such setting: its
                    features are the (attribute, label) pairs seen in training, as CRFsuite's
                    default all_possible_states=False; L-BFGS stops on delta/period)

chaintag's own arguments:

    objective       "crf" (default for lbfgs/l2sgd), "softmax-margin", "ssvm-margin",
                    "ssvm-slack", "perceptron" or "ldcrf"; overrides what algorithm implies
    loss            the loss of the large-margin objectives, e.g. "hamming", "f1", "fbeta:0.5"
    threads         training and tagging threads (0 = all cores; results do not depend on it)
    options         a dict of further chaintag.train options (see chaintag.train_options())
    encoder         "sparse" (default: the feature-dict CRF above), "neural" or "hybrid"
                    (docs/neural.md): X is then a list of sentences of words (strings), the
                    encoder reads the words and, in hybrid, the templates of `preset` add sparse
                    scores; max_iterations is the number of epochs (default 20), c2 the sparse
                    weights' L2 term (hybrid), c1 must be 0; with X_dev/y_dev training stops
                    early and keeps the best epoch. Further neural options (epochs, hidden,
                    layers, dropout, ...) through options=
    preset          neural, hybrid: the feature preset of the templates (default "pos")
    embeddings      neural, hybrid: a word vectors file written by `chaintag embeddings`

fit(X, y, X_dev=None, y_dev=None): with development data chaintag scores it every iteration and
keeps the best iteration's weights (sklearn-crfsuite only reports the holdout score).

Attribute weights are finite numbers of magnitude at most 1000 (CRFsuite takes any finite value):
training sums them in fixed point, which makes it exact and independent of the thread count.

After fit (as sklearn-crfsuite): classes_, state_features_ {(attribute, label): weight},
transition_features_ {(from, to): weight}, attributes_, size_ (model bytes), num_attributes_,
training_log_ (.iterations: one dict per iteration with num, loss, time, active_features,
error_norm, scores; .last_iteration), tagger_ (the chaintag.Model). A fitted CRF pickles (and
joblib.dump/deepcopy/clone with cross_validate(return_estimator=True) work): its state holds the
model file image.
"""

import sys as _sys

import chaintag as _chaintag

try:  # sklearn is optional: with it, CRF is a real BaseEstimator (clone, cross_val_score, ...)
    from sklearn.base import BaseEstimator as _Base
except ImportError:  # pragma: no cover - depends on the environment
    import inspect as _inspect

    class _Base:
        """get_params/set_params from the constructor's signature, as sklearn's BaseEstimator."""

        @classmethod
        def _get_param_names(cls):
            sig = _inspect.signature(cls.__init__)
            return sorted(p.name for p in sig.parameters.values()
                          if p.name != "self" and p.kind != p.VAR_KEYWORD)

        def get_params(self, deep=True):
            return {name: getattr(self, name) for name in self._get_param_names()}

        def set_params(self, **params):
            valid = self._get_param_names()
            for key, value in params.items():
                if key not in valid:
                    raise ValueError("invalid parameter %r for estimator %r" % (key, self))
                setattr(self, key, value)
            return self

__all__ = ["CRF", "TrainingLog"]


class TrainingLog(list):
    """The iterations of a fit, as sklearn-crfsuite's training_log_: a list of dicts (num, loss,
    time, active_features, error_norm, feature_norm, scores, and chaintag's iteration,
    objective, gradient_norm, elapsed_seconds, dev_score, dev_metric)."""

    @property
    def iterations(self):
        return list(self)

    @property
    def last_iteration(self):
        return self[-1] if self else {}


def _log_entry(p, started):
    entry = dict(p)
    entry["num"] = p["iteration"]
    entry["loss"] = p["objective"]
    entry["time"] = p["elapsed_seconds"] - started
    entry["error_norm"] = p.get("gradient_norm")
    entry["feature_norm"] = None
    entry["scores"] = ({p.get("dev_metric") or "dev": p["dev_score"]}
                       if p.get("dev_score") is not None else {})
    return entry

_LARGE_MARGIN = {"pa": "ssvm-margin", "arow": "ssvm-margin"}


class CRF(_Base):
    """A linear-chain CRF (or another chaintag objective) with sklearn-crfsuite's interface.
    See the module docstring for every argument."""

    def __init__(self, algorithm=None, min_freq=None, all_possible_states=None,
                 all_possible_transitions=None, c1=None, c2=None, max_iterations=None,
                 num_memories=None, epsilon=None, period=None, delta=None, linesearch=None,
                 max_linesearch=None, calibration_eta=None, calibration_rate=None,
                 calibration_samples=None, calibration_candidates=None,
                 calibration_max_trials=None, pa_type=None, c=None, error_sensitive=None,
                 averaging=None, variance=None, gamma=None, verbose=False, model_filename=None,
                 keep_tempfiles=False, trainer_cls=None, objective=None, loss=None, threads=0,
                 options=None, encoder=None, preset=None, embeddings=None):
        self.algorithm = algorithm
        self.min_freq = min_freq
        self.all_possible_states = all_possible_states
        self.all_possible_transitions = all_possible_transitions
        self.c1 = c1
        self.c2 = c2
        self.max_iterations = max_iterations
        self.num_memories = num_memories
        self.epsilon = epsilon
        self.period = period
        self.delta = delta
        self.linesearch = linesearch
        self.max_linesearch = max_linesearch
        self.calibration_eta = calibration_eta
        self.calibration_rate = calibration_rate
        self.calibration_samples = calibration_samples
        self.calibration_candidates = calibration_candidates
        self.calibration_max_trials = calibration_max_trials
        self.pa_type = pa_type
        self.c = c
        self.error_sensitive = error_sensitive
        self.averaging = averaging
        self.variance = variance
        self.gamma = gamma
        self.verbose = verbose
        self.model_filename = model_filename
        self.keep_tempfiles = keep_tempfiles
        self.trainer_cls = trainer_cls
        self.objective = objective
        self.loss = loss
        self.threads = threads
        self.options = options
        self.encoder = encoder
        self.preset = preset
        self.embeddings = embeddings

    def _neural(self):
        encoder = self.encoder or "sparse"
        if encoder not in ("sparse", "neural", "hybrid"):
            raise ValueError("encoder: expected sparse, neural or hybrid, found %r" % (encoder,))
        return encoder != "sparse"

    # -- training ---------------------------------------------------------------------------

    def _train_arguments(self):
        """chaintag.train keyword arguments for the constructor's settings."""
        if self._neural():
            return self._neural_train_arguments()
        if self.preset is not None or self.embeddings is not None:
            raise ValueError("preset= and embeddings= apply to encoder='neural' or 'hybrid'")
        algorithm = self.algorithm or "lbfgs"
        kwargs = {}
        if algorithm in ("lbfgs", "l2sgd"):
            objective = "crf"
            c1 = float(self.c1 or 0.0)
            kwargs["algorithm"] = "owlqn" if c1 > 0 else "lbfgs"
            if c1 > 0:
                kwargs["c1"] = c1
        elif algorithm == "ap":
            objective = "perceptron"
        elif algorithm in _LARGE_MARGIN:
            objective = _LARGE_MARGIN[algorithm]
        else:
            raise ValueError("algorithm: expected lbfgs, l2sgd, ap, pa or arow, found %r"
                             % (algorithm,))
        if self.objective is not None:
            objective = self.objective
            if objective not in ("crf", "softmax-margin"):
                kwargs.pop("algorithm", None)
                kwargs.pop("c1", None)
        kwargs["objective"] = objective
        kwargs["c2"] = 1.0 if self.c2 is None else float(self.c2)
        if self.max_iterations is not None:
            kwargs["max_iterations"] = int(self.max_iterations)
        if self.num_memories is not None:
            kwargs["lbfgs_memory"] = int(self.num_memories)
        if self.delta is not None:
            kwargs["tolerance"] = float(self.delta)
        if self.period is not None:
            kwargs["period"] = int(self.period)
        if self.min_freq is not None and self.min_freq > 1:
            kwargs["min_feature_count"] = int(self.min_freq)
        if self.loss is not None:
            kwargs["loss"] = self.loss
        if self.all_possible_transitions is not None:
            kwargs["transitions"] = "all" if self.all_possible_transitions else "observed"
        kwargs["threads"] = int(self.threads or 0)
        if self.options:
            kwargs.update(self.options)
        return kwargs

    def _neural_train_arguments(self):
        """chaintag.train keyword arguments of a neural or hybrid model (words in, a preset's
        templates; algorithm does not apply: Adam over mini-batches)."""
        kwargs = {"encoder": self.encoder, "preset": self.preset or "pos",
                  "objective": self.objective or "crf",
                  "c2": 1.0 if self.c2 is None else float(self.c2),
                  "threads": int(self.threads or 0)}
        if self.c1:
            kwargs["c1"] = float(self.c1)  # refused by train: neural models have no L1 term
        if self.max_iterations is not None:
            kwargs["epochs"] = int(self.max_iterations)
        if self.embeddings is not None:
            kwargs["embeddings"] = str(self.embeddings)
        if self.loss is not None:
            kwargs["loss"] = self.loss
        if self.all_possible_transitions:
            kwargs["transitions"] = "all"
        if self.options:
            kwargs.update(self.options)
        return kwargs

    def fit(self, X, y, X_dev=None, y_dev=None):
        """Trains on sequences X (per-token feature dicts or lists) with labels y; returns
        self. X_dev/y_dev: development data, scored every iteration (the best iteration's
        weights are kept)."""
        X = list(X)
        y = list(y)
        if len(X) != len(y):
            raise ValueError("expected as many label sequences as sequences (%d), found %d"
                             % (len(X), len(y)))
        dev = None
        if X_dev is not None or y_dev is not None:
            if X_dev is None or y_dev is None:
                raise ValueError("give both X_dev and y_dev")
            dev = list(zip(X_dev, y_dev))
        log = TrainingLog()
        last = [0.0]

        def progress(p):
            log.append(_log_entry(p, last[0]))
            last[0] = p["elapsed_seconds"]
            if self.verbose:
                print("iter %(iteration)d objective %(objective).6g" % p
                      + (" dev %.4g" % p["dev_score"] if p.get("dev_score") is not None else ""),
                      file=_sys.stderr)

        kwargs = self._train_arguments()
        if not self._neural():
            kwargs["format"] = "attributes"
        self.model_ = _chaintag.train(list(zip(X, y)), dev=dev, progress=progress, **kwargs)
        self.training_log_ = log
        if self.model_filename:
            self.model_.save(self.model_filename)
        return self

    # -- prediction -------------------------------------------------------------------------

    def _model(self):
        model = self.__dict__.get("model_")
        if model is None and self.model_filename:
            import os
            if os.path.exists(self.model_filename):
                model = self.model_ = _chaintag.Model.load(self.model_filename)
        if model is None:
            raise AttributeError("CRF: call fit() first (the estimator is not fitted; "
                                 "model_filename= names no existing model)")
        return model

    def __sklearn_is_fitted__(self):
        try:
            self._model()
        except (AttributeError, OSError, ValueError):
            return False
        return True

    @property
    def state_features_(self):
        """{(attribute, label): weight} for every state feature."""
        return self._model().state_features()

    @property
    def transition_features_(self):
        """{(from_label, to_label): weight} for every label pair."""
        return self._model().transition_features()

    @property
    def attributes_(self):
        """The attribute names the model knows."""
        return self._model().attributes()

    @property
    def num_attributes_(self):
        """How many attributes the model knows."""
        return len(self._model().attributes())

    @property
    def size_(self):
        """The model's size in bytes (its model file image)."""
        return len(self._model().__getstate__()[1])

    @property
    def tagger_(self):
        """The trained chaintag.Model (sklearn-crfsuite exposes a pycrfsuite.Tagger here)."""
        return self._model()

    @property
    def classes_(self):
        """The labels the model knows."""
        return list(self._model().labels)

    def predict(self, X):
        """Label sequences for sequences X (tagged with self.threads threads, in order); an
        empty sequence gets an empty labeling. Errors name the sequence: xs[i]."""
        threads = self.threads if self.threads and self.threads > 0 else 1
        X = list(X)
        model = self._model()
        out = [[] for _ in X]
        filled = [i for i, x in enumerate(X) if len(x) > 0]
        if len(filled) == len(X):
            return [s.labels[-1] for s in model.tag_many(X, threads=threads, probability=False)]
        try:
            for i, s in zip(filled, model.tag_many((X[i] for i in filled), threads=threads,
                                                   probability=False)):
                out[i] = s.labels[-1]
        except (TypeError, ValueError) as e:  # name the caller's index, not the filtered one
            import re
            m = re.match(r"xs\[(\d+)\]", str(e))
            if m:
                raise type(e)("xs[%d]%s" % (filled[int(m.group(1))], str(e)[m.end():])) from None
            raise
        return out

    def predict_single(self, xseq):
        """The label sequence of one sequence."""
        if len(xseq) == 0:
            return []
        return self._model().tag(xseq, probability=False).labels[-1]

    def predict_marginals_single(self, xseq):
        """Per token, a dict label -> P(label at that token | x) (needs numpy: without it an
        ImportError says so)."""
        if len(xseq) == 0:
            return []
        s = self._model().tag(xseq, marginals=True, probability=False)
        names = list(s.label_names)
        return [dict(zip(names, (float(p) for p in row))) for row in s.marginals]

    def predict_marginals(self, X):
        """predict_marginals_single for each sequence of X."""
        return [self.predict_marginals_single(xseq) for xseq in X]

    def score(self, X, y):
        """Token accuracy of predict(X) against y (sklearn-crfsuite's flat accuracy)."""
        predicted = self.predict(X)
        correct = total = 0
        for gold, pred in zip(y, predicted):
            gold = list(gold)
            if len(gold) != len(pred):
                raise ValueError("expected %d labels for a sequence, found %d"
                                 % (len(pred), len(gold)))
            correct += sum(1 for a, b in zip(gold, pred) if a == b)
            total += len(gold)
        return correct / total if total else 0.0
