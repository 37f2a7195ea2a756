"""Attribute input from Python (feature dicts, python-crfsuite style), chaintag.evaluate and the
sklearn-crfsuite compatible chaintag.sklearn.CRF."""

import os
import random
import tempfile
import unittest

import chaintag
from chaintag.sklearn import CRF

try:
    import numpy  # noqa: F401
    HAVE_NUMPY = True
except ImportError:
    HAVE_NUMPY = False

try:
    import sklearn.model_selection  # noqa: F401
    HAVE_SKLEARN = True
except ImportError:
    HAVE_SKLEARN = False


def word2features(sent, i):
    """The sklearn-crfsuite tutorial's feature function, on (word, pos) pairs."""
    word, pos = sent[i]
    f = {"bias": 1.0, "word.lower()": word.lower(), "word[-2:]": word[-2:],
         "word.istitle()": word.istitle(), "postag": pos}
    if i > 0:
        f["-1:word.lower()"] = sent[i - 1][0].lower()
    else:
        f["BOS"] = True
    if i < len(sent) - 1:
        f["+1:word.lower()"] = sent[i + 1][0].lower()
    else:
        f["EOS"] = True
    return f


def toy_corpus(n, seed):
    """Sentences where capitalised words after 'in' are B-LOC, other capitalised words B-PER."""
    rng = random.Random(seed)
    names = ["Paris", "Rome", "Ana", "Luis", "Madrid", "Eva"]
    words = ["the", "man", "saw", "a", "dog", "went", "house", "big"]
    sents, labels = [], []
    for _ in range(n):
        s, y = [], []
        for _ in range(rng.randint(3, 9)):
            if rng.random() < 0.2:
                s.append(("in", "IN"))
                y.append("O")
                s.append((rng.choice(names), "NNP"))
                y.append("B-LOC")
            elif rng.random() < 0.2:
                s.append((rng.choice(names), "NNP"))
                y.append("B-PER")
            else:
                s.append((rng.choice(words), "NN"))
                y.append("O")
        sents.append(s)
        labels.append(y)
    return [[word2features(s, i) for i in range(len(s))] for s in sents], labels


def escape(name):
    return name.replace("\\", "\\\\").replace(":", "\\:")


def attribute_lines(xseq, yseq):
    """The CRFsuite data format of one sequence (as python-crfsuite would see the dicts)."""
    lines = []
    for feats, label in zip(xseq, yseq):
        fields = [label]
        for key, value in feats.items():
            if isinstance(value, str):
                fields.append(escape("%s=%s" % (key, value)))
            else:
                w = float(value)
                fields.append(escape(key) + ("" if w == 1.0 else ":%r" % w))
        lines.append("\t".join(fields))
    return "\n".join(lines) + "\n\n"


class AttributeModelTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.X, cls.y = toy_corpus(120, 1)
        cls.Xt, cls.yt = toy_corpus(40, 2)
        cls.model = chaintag.train(list(zip(cls.X, cls.y)), c2=0.1, max_iterations=50)

    def test_trains_and_tags_dicts_and_lists(self):
        self.assertEqual(sorted(self.model.labels), ["B-LOC", "B-PER", "O"])
        pred = [s.labels[-1] for s in self.model.tag_many(self.Xt, threads=2)]
        scores = chaintag.evaluate(self.yt, pred)
        self.assertGreater(scores["accuracy"], 95.0)
        self.assertGreater(scores["f1"], 90.0)
        self.assertIn("LOC", scores["types"])
        self.assertIn("FB1", scores["report"])
        # A list of names is the same as a dict of weight-1 names.
        names = [[k + ("=" + v if isinstance(v, str) else "") for k, v in f.items()
                  if not isinstance(v, bool) or v] for f in self.Xt[0]]
        self.assertEqual(self.model.tag(names).labels, self.model.tag(self.Xt[0]).labels)

    def test_weights_are_real_valued(self):
        x = [dict(f) for f in self.Xt[0]]
        base = self.model.tag(x).score
        for f in x:
            f["bias"] = 0.0  # weight 0: the bias feature adds nothing
        self.assertNotAlmostEqual(self.model.tag(x).score, base, places=6)
        for f in x:
            f["bias"] = 2.0
        self.assertNotAlmostEqual(self.model.tag(x).score, base, places=6)

    def test_file_and_memory_give_the_same_model(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "train.txt")
            with open(path, "w", encoding="utf-8") as out:
                for xseq, yseq in zip(self.X, self.y):
                    out.write(attribute_lines(xseq, yseq))
            from_file = chaintag.train(path, format="attributes", c2=0.1, max_iterations=50)
            model_path = os.path.join(d, "m.model")
            from_file.save(model_path)
            loaded = chaintag.Model.load(model_path)
        for xseq in self.Xt:
            a = self.model.tag(xseq)
            b = loaded.tag(xseq)
            self.assertEqual(a.labels, b.labels)
            self.assertAlmostEqual(a.score, b.score, places=9)
        self.assertIn("attributes", str(loaded.info()))

    def test_errors(self):
        with self.assertRaises(ValueError):
            self.model.tag([{"a": float("nan")}])
        with self.assertRaises(ValueError):
            self.model.tag([{"a": 1e9}])
        with self.assertRaises(ValueError):
            self.model.tag([{"": 1.0}])
        with self.assertRaises(ValueError):
            self.model.tag([{"a\tb": 1.0}])
        with self.assertRaises(TypeError):
            self.model.tag([{1: 1.0}])
        with self.assertRaises(TypeError):
            self.model.tag([{"a": object()}])
        with self.assertRaises(TypeError):
            self.model.tag(["word"])  # a str token is not an attribute list
        with self.assertRaises(ValueError):
            self.model.tag([])
        with self.assertRaises(ValueError):  # attribute input takes no templates
            chaintag.train(list(zip(self.X, self.y)), preset="pos")
        with self.assertRaises(ValueError):  # labels missing
            chaintag.train([(self.X[0], [])])
        with self.assertRaises(ValueError):  # a bad file names its line
            with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
                f.write("O\ta:zz\n")
            try:
                chaintag.train(f.name, format="attributes")
            finally:
                os.unlink(f.name)
        chunker = chaintag.load().models[-1]
        with self.assertRaises(TypeError):  # dicts go to attribute models only
            chunker.tag([{"a": 1.0}])

    def test_nested_dicts_and_str_values(self):
        # {"a": {"b": 2}} is the attribute "a:b" with weight 2, as python-crfsuite reads it.
        X = [[{"w": {"x": 2.0}, "tag": "N"}, {"w": {"x": -1.0}, "tag": "V"}]] * 20
        y = [["A", "B"]] * 20
        m = chaintag.train(list(zip(X, y)), max_iterations=30)
        self.assertEqual(m.tag(X[0]).labels[-1], ["A", "B"])
        self.assertEqual(m.tag([["w:x", "tag=N"], ["tag=V"]]).labels[-1], ["A", "B"])


class SklearnCrfTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.X, cls.y = toy_corpus(150, 3)
        cls.Xt, cls.yt = toy_corpus(50, 4)

    def test_tutorial_usage(self):
        crf = CRF(algorithm="lbfgs", c1=0.1, c2=0.1, max_iterations=100,
                  all_possible_transitions=True)
        self.assertIs(crf.fit(self.X, self.y), crf)
        self.assertEqual(sorted(crf.classes_), ["B-LOC", "B-PER", "O"])
        pred = crf.predict(self.Xt)
        self.assertEqual([len(p) for p in pred], [len(x) for x in self.Xt])
        self.assertEqual(crf.predict_single(self.Xt[0]), pred[0])
        self.assertGreater(crf.score(self.Xt, self.yt), 0.95)
        self.assertGreater(len(crf.training_log_), 0)
        self.assertEqual(crf.tagger_.info()["metadata"]["algorithm"], "owlqn")

    @unittest.skipUnless(HAVE_NUMPY, "numpy is not installed")
    def test_marginals(self):
        crf = CRF(c2=0.1, max_iterations=50).fit(self.X, self.y)
        marginals = crf.predict_marginals(self.Xt[:3])
        self.assertEqual(len(marginals[0]), len(self.Xt[0]))
        for token in marginals[0]:
            self.assertEqual(set(token), set(crf.classes_))
            self.assertAlmostEqual(sum(token.values()), 1.0, places=6)
        best = [max(t, key=t.get) for t in crf.predict_marginals_single(self.Xt[0])]
        self.assertEqual(best, crf.predict_single(self.Xt[0]))

    def test_params_and_other_algorithms(self):
        crf = CRF(c1=0.5, c2=0.01, objective="ssvm-margin", loss="hamming")
        params = crf.get_params()
        self.assertEqual(params["c1"], 0.5)
        self.assertEqual(params["objective"], "ssvm-margin")
        crf.set_params(c2=0.2, max_iterations=20)
        self.assertEqual(crf.c2, 0.2)
        crf.fit(self.X, self.y)
        self.assertEqual(crf.tagger_.info()["metadata"]["objective"], "ssvm-margin")
        self.assertGreater(crf.score(self.Xt, self.yt), 0.9)
        for algorithm, objective in [("ap", "perceptron"), ("pa", "ssvm-margin"),
                                     ("l2sgd", "crf")]:
            fitted = CRF(algorithm=algorithm, max_iterations=10).fit(self.X, self.y)
            self.assertEqual(fitted.tagger_.info()["metadata"]["objective"], objective)
        with self.assertRaises(ValueError):
            CRF(algorithm="nope").fit(self.X, self.y)
        with self.assertRaises(AttributeError):
            CRF().predict(self.Xt)
        # Development data: scored every iteration.
        dev = CRF(max_iterations=10).fit(self.X, self.y, X_dev=self.Xt, y_dev=self.yt)
        self.assertIsNotNone(dev.training_log_[-1]["dev_score"])

    @unittest.skipUnless(HAVE_SKLEARN, "sklearn is not installed")
    def test_cross_val_score(self):
        from sklearn.model_selection import cross_val_score
        scores = cross_val_score(CRF(c2=0.1, max_iterations=30), self.X, self.y, cv=3)
        self.assertEqual(len(scores), 3)
        for s in scores:
            self.assertGreater(s, 0.9)

    def test_tag_many_two_threads_equals_one(self):
        # The shipped chunker on (word, POS) tuples: two tagging threads give the results of one,
        # in input order. (Speed belongs in tools/bench-python.py, not in a timed test.)
        model = chaintag.load().models[-1]
        words = ["The", "old", "man", "saw", "a", "dog", "near", "the", "river", "."]
        tags = ["DT", "JJ", "NN", "VBD", "DT", "NN", "IN", "DT", "NN", "."]
        X = [list(zip(words[: 3 + i % 8], tags[: 3 + i % 8])) for i in range(300)]

        def run(threads):
            return [(s.labels, s.score, s.probability)
                    for s in model.tag_many(X, threads=threads, probability=True)]

        one, two = run(1), run(2)
        self.assertEqual(len(one), len(X))
        self.assertEqual(one, two)


if __name__ == "__main__":
    unittest.main()
