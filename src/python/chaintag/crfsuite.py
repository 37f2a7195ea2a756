"""chaintag.crfsuite: python-crfsuite's API (pycrfsuite) on chaintag.

    import chaintag.crfsuite as pycrfsuite     # was: import pycrfsuite

    trainer = pycrfsuite.Trainer(verbose=False)
    for xseq, yseq in zip(X_train, y_train):
        trainer.append(xseq, yseq)
    trainer.set_params({"c1": 1.0, "c2": 1e-3, "max_iterations": 50,
                        "feature.possible_transitions": True})
    trainer.train("model.crfsuite")            # a chaintag model file
    tagger = pycrfsuite.Tagger()
    tagger.open("model.crfsuite")
    tagger.tag(xseq), tagger.probability(yseq), tagger.marginal("B-LOC", 0), tagger.info()

Items are python-crfsuite's: a dict {name: value} per token (str values give "name=value" with
weight 1, numbers are weights, nested dicts give "name:inner") or a list of names, or an
ItemSequence. The model file is chaintag's format, not CRFsuite's.

Algorithms and parameters (Trainer.select, set_params; crfsuite's names):
    lbfgs   c1, c2, max_iterations, num_memories, period, delta, feature.minfreq,
            feature.possible_states, feature.possible_transitions, epsilon, linesearch,
            max_linesearch; L-BFGS (OWL-QN when c1 > 0) on the CRF objective
    l2sgd   c2, max_iterations, feature.*: chaintag's SGD on the same objective
    ap      max_iterations, feature.*: the averaged perceptron
    pa, arow  max_iterations, feature.*: chaintag's large-margin counterpart (the structural SVM,
            block-coordinate Frank-Wolfe)
Mapped: feature.minfreq -> min_feature_count, num_memories -> lbfgs_memory, delta -> tolerance,
period -> period. Accepted with CRFsuite's defaults only (any other value is a ValueError naming
the reason): feature.possible_states (chaintag's state features are the (attribute, label) pairs
seen in training: CRFsuite's False), epsilon, linesearch, max_linesearch (chaintag's L-BFGS stops
on delta/period and uses its own line search). feature.possible_transitions as CRFsuite
defines it: 1, a weight for every label pair; 0, weights only for the transitions (and first and
last labels) seen in training, the others scoring 0. When it is never set, chaintag's default
applies: a weight for every pair and, for labels that follow IOB, the transition mask that
forbids O -> I-X (never seen in training) in training and tagging. The choice is stored in the
model (Tagger.info().header["transitions"]: all or observed; absent for the default).
"""

import math as _math
import os as _os
import sys as _sys
import tempfile as _tempfile

import chaintag as _chaintag

__all__ = ["Trainer", "Tagger", "ItemSequence", "BaseTrainer", "CRFSuiteError"]


class CRFSuiteError(ValueError):
    """A parameter or use python-crfsuite would refuse."""


class ItemSequence:
    """A sequence of items (per-token feature dicts or lists of names), as python-crfsuite's."""

    def __init__(self, items):
        if isinstance(items, ItemSequence):
            items = items._items
        self._items = list(items)

    def items(self):
        """The items as dicts {name: weight}, as python-crfsuite returns them."""
        out = []
        for item in self._items:
            d = {}
            _flatten(item, "", d)
            out.append(d)
        return out

    def __len__(self):
        return len(self._items)

    def __getitem__(self, i):
        return self._items[i]

    def __iter__(self):
        return iter(self._items)

    def __repr__(self):
        return "<ItemSequence (%d)>" % len(self)


def _flatten(item, prefix, out):
    if isinstance(item, dict):
        for k, v in item.items():
            if isinstance(v, str):
                out[prefix + k + "=" + v] = 1.0
            elif isinstance(v, dict):
                _flatten(v, prefix + k + ":", out)
            else:
                out[prefix + k] = float(v)
    else:
        for name in item:
            out[prefix + name] = 1.0


def _xseq(xseq):
    return xseq._items if isinstance(xseq, ItemSequence) else list(xseq)


_FEATURE_PARAMS = [
    ("feature.minfreq", 0.0, "The minimum frequency of features."),
    ("feature.possible_states", False,
     "Force to generate possible state features (no counterpart: only False)."),
    ("feature.possible_transitions", False,
     "Force to generate possible transition features (never set: chaintag's IOB mask)."),
]
_ALGORITHM_PARAMS = {
    "lbfgs": [
        ("c1", 0.0, "Coefficient for L1 regularization."),
        ("c2", 1.0, "Coefficient for L2 regularization."),
        ("max_iterations", 2147483647, "The maximum number of iterations for L-BFGS."),
        ("num_memories", 6, "The number of limited memories for approximating the inverse "
                            "hessian matrix."),
        ("epsilon", 1e-5, "Epsilon for testing the convergence of the objective (only the "
                          "default: chaintag stops on delta over period)."),
        ("period", 10, "The duration of iterations to test the stopping criterion."),
        ("delta", 1e-5, "The threshold for the stopping criterion; an L-BFGS iteration stops "
                        "when the improvement of the log likelihood over the last ${period} "
                        "iterations is no greater than this threshold."),
        ("linesearch", "MoreThuente", "The line search algorithm used in L-BFGS updates (only "
                                      "the default: chaintag has its own)."),
        ("max_linesearch", 20, "The maximum number of trials for the line search algorithm "
                               "(only the default)."),
    ],
    "l2sgd": [
        ("c2", 1.0, "Coefficient for L2 regularization."),
        ("max_iterations", 1000, "The maximum number of iterations (epochs) for SGD."),
    ],
    "ap": [("max_iterations", 100, "The maximum number of iterations.")],
    "pa": [("max_iterations", 100, "The maximum number of iterations.")],
    "arow": [("max_iterations", 100, "The maximum number of iterations.")],
}
_ALIASES = {"lbfgs": "lbfgs", "l2sgd": "l2sgd", "ap": "ap", "averaged-perceptron": "ap",
            "pa": "pa", "passive-aggressive": "pa", "arow": "arow"}
_DEFAULT_ONLY = {
    "feature.possible_states": "chaintag's state features are the (attribute, label) pairs seen "
                               "in training",
    "epsilon": "chaintag's L-BFGS stops when the objective improves by less than delta over "
               "period iterations",
    "linesearch": "chaintag's L-BFGS has its own line search",
    "max_linesearch": "chaintag's L-BFGS has its own line search",
}


def _bool(value):
    if isinstance(value, str):
        if value.lower() in ("1", "true", "yes"):
            return True
        if value.lower() in ("0", "false", "no"):
            return False
        raise CRFSuiteError("expected a boolean, found %r" % value)
    return bool(value)


class _LogParser:
    """Trainer.logparser: the iterations seen so far (python-crfsuite's shape)."""

    def __init__(self):
        self.iterations = []
        self.last_iteration = None

    def feed(self, p, previous_time):
        it = {"num": p["iteration"], "loss": p["objective"],
              "time": p["elapsed_seconds"] - previous_time,
              "active_features": p["active_features"], "error_norm": p.get("gradient_norm"),
              "feature_norm": None, "linesearch_trials": None, "linesearch_step": None,
              "scores": {}}
        self.iterations.append(it)
        self.last_iteration = it
        return it


class BaseTrainer:
    """python-crfsuite's Trainer: append sequences, select an algorithm, set parameters, train."""

    def __init__(self, algorithm="lbfgs", params=None, verbose=True):
        self.verbose = verbose
        self._data = []
        self.select(algorithm)
        if params:
            self.set_params(params)
        self.logparser = _LogParser()

    def append(self, xseq, yseq, group=0):
        """Adds a training sequence: items (ItemSequence, dicts or name lists) and labels."""
        xs = _xseq(xseq)
        ys = list(yseq)
        if len(xs) != len(ys):
            raise ValueError("The numbers of items and labels differ: |x| = %d, |y| = %d"
                             % (len(xs), len(ys)))
        if not all(isinstance(label, str) for label in ys):
            raise TypeError("yseq: expected str labels")
        self._data.append((xs, ys))

    def clear(self):
        """Removes every appended sequence."""
        self._data = []

    def select(self, algorithm, type="crf1d"):
        """Chooses the training algorithm (lbfgs, l2sgd, ap, pa, arow); resets the parameters."""
        if type != "crf1d":
            raise CRFSuiteError("type: only 'crf1d' (a linear-chain CRF), found %r" % (type,))
        name = _ALIASES.get(str(algorithm).lower())
        if name is None:
            raise CRFSuiteError("algorithm: expected one of lbfgs, l2sgd, ap, pa, arow; found %r"
                                % (algorithm,))
        self.algorithm = name
        self._params = {n: d for n, d, _ in _FEATURE_PARAMS + _ALGORITHM_PARAMS[name]}
        self._explicit = set()  # parameters set by the user (possible_transitions: None = IOB)
        self._help = {n: h for n, _, h in _FEATURE_PARAMS + _ALGORITHM_PARAMS[name]}

    def params(self):
        """The parameter names of the selected algorithm."""
        return list(self._params)

    def get_params(self):
        """{name: value} of every parameter."""
        return dict(self._params)

    def set_params(self, params):
        """Sets parameters from a dict (crfsuite's names)."""
        for name, value in params.items():
            self.set(name, value)

    def get(self, name):
        """The value of a parameter."""
        self._check_name(name)
        return self._params[name]

    def help(self, name):
        """The description of a parameter."""
        self._check_name(name)
        return self._help[name]

    def set(self, name, value):
        """Sets one parameter; a value chaintag cannot honour raises ValueError saying why."""
        self._check_name(name)
        default = self._params[name] if name not in _DEFAULT_ONLY else None
        for n, d, _ in _FEATURE_PARAMS + _ALGORITHM_PARAMS[self.algorithm]:
            if n == name:
                default = d
        if isinstance(default, bool):
            value = _bool(value)
        elif isinstance(default, int):
            value = int(value)
        elif isinstance(default, float):
            value = float(value)
            if not _math.isfinite(value) or value < 0:
                raise CRFSuiteError("%s: expected a finite number >= 0, found %r" % (name, value))
        else:
            value = str(value)
        if name in _DEFAULT_ONLY and value != default:
            raise CRFSuiteError("%s=%r has no counterpart in chaintag (%s); only %r is accepted"
                                % (name, value, _DEFAULT_ONLY[name], default))
        self._params[name] = value
        self._explicit.add(name)

    def _check_name(self, name):
        if name not in self._params:
            raise CRFSuiteError("parameter not found: %s (the %s parameters: %s)"
                                % (name, self.algorithm, ", ".join(self._params)))

    def message(self, message):
        """Receives the training log's lines (printed when verbose)."""
        if self.verbose:
            print(message, end="", file=_sys.stdout)

    def on_iteration(self, log, info):
        """Called with the log text and the iteration dict after each iteration."""
        self.message(log)

    def _train_arguments(self):
        p = self._params
        kwargs = {}
        if self.algorithm == "lbfgs":
            kwargs["objective"] = "crf"
            if p["c1"] > 0:
                kwargs["algorithm"] = "owlqn"
                kwargs["c1"] = p["c1"]
            else:
                kwargs["algorithm"] = "lbfgs"
            kwargs["c2"] = p["c2"]
            kwargs["lbfgs_memory"] = p["num_memories"]
            kwargs["tolerance"] = p["delta"]
            kwargs["period"] = p["period"]
            kwargs["max_iterations"] = min(p["max_iterations"], 1000000)
        elif self.algorithm == "l2sgd":
            kwargs.update(objective="crf", algorithm="sgd", c2=p["c2"],
                          max_iterations=p["max_iterations"])
        elif self.algorithm == "ap":
            kwargs.update(objective="perceptron", max_iterations=p["max_iterations"])
        else:
            kwargs.update(objective="ssvm-margin", max_iterations=p["max_iterations"])
        if p["feature.minfreq"] > 1:
            kwargs["min_feature_count"] = int(_math.ceil(p["feature.minfreq"]))
        if "feature.possible_transitions" in self._explicit:
            kwargs["transitions"] = "all" if p["feature.possible_transitions"] else "observed"
        return kwargs

    def train(self, model, holdout=-1):
        """Trains on the appended sequences and writes the model file `model`. holdout: the
        group appended with that number is used as development data (scored every
        iteration)."""
        if not self._data:
            raise CRFSuiteError("no training data: append() sequences first")
        self.logparser = _LogParser()
        previous = [0.0]

        def progress(p):
            it = self.logparser.feed(p, previous[0])
            previous[0] = p["elapsed_seconds"]
            text = ("***** Iteration #%d *****\nLoss: %f\nFeature norm: -\nError norm: %s\n"
                    "Active features: %d\nSeconds required for this iteration: %.3f\n\n"
                    % (it["num"], it["loss"], it["error_norm"], it["active_features"],
                       it["time"]))
            self.on_iteration(text, it)

        trained = _chaintag.train(self._data, format="attributes", progress=progress,
                                  **self._train_arguments())
        trained.save(model)
        self.message("Total seconds required for training: %.3f\n" % previous[0])
        return trained


class Trainer(BaseTrainer):
    """python-crfsuite's Trainer (the verbose log goes to stdout)."""


class Tagger:
    """python-crfsuite's Tagger: open a model, tag item sequences, probabilities, marginals."""

    def __init__(self):
        self._model = None
        self._xseq = None

    def open(self, name):
        """Opens a model file (FileNotFoundError / ValueError as chaintag.Model.load)."""
        self._model = _chaintag.Model.load(name)
        self._xseq = None
        return self

    def open_inmemory(self, value):
        """Opens a model from its file image (bytes)."""
        with _tempfile.NamedTemporaryFile(suffix=".model", delete=False) as f:
            f.write(bytes(value))
        try:
            return self.open(f.name)
        finally:
            _os.unlink(f.name)

    def close(self):
        """Closes the model."""
        self._model = None
        self._xseq = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _opened(self):
        if self._model is None:
            raise CRFSuiteError("no model is open: call open() first")
        return self._model

    def labels(self):
        """The model's labels."""
        return list(self._opened().labels)

    def set(self, xseq):
        """Sets the item sequence that tag(), probability() and marginal() use."""
        self._opened()
        self._xseq = _xseq(xseq)

    def _current(self, xseq=None):
        if xseq is not None:
            self.set(xseq)
        if self._xseq is None:
            raise CRFSuiteError("no item sequence: call set(xseq) or tag(xseq) first")
        return self._xseq

    def tag(self, xseq=None):
        """The most probable labels of xseq (or of the sequence given to set())."""
        x = self._current(xseq)
        if not x:
            return []
        return self._opened().tag(x, probability=False).labels[-1]

    def probability(self, yseq):
        """P(yseq | x) of the current sequence."""
        x = self._current()
        return self._opened().probability(x, list(yseq))

    def marginal(self, y, pos):
        """P(label y at position pos | x) of the current sequence."""
        x = self._current()
        return self._opened().marginal(x, y, pos)

    def info(self):
        """The model's header, labels, attributes, transitions {(from, to): w} and
        state_features {(attr, label): w} (python-crfsuite's ParsedDump)."""
        m = self._opened()
        return _ParsedDump(m)

    def dump(self, filename=None):
        """Writes the model as text (header, labels, attributes, transitions, state features):
        to `filename`, or to stdout."""
        m = self._opened()
        lines = ["FILEHEADER = {", "  labels: %d" % len(m.labels),
                 "  attributes: %d" % len(m.attributes()), "}", "", "LABELS = {"]
        lines += ["  %d: %s" % (i, label) for i, label in enumerate(m.labels)]
        lines += ["}", "", "ATTRIBUTES = {"]
        lines += ["  %d: %s" % (i, a) for i, a in enumerate(m.attributes())]
        lines += ["}", "", "TRANSITIONS = {"]
        lines += ["  (1) %s --> %s: %f" % (a, b, w)
                  for (a, b), w in m.transition_features().items() if w != 0]
        lines += ["}", "", "STATE_FEATURES = {"]
        lines += ["  (0) %s --> %s: %f" % (a, y, w)
                  for (a, y), w in m.state_features().items() if w != 0]
        lines += ["}", ""]
        text = "\n".join(lines)
        if filename is None:
            _sys.stdout.write(text)
        else:
            with open(filename, "w", encoding="utf-8") as f:
                f.write(text)


class _ParsedDump:
    def __init__(self, model):
        meta = model.info()
        self.header = {"num_labels": str(len(model.labels)),
                       "num_attrs": str(len(model.attributes()))}
        self.header.update({k: str(v) for k, v in meta["metadata"].items()})
        self.labels = {label: i for i, label in enumerate(model.labels)}
        self.attributes = {a: i for i, a in enumerate(model.attributes())}
        self.transitions = model.transition_features()
        self.state_features = model.state_features()
