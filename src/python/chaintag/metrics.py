"""chaintag.metrics: sklearn-crfsuite's metrics, for lists of label sequences.

    from chaintag import metrics              # was: from sklearn_crfsuite import metrics
    metrics.flat_f1_score(y_test, y_pred, average="weighted", labels=labels)
    print(metrics.flat_classification_report(y_test, y_pred, labels=labels, digits=3))

The flat_* functions score the tokens of all sequences as one list with scikit-learn's function
of the same name (keyword arguments pass through; scikit-learn is needed for precision, recall,
F1 and the report). sequence_accuracy_score is the share of sequences labelled entirely right.
entity_scores / entity_f1_score / entity_precision_score / entity_recall_score count chunks as
conlleval does (chaintag.evaluate: B-/I-/E-/S- labels, 0-100 scale turned to 0-1 here).
"""

import chaintag as _chaintag

__all__ = ["flat_accuracy_score", "flat_precision_score", "flat_recall_score", "flat_f1_score",
           "flat_fbeta_score", "flat_classification_report", "sequence_accuracy_score",
           "entity_scores", "entity_precision_score", "entity_recall_score", "entity_f1_score"]


def _flatten(y_true, y_pred):
    y_true = [list(seq) for seq in y_true]
    y_pred = [list(seq) for seq in y_pred]
    if len(y_true) != len(y_pred):
        raise ValueError("expected as many predicted sequences as true ones (%d), found %d"
                         % (len(y_true), len(y_pred)))
    for i, (a, b) in enumerate(zip(y_true, y_pred)):
        if len(a) != len(b):
            raise ValueError("sequence %d: expected %d predicted labels (as in y_true), found %d"
                             % (i, len(a), len(b)))
    return [label for seq in y_true for label in seq], [label for seq in y_pred for label in seq]


def _sklearn_metrics(name):
    try:
        import sklearn.metrics
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError("chaintag.metrics.%s needs scikit-learn (Debian: python3-sklearn; "
                          "pip install scikit-learn)" % name) from None
    return sklearn.metrics


def flat_accuracy_score(y_true, y_pred):
    """The share of tokens labelled right, over all sequences."""
    a, b = _flatten(y_true, y_pred)
    return sum(1 for x, y in zip(a, b) if x == y) / len(a) if a else 0.0


def flat_precision_score(y_true, y_pred, **kwargs):
    """sklearn.metrics.precision_score over the tokens of all sequences."""
    return _sklearn_metrics("flat_precision_score").precision_score(
        *_flatten(y_true, y_pred), **kwargs)


def flat_recall_score(y_true, y_pred, **kwargs):
    """sklearn.metrics.recall_score over the tokens of all sequences."""
    return _sklearn_metrics("flat_recall_score").recall_score(*_flatten(y_true, y_pred), **kwargs)


def flat_f1_score(y_true, y_pred, **kwargs):
    """sklearn.metrics.f1_score over the tokens of all sequences."""
    return _sklearn_metrics("flat_f1_score").f1_score(*_flatten(y_true, y_pred), **kwargs)


def flat_fbeta_score(y_true, y_pred, beta, **kwargs):
    """sklearn.metrics.fbeta_score over the tokens of all sequences."""
    return _sklearn_metrics("flat_fbeta_score").fbeta_score(*_flatten(y_true, y_pred), beta=beta,
                                                            **kwargs)


def flat_classification_report(y_true, y_pred, labels=None, **kwargs):
    """sklearn.metrics.classification_report over the tokens of all sequences."""
    return _sklearn_metrics("flat_classification_report").classification_report(
        *_flatten(y_true, y_pred), labels=labels, **kwargs)


def sequence_accuracy_score(y_true, y_pred):
    """The share of sequences whose every label is right."""
    y_true = [list(seq) for seq in y_true]
    y_pred = [list(seq) for seq in y_pred]
    _flatten(y_true, y_pred)
    return (sum(1 for a, b in zip(y_true, y_pred) if a == b) / len(y_true)) if y_true else 0.0


def entity_scores(y_true, y_pred):
    """chaintag.evaluate(y_true, y_pred): conlleval's phrase counts, precision, recall and F1
    (percentages), per type and overall, and the eval command's report text."""
    return _chaintag.evaluate([list(s) for s in y_true], [list(s) for s in y_pred])


def entity_precision_score(y_true, y_pred):
    """conlleval's phrase precision (0-1) over all types."""
    return entity_scores(y_true, y_pred)["precision"] / 100.0


def entity_recall_score(y_true, y_pred):
    """conlleval's phrase recall (0-1) over all types."""
    return entity_scores(y_true, y_pred)["recall"] / 100.0


def entity_f1_score(y_true, y_pred):
    """conlleval's phrase F1 (0-1) over all types."""
    return entity_scores(y_true, y_pred)["f1"] / 100.0
