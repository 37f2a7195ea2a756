#!/usr/bin/env python3
"""The whole sklearn-crfsuite CoNLL-2002 tutorial run on chaintag, changed only in its imports
(marked "was:"): the tutorial's word2features features for ../shared/corpora/conll2002/esp.train,
CRF(algorithm="lbfgs", c1=0.1, c2=0.1, max_iterations=100, all_possible_transitions=True),
metrics.flat_f1_score and flat_classification_report on esp.testa, RandomizedSearchCV over c1/c2
with a make_scorer of flat_f1_score, the best estimator's report, the most likely/unlikely
transitions and state features (Counter.most_common), and joblib.dump/load of the estimator.
Around it (this script's own lines): fit and predict times, conlleval entity F1
(chaintag.evaluate), and the same features written as CRFsuite attribute files, trained and tagged
with `chaintag train/tag --format attributes` with the same options: the CLI's times and whether
its predictions equal Python's.

    PYTHONPATH=build/python python3 tools/ner-tutorial.py [--corpora DIR] [--binary PATH]
        [--search-iter N] [--search-max-iterations N]

The tutorial's search is n_iter=50 fits x cv=3 of max_iterations=100 each; --search-iter and
--search-max-iterations make it smaller on a small machine (the only values that differ from the
tutorial's). Skips (exit 0, with a message) when the corpora are absent. Never ship a model
trained here (CoNLL-2002's terms): everything is written to a temporary directory.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
try:
    import chaintag
except ImportError:
    sys.path.insert(0, os.path.join(ROOT, "build", "python"))
    import chaintag

# --- the tutorial's imports: only these lines differ from it ---------------------------------
from collections import Counter

import joblib
import scipy.stats
from sklearn.metrics import make_scorer
from sklearn.model_selection import RandomizedSearchCV

import chaintag.sklearn as sklearn_crfsuite  # was: import sklearn_crfsuite
from chaintag import scorers  # noqa: F401  # was: from sklearn_crfsuite import scorers
from chaintag import metrics  # was: from sklearn_crfsuite import metrics


def read_conll(path):
    """Sentences of (word, pos, label) triples."""
    sentences, current = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            fields = line.split()
            if not fields:
                if current:
                    sentences.append(current)
                    current = []
                continue
            if fields[0] == "-DOCSTART-":
                continue
            current.append((fields[0], fields[1], fields[-1]))
    if current:
        sentences.append(current)
    return sentences


# --- the tutorial's feature functions, as written there ------------------------------------

def word2features(sent, i):
    word = sent[i][0]
    postag = sent[i][1]
    features = {
        'bias': 1.0,
        'word.lower()': word.lower(),
        'word[-3:]': word[-3:],
        'word[-2:]': word[-2:],
        'word.isupper()': word.isupper(),
        'word.istitle()': word.istitle(),
        'word.isdigit()': word.isdigit(),
        'postag': postag,
        'postag[:2]': postag[:2],
    }
    if i > 0:
        word1 = sent[i - 1][0]
        postag1 = sent[i - 1][1]
        features.update({
            '-1:word.lower()': word1.lower(),
            '-1:word.istitle()': word1.istitle(),
            '-1:word.isupper()': word1.isupper(),
            '-1:postag': postag1,
            '-1:postag[:2]': postag1[:2],
        })
    else:
        features['BOS'] = True
    if i < len(sent) - 1:
        word1 = sent[i + 1][0]
        postag1 = sent[i + 1][1]
        features.update({
            '+1:word.lower()': word1.lower(),
            '+1:word.istitle()': word1.istitle(),
            '+1:word.isupper()': word1.isupper(),
            '+1:postag': postag1,
            '+1:postag[:2]': postag1[:2],
        })
    else:
        features['EOS'] = True
    return features


def sent2features(sent):
    return [word2features(sent, i) for i in range(len(sent))]


def sent2labels(sent):
    return [label for _, _, label in sent]


# --- the same features in CRFsuite's data format ---------------------------------------------

def escape(text):
    return text.replace("\\", "\\\\").replace(":", "\\:")


def attribute_field(key, value):
    """What python-crfsuite makes of one feature: str values give "key=value" with weight 1,
    bools and numbers are weights."""
    if isinstance(value, str):
        return escape("%s=%s" % (key, value))
    weight = float(value)
    return escape(key) if weight == 1.0 else "%s:%r" % (escape(key), weight)


def write_attributes(path, X, y):
    with open(path, "w", encoding="utf-8") as out:
        for xseq, yseq in zip(X, y):
            for feats, label in zip(xseq, yseq):
                out.write("\t".join([escape(label)] +
                                    [attribute_field(k, v) for k, v in feats.items()]))
                out.write("\n")
            out.write("\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpora", default=os.environ.get(
        "CHAINTAG_SHARED_CORPORA", os.path.join(ROOT, "..", "shared", "corpora")))
    ap.add_argument("--binary", default=os.environ.get(
        "CHAINTAG_BINARY", os.path.join(ROOT, "build", "chaintag")))
    ap.add_argument("--search-iter", type=int, default=50,
                    help="RandomizedSearchCV n_iter (the tutorial's 50)")
    ap.add_argument("--search-max-iterations", type=int, default=100,
                    help="max_iterations of the searched CRFs (the tutorial's 100)")
    args = ap.parse_args()

    train_path = os.path.join(args.corpora, "conll2002", "esp.train")
    testa_path = os.path.join(args.corpora, "conll2002", "esp.testa")
    if not (os.path.exists(train_path) and os.path.exists(testa_path)):
        print("ner-tutorial: skipped: %s or %s not found (see corpora/README)"
              % (train_path, testa_path))
        return 0

    train_sents = read_conll(train_path)
    test_sents = read_conll(testa_path)
    start = time.perf_counter()
    X_train = [sent2features(s) for s in train_sents]
    y_train = [sent2labels(s) for s in train_sents]
    X_test = [sent2features(s) for s in test_sents]
    y_test = [sent2labels(s) for s in test_sents]
    feature_seconds = time.perf_counter() - start
    test_tokens = sum(len(s) for s in test_sents)
    print("esp.train: %d sentences, %d tokens; esp.testa: %d sentences, %d tokens; "
          "features in %.1f s" % (len(train_sents), sum(len(s) for s in train_sents),
                                  len(test_sents), test_tokens, feature_seconds))

    # --- the tutorial, as written there ----------------------------------------------------
    crf = sklearn_crfsuite.CRF(
        algorithm='lbfgs',
        c1=0.1,
        c2=0.1,
        max_iterations=100,
        all_possible_transitions=True
    )
    start = time.perf_counter()
    crf.fit(X_train, y_train)
    train_seconds = time.perf_counter() - start
    print("fit: %.1f s (%d iterations)" % (train_seconds, len(crf.training_log_.iterations)))

    labels = list(crf.classes_)
    labels.remove('O')
    print("labels:", labels)

    start = time.perf_counter()
    y_pred = crf.predict(X_test)
    predict_seconds = time.perf_counter() - start
    print("predict: %.2f s (%.0f tokens/s, features ready)"
          % (predict_seconds, test_tokens / predict_seconds))
    print("flat_f1_score (weighted, without O): %.4f"
          % metrics.flat_f1_score(y_test, y_pred, average='weighted', labels=labels))

    # group B and I results
    sorted_labels = sorted(
        labels,
        key=lambda name: (name[1:], name[0])
    )
    print(metrics.flat_classification_report(
        y_test, y_pred, labels=sorted_labels, digits=3
    ))

    scores = chaintag.evaluate(y_test, y_pred)
    print("esp.testa entity F1 %.2f (precision %.2f, recall %.2f; token accuracy %.2f)"
          % (scores["f1"], scores["precision"], scores["recall"], scores["accuracy"]))

    # define fixed parameters and parameters to search
    crf = sklearn_crfsuite.CRF(
        algorithm='lbfgs',
        max_iterations=args.search_max_iterations,
        all_possible_transitions=True
    )
    params_space = {
        'c1': scipy.stats.expon(scale=0.5),
        'c2': scipy.stats.expon(scale=0.05),
    }

    # use the same metric for evaluation
    f1_scorer = make_scorer(metrics.flat_f1_score,
                            average='weighted', labels=labels)

    # search
    rs = RandomizedSearchCV(crf, params_space,
                            cv=3,
                            verbose=1,
                            n_jobs=2,
                            n_iter=args.search_iter,
                            scoring=f1_scorer,
                            random_state=0)
    start = time.perf_counter()
    rs.fit(X_train, y_train)
    print("search: %.1f s" % (time.perf_counter() - start))

    print('best params:', rs.best_params_)
    print('best CV score:', rs.best_score_)
    print('model size: {:0.2f}M'.format(rs.best_estimator_.size_ / 1000000))

    crf = rs.best_estimator_
    y_pred_best = crf.predict(X_test)
    print(metrics.flat_classification_report(
        y_test, y_pred_best, labels=sorted_labels, digits=3
    ))

    def print_transitions(trans_features):
        for (label_from, label_to), weight in trans_features:
            print("%-6s -> %-7s %0.6f" % (label_from, label_to, weight))

    print("Top likely transitions:")
    print_transitions(Counter(crf.transition_features_).most_common(20))

    print("\nTop unlikely transitions:")
    print_transitions(Counter(crf.transition_features_).most_common()[-20:])

    def print_state_features(state_features):
        for (attr, label), weight in state_features:
            print("%0.6f %-8s %s" % (weight, label, attr))

    print("Top positive:")
    print_state_features(Counter(crf.state_features_).most_common(30))

    print("\nTop negative:")
    print_state_features(Counter(crf.state_features_).most_common()[-30:])

    with tempfile.TemporaryDirectory() as tmp:
        joblib.dump(crf, os.path.join(tmp, 'crf.joblib'))
        restored = joblib.load(os.path.join(tmp, 'crf.joblib'))
        print("joblib.dump/load: predictions %s"
              % ("identical" if restored.predict(X_test) == y_pred_best else "DIFFER"))

    if not os.path.exists(args.binary):
        print("ner-tutorial: CLI check skipped: %s not found (build it or pass --binary)"
              % args.binary)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        train_file = os.path.join(tmp, "esp.train.attributes")
        test_file = os.path.join(tmp, "esp.testa.attributes")
        model_file = os.path.join(tmp, "esp.model")
        write_attributes(train_file, X_train, y_train)
        write_attributes(test_file, X_test, y_test)
        # lbfgs with c1 > 0 is OWL-QN, as in CRFsuite (and in chaintag.sklearn.CRF);
        # all_possible_transitions=True is --transitions all (a weight for every pair, no mask).
        command = [args.binary, "train", "--format", "attributes", "--algorithm", "owlqn",
                   "--c1", "0.1", "--c2", "0.1", "--max-iterations", "100",
                   "--transitions", "all", "-o", model_file, train_file]
        start = time.perf_counter()
        subprocess.run(command, check=True, stderr=subprocess.DEVNULL)
        cli_seconds = time.perf_counter() - start
        start = time.perf_counter()
        tagged = subprocess.run([args.binary, "tag", "-m", model_file, test_file], check=True,
                                stdout=subprocess.PIPE, text=True, encoding="utf-8").stdout
        cli_tag_seconds = time.perf_counter() - start
        cli_pred, current = [], []
        for line in tagged.split("\n"):
            if not line:
                if current:
                    cli_pred.append(current)
                    current = []
                continue
            current.append(line.split(" ")[-1])  # gold, then predicted
        python_tokens = [label for seq in y_pred for label in seq]
        cli_tokens = [label for seq in cli_pred for label in seq]
        differ = sum(1 for a, b in zip(python_tokens, cli_tokens) if a != b)
        same = len(python_tokens) == len(cli_tokens) and differ == 0
        print("chaintag train --format attributes (same features and options): %.1f s "
              "(Python fit %.1f s); chaintag tag: %.2f s including reading the attribute file "
              "(Python predict %.2f s); predictions on esp.testa %s (%d tokens%s)"
              % (cli_seconds, train_seconds, cli_tag_seconds, predict_seconds,
                 "IDENTICAL" if same else "DIFFER", len(python_tokens),
                 "" if same else ", %d differ, %d vs %d tokens"
                 % (differ, len(python_tokens), len(cli_tokens))))
        return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
