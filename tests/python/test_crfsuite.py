"""chaintag.crfsuite: python-crfsuite's documented use, unchanged but for the import, and
Model.probability / marginal against brute-force enumeration."""

import itertools
import math
import os
import tempfile
import unittest

import chaintag
import chaintag.crfsuite as pycrfsuite

X = [[{"w": "the"}, {"w": "dog", "cap": 1.0}, {"w": "barks"}],
     [{"w": "a"}, {"w": "cat"}, {"w": "sleeps"}],
     [["w=the"], ["w=cat"], ["w=saw"], ["w=a"], ["w=dog"]]]
Y = [["B-NP", "I-NP", "O"], ["B-NP", "I-NP", "O"], ["B-NP", "I-NP", "O", "B-NP", "I-NP"]]


class CrfsuiteTest(unittest.TestCase):
    def test_readme_example(self):
        trainer = pycrfsuite.Trainer(verbose=False)
        for xseq, yseq in zip(X, Y):
            trainer.append(pycrfsuite.ItemSequence(xseq), yseq)
        trainer.set_params({"c1": 0.0, "c2": 1e-3, "max_iterations": 50,
                            "feature.possible_transitions": True})
        self.assertEqual(trainer.params()[:3], ["feature.minfreq", "feature.possible_states",
                                                "feature.possible_transitions"])
        self.assertEqual(trainer.get("c2"), 1e-3)
        self.assertIn("L2", trainer.help("c2"))
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "m.crfsuite")
            trainer.train(path)
            self.assertGreater(len(trainer.logparser.iterations), 0)
            self.assertIn("loss", trainer.logparser.last_iteration)
            tagger = pycrfsuite.Tagger()
            tagger.open(path)
            self.assertEqual(tagger.tag(X[0]), Y[0])
            self.assertGreater(tagger.probability(Y[0]), 0.5)
            total = sum(tagger.marginal(y, 1) for y in tagger.labels())
            self.assertAlmostEqual(total, 1.0)
            info = tagger.info()
            self.assertIn(("B-NP", "I-NP"), info.transitions)
            self.assertIn(("w=dog", "I-NP"), info.state_features)
            with open(path, "rb") as f:
                image = f.read()
            other = pycrfsuite.Tagger()
            other.open_inmemory(image)
            self.assertEqual(other.tag(X[2]), tagger.tag(X[2]))
            tagger.dump(os.path.join(d, "dump.txt"))
            with open(os.path.join(d, "dump.txt"), encoding="utf-8") as f:
                self.assertIn("TRANSITIONS", f.read())

    def test_parameter_errors(self):
        trainer = pycrfsuite.Trainer(verbose=False)
        with self.assertRaisesRegex(ValueError, "parameter not found: nope"):
            trainer.set("nope", 1)
        with self.assertRaisesRegex(ValueError, "no counterpart"):
            trainer.set("feature.possible_states", True)
        trainer.set("feature.possible_states", False)
        with self.assertRaisesRegex(ValueError, "algorithm"):
            trainer.select("nonsense")
        trainer.select("ap")
        self.assertEqual(trainer.params()[-1], "max_iterations")

    def test_probability_and_marginal_match_enumeration(self):
        m = chaintag.train(list(zip(X, Y)), max_iterations=30)
        x = X[0]
        scores = {}
        for y in itertools.product(m.labels, repeat=len(x)):
            scores[y] = m.probability(x, list(y))
        self.assertAlmostEqual(sum(scores.values()), 1.0, places=9)
        for t in range(len(x)):
            for label in m.labels:
                brute = sum(p for y, p in scores.items() if y[t] == label)
                self.assertAlmostEqual(m.marginal(x, label, t), brute, places=9)
        best = max(scores, key=scores.get)
        self.assertEqual(list(best), m.tag(x).labels[-1])
        self.assertAlmostEqual(m.probability(x, list(best), log=True),
                               math.log(scores[best]), places=9)
        with self.assertRaisesRegex(ValueError, "no label 'ZZ'"):
            m.probability(x, ["ZZ", "O", "O"])
        with self.assertRaisesRegex(ValueError, "expected 3 labels"):
            m.probability(x, ["O"])


if __name__ == "__main__":
    unittest.main()
