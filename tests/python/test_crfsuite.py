"""chaintag.crfsuite: python-crfsuite's documented use, unchanged but for the import, and
Model.probability / marginal against brute-force enumeration."""

import itertools
import math
import os
import subprocess
import sys
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

    def test_possible_transitions_as_crfsuite_defines_them(self):
        # O -> I-NP is never seen: chaintag's default forbids it (the IOB mask, probability 0);
        # possible_transitions=1 trains a (negative) weight for it; 0 leaves it without a weight
        # (0): the labeling is possible either way. The choice is in the model's header.
        odd = ["B-NP", "O", "I-NP"]
        results = {}
        for value in (None, True, False):
            trainer = pycrfsuite.Trainer(verbose=False)
            for xseq, yseq in zip(X, Y):
                trainer.append(xseq, yseq)
            trainer.set_params({"c2": 0.01, "max_iterations": 50})
            if value is not None:
                trainer.set("feature.possible_transitions", value)
            with tempfile.TemporaryDirectory() as d:
                path = os.path.join(d, "m.crfsuite")
                trainer.train(path)
                tagger = pycrfsuite.Tagger()
                tagger.open(path)
            tagger.set(X[0])
            info = tagger.info()
            results[value] = (tagger.probability(odd), info.transitions.get(("O", "I-NP")),
                              info.header.get("transitions"))
        self.assertEqual(results[None][0], 0.0)
        self.assertIsNone(results[None][2])
        self.assertGreater(results[True][0], 0.0)
        self.assertLess(results[True][1], 0.0)
        self.assertEqual(results[True][2], "all")
        self.assertGreater(results[False][0], 0.0)
        self.assertEqual(results[False][1], 0.0)
        self.assertEqual(results[False][2], "observed")

    def test_sklearn_all_possible_transitions(self):
        from chaintag.sklearn import CRF
        stored = {}
        for value in (None, True, False):
            crf = CRF(c2=0.01, max_iterations=50, all_possible_transitions=value).fit(X, Y)
            stored[value] = (crf.tagger_.info()["metadata"].get("transitions"),
                             crf.transition_features_[("O", "I-NP")])
        self.assertEqual(stored, {None: (None, 0.0), True: ("all", stored[True][1]),
                                  False: ("observed", 0.0)})
        self.assertLess(stored[True][1], 0.0)
        with self.assertRaisesRegex(ValueError, "transitions: observed"):
            chaintag.train(list(zip(X, Y)), transitions="observed", order=2)

    def test_readme_example_runs_as_a_script(self):
        # The python-crfsuite example in README.md, run as written (it cannot rot).
        readme = os.path.join(os.path.dirname(__file__), "..", "..", "README.md")
        with open(readme, encoding="utf-8") as f:
            text = f.read()
        start = text.index("```python\nimport chaintag.crfsuite as pycrfsuite")
        code = text[start + len("```python\n"):text.index("```\n", start + 10)]
        env = dict(os.environ)
        package_dir = os.path.dirname(os.path.dirname(os.path.abspath(chaintag.__file__)))
        env["PYTHONPATH"] = os.pathsep.join([package_dir] + [
            os.path.abspath(p) for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
        with tempfile.TemporaryDirectory() as d:
            result = subprocess.run([sys.executable, "-c", code], cwd=d, env=env,
                                    capture_output=True, text=True, timeout=120)
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = result.stdout.splitlines()
        self.assertEqual(lines[0], "['B-LOC', 'O', 'B-PER', 'I-PER']")
        self.assertTrue(0.5 < float(lines[1]) <= 1.0, lines[1])
        self.assertTrue(0.5 < float(lines[2]) <= 1.0, lines[2])
        self.assertIn("('B-PER', 'I-PER')", lines[3])
        self.assertTrue(lines[4].startswith("all "), lines[4])


if __name__ == "__main__":
    unittest.main()
