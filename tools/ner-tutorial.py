#!/usr/bin/env python3
"""The sklearn-crfsuite CoNLL-2002 tutorial done with chaintag: the tutorial's word2features
features for ../shared/corpora/conll2002/esp.train, chaintag.sklearn.CRF(algorithm="lbfgs",
c1=0.1, c2=0.1, max_iterations=100, all_possible_transitions=True), entity F1 on esp.testa
(conlleval counting, chaintag.evaluate), training seconds and tagging tokens/s. Then the same
features are written as CRFsuite attribute files, trained with `chaintag train --format
attributes` with the same options, and the CLI's predictions on esp.testa are compared with
Python's (they must be identical).

    PYTHONPATH=build/python python3 tools/ner-tutorial.py [--corpora DIR] [--binary PATH]

Skips (exit 0, with a message) when the corpora are absent. Never ship a model trained here
(CoNLL-2002's terms): everything is written to a temporary directory.
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
from chaintag.sklearn import CRF


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
    ap.add_argument("--threads", type=int, default=1, help="tagging threads (default 1)")
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

    crf = CRF(algorithm="lbfgs", c1=0.1, c2=0.1, max_iterations=100,
              all_possible_transitions=True)
    start = time.perf_counter()
    crf.fit(X_train, y_train)
    train_seconds = time.perf_counter() - start
    print("training: %.1f s (%d iterations, %s)" % (
        train_seconds, len(crf.training_log_), crf.tagger_.info()["metadata"]["stop_reason"]))

    crf.threads = args.threads
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        y_pred = crf.predict(X_test)
        best = min(best, time.perf_counter() - start)
    print("tagging esp.testa (tag_many, %d thread%s, features ready): %.0f tokens/s"
          % (args.threads, "" if args.threads == 1 else "s", test_tokens / best))

    scores = chaintag.evaluate(y_test, y_pred)
    print("esp.testa entity F1 %.2f (precision %.2f, recall %.2f; token accuracy %.2f)"
          % (scores["f1"], scores["precision"], scores["recall"], scores["accuracy"]))
    for t in sorted(scores["types"]):
        s = scores["types"][t]
        print("  %-5s F1 %6.2f  precision %6.2f  recall %6.2f  (%d gold)"
              % (t, s["f1"], s["precision"], s["recall"], s["gold"]))

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
        # lbfgs with c1 > 0 is OWL-QN, as in CRFsuite (and in chaintag.sklearn.CRF).
        command = [args.binary, "train", "--format", "attributes", "--algorithm", "owlqn",
                   "--c1", "0.1", "--c2", "0.1", "--max-iterations", "100", "-o", model_file,
                   train_file]
        start = time.perf_counter()
        subprocess.run(command, check=True, stderr=subprocess.DEVNULL)
        cli_seconds = time.perf_counter() - start
        tagged = subprocess.run([args.binary, "tag", "-m", model_file, test_file], check=True,
                                stdout=subprocess.PIPE, text=True, encoding="utf-8").stdout
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
        print("chaintag train --format attributes (same features and options): %.1f s; "
              "predictions on esp.testa %s (%d tokens%s)"
              % (cli_seconds, "IDENTICAL" if same else "DIFFER", len(python_tokens),
                 "" if same else ", %d differ, %d vs %d tokens"
                 % (differ, len(python_tokens), len(cli_tokens))))
        return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
