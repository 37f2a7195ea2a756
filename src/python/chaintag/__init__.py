"""chaintag: linear-chain tagging (POS, chunks, NER) with exact constrained decoding.

    >>> import chaintag
    >>> p = chaintag.load()                      # the shipped English POS + chunk models
    >>> s = p.tag_text("The old man saw it.")[0]
    >>> s.tokens, s.labels                       # one label list per model
    >>> m = chaintag.Model.load("models/en-chunk.model")
    >>> m.tag([("The", "DT"), ("man", "NN")], kbest=2, counts={"chunk:NP": (1, None)})

chaintag.load(*paths) makes a Pipeline; chaintag.Model.load(path) reads one model;
chaintag.train(...) trains one. Model and Pipeline share tag(), tag_text() and tag_many().
Models trained on attributes (per-token feature dicts, or CRFsuite data files) tag lists of
feature dicts; chaintag.sklearn.CRF is a drop-in for sklearn_crfsuite.CRF. chaintag.evaluate
scores label sequences as `chaintag eval` does (conlleval counting); chaintag.metrics and
chaintag.scorers are sklearn-crfsuite's metrics and scorers. Models and pipelines pickle.
Library errors raise ValueError (FileNotFoundError for missing files). numpy is needed only
for marginals=True.
"""

import os as _os

from chaintag._core import Model, Pipeline, Sentence, Solution, TagStream, evaluate
from chaintag import _core

__all__ = ["load", "train", "evaluate", "Model", "Pipeline", "Sentence", "Solution", "TagStream",
           "presets", "train_options", "default_model_paths"]


def _model_dirs():
    """Directories searched for the shipped models after $CHAINTAG_MODELS: the package's own
    share/chaintag/models (pip install .), share/chaintag/models two levels above this package (a build tree: build/python/chaintag -> build/share) or four
    (an installation: PREFIX/lib/pythonX.Y/site-packages/chaintag -> PREFIX/share)."""
    here = _os.path.dirname(_os.path.abspath(__file__))
    up = here
    dirs = []
    for _ in range(4):
        up = _os.path.dirname(up)
        dirs.append(_os.path.join(up, "share", "chaintag", "models"))
    import sys
    dirs.append(_os.path.join(sys.prefix, "share", "chaintag", "models"))
    # pip install . puts the models inside the package.
    return [_os.path.join(here, "share", "chaintag", "models"), dirs[1], dirs[3], dirs[4]]


def default_model_paths(accurate=False):
    """Paths of the shipped default pipeline (en-pos.model, en-chunk.model), or with
    accurate=True of the accurate one (en-pos-nn.model and en-chunk-nn.model, the hybrid
    neural POS tagger and chunker), found as the chaintag binary finds them: $CHAINTAG_MODELS, then
    share/chaintag/models relative to this package or to the running program. Raises
    FileNotFoundError naming every place tried."""
    files = _core._accurate_model_files() if accurate else _core._default_model_files()
    return [_core._shipped_model_path(f, _model_dirs()) for f in files]


def load(*paths, accurate=False):
    """A Pipeline of the given model files (str or os.PathLike; Model objects are taken as
    they are), or of the shipped models (POS, then chunks) when none is given: the fast
    en-pos + en-chunk, or with accurate=True en-pos-nn + en-chunk-nn (more accurate, slower)."""
    if paths and accurate:
        raise ValueError("load: accurate=True chooses the shipped models; give no paths with it")
    if not paths:
        paths = default_model_paths(accurate)
    # The files are loaded at once, one thread each (a clustering they share is parsed once).
    loaded = iter(_core._load_models([p for p in paths if not isinstance(p, Model)]))
    models = [p if isinstance(p, Model) else next(loaded) for p in paths]
    return _core._pipeline(models)


def presets():
    """Names of the feature template presets (train(preset=...))."""
    return list(_core._presets())


def train_options():
    """The trainer option table: (name, default, help) for every **options of train()."""
    return list(_core._train_options())


def train(data, *, preset=None, template=None, template_text=None, format=None,
          label_column=-1, objective="crf", loss=None, algorithm=None, dev=None,
          progress=None, **options):
    """Trains a model and returns it (save it with Model.save).

    data      a corpus file path (or a list of paths; format= or the extension says how to read
              them, label_column= which CoNLL column is the label, -1 = last), or in-memory
              sequences: an iterable of (tokens, labels) pairs, tokens being a list of str or of
              column tuples (word first), labels a list of str of the same length; or
              attribute input (no templates): tokens as feature dicts ({"word.lower()": "the",
              "bias": 1.0}: str values give "name=value" with weight 1, numbers are weights, as
              in python-crfsuite), or lists of attribute names with format="attributes", or
              files in CRFsuite's data format with format="attributes"
    preset    a feature template preset (chaintag.presets()), or
    template  a template file, or template_text the templates themselves (docs/templates.md)
    objective "crf", "softmax-margin", "ssvm-margin", "ssvm-slack" or "perceptron"
    loss      e.g. "hamming", "f1", "fbeta:0.5" (SSVM and softmax-margin)
    algorithm "lbfgs", "owlqn", "bcfw", "sgd", "perceptron" (default: chosen by the objective)
    dev       development data (same forms as data), scored every iteration; the best
              iteration's weights are kept
    progress  a callable receiving a dict per iteration (iteration, objective, dev_score, ...);
              if it raises, training stops there and the exception is raised
    options   every trainer option of chaintag.train_options(): c1=, c2=, max_iterations=,
              threads=, seed=, early_stopping=, ...

    Ctrl-C raises KeyboardInterrupt within a fraction of a second (training runs on a thread of
    its own, which stops at the end of its current iteration; no model is returned).
    """
    return _core._train(data, preset=preset, template=template, template_text=template_text,
                        format=format, label_column=label_column, objective=objective,
                        loss=loss, algorithm=algorithm, dev=dev, progress=progress, **options)
