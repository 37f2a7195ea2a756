"""chaintag.scorers: scorers for scikit-learn's searches (cross_val_score, RandomizedSearchCV),
as sklearn_crfsuite.scorers, plus conlleval's entity F1:

    from chaintag import scorers
    cross_val_score(crf, X, y, scoring=scorers.sequence_accuracy)

For other metrics: sklearn.metrics.make_scorer(chaintag.metrics.flat_f1_score,
average="weighted", labels=labels).
"""

from sklearn.metrics import make_scorer as _make_scorer

from chaintag import metrics as _metrics

__all__ = ["flat_accuracy", "sequence_accuracy", "entity_f1"]

flat_accuracy = _make_scorer(_metrics.flat_accuracy_score)
sequence_accuracy = _make_scorer(_metrics.sequence_accuracy_score)
entity_f1 = _make_scorer(_metrics.entity_f1_score)
