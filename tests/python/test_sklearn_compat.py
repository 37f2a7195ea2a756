"""Habits of sklearn-crfsuite and python-crfsuite users (issue 31): pickling, weights, metrics,
check_is_fitted, empty sequences, Ctrl-C and callback exceptions during training."""

import copy
import io
import os
import pickle
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import chaintag
from chaintag import metrics
from chaintag.sklearn import CRF

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHUNK_MODEL = os.path.join(ROOT, "models", "en-chunk.model")
X = [[{"w": "the"}, {"w": "dog", "cap": 1.0}, {"w": "barks"}],
     [{"w": "a"}, {"w": "cat"}, {"w": "sleeps"}],
     [{"w": "the"}, {"w": "cat"}, {"w": "saw"}, {"w": "a"}, {"w": "dog"}]]
Y = [["B-NP", "I-NP", "O"], ["B-NP", "I-NP", "O"], ["B-NP", "I-NP", "O", "B-NP", "I-NP"]]

try:
    from sklearn.utils.validation import check_is_fitted
    from sklearn.exceptions import NotFittedError
    HAVE_SKLEARN = True
except ImportError:
    HAVE_SKLEARN = False


class PickleTest(unittest.TestCase):
    def test_model_and_pipeline_round_trip(self):
        m = chaintag.Model.load(CHUNK_MODEL)
        sent = [("The", "DT"), ("old", "JJ"), ("man", "NN")]
        for clone in (pickle.loads(pickle.dumps(m)), copy.deepcopy(m)):
            self.assertEqual(clone.labels, m.labels)
            self.assertEqual(clone.path, m.path)
            self.assertEqual(clone.tag(sent).labels, m.tag(sent).labels)
        p = chaintag.load()
        q = pickle.loads(pickle.dumps(p))
        self.assertEqual(repr(q.tag_text("The old man saw it.")),
                         repr(p.tag_text("The old man saw it.")))

    def test_tampered_pickle_is_a_value_error(self):
        state = chaintag.Model.load(CHUNK_MODEL).__getstate__()
        image = bytearray(state[1])
        image[len(image) // 2] ^= 0xFF
        m = chaintag.Model.__new__(chaintag.Model)
        with self.assertRaises(ValueError):
            m.__setstate__((state[0], bytes(image), state[2]))

    def test_fitted_crf_pickles_and_model_filename_loads(self):
        crf = CRF(max_iterations=20).fit(X, Y)
        expected = crf.predict(X)
        self.assertEqual(pickle.loads(pickle.dumps(crf)).predict(X), expected)
        self.assertEqual(copy.deepcopy(crf).predict(X), expected)
        try:
            import joblib
        except ImportError:
            joblib = None
        if joblib is not None:
            f = io.BytesIO()
            joblib.dump(crf, f)
            f.seek(0)
            self.assertEqual(joblib.load(f).predict(X), expected)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "m.model")
            crf.tagger_.save(path)
            loaded = CRF(model_filename=path)
            self.assertEqual(loaded.predict(X), expected)
            self.assertEqual(loaded.classes_, crf.classes_)

    @unittest.skipUnless(HAVE_SKLEARN, "scikit-learn is not installed")
    def test_check_is_fitted(self):
        with self.assertRaises(NotFittedError):
            check_is_fitted(CRF())
        with self.assertRaises(NotFittedError):
            check_is_fitted(CRF(model_filename="/nonexistent/m.model"))
        check_is_fitted(CRF(max_iterations=5).fit(X, Y))


class WeightsTest(unittest.TestCase):
    def test_crf_attributes(self):
        crf = CRF(max_iterations=30, c2=0.01).fit(X, Y)
        state = crf.state_features_
        self.assertIn(("w=dog", "I-NP"), state)
        self.assertGreater(state[("w=dog", "I-NP")], 0)
        trans = crf.transition_features_
        self.assertEqual(len(trans), len(crf.classes_) ** 2)
        self.assertGreater(trans[("B-NP", "I-NP")], trans[("B-NP", "B-NP")])
        self.assertIn("w=the", crf.attributes_)
        self.assertEqual(crf.num_attributes_, len(crf.attributes_))
        self.assertGreater(crf.size_, 0)
        log = crf.training_log_
        self.assertGreater(len(log.iterations), 0)
        last = log.last_iteration
        for key in ("num", "loss", "time", "active_features", "scores"):
            self.assertIn(key, last)

    def test_weights_score_a_labeling(self):
        # The model score of a labeling is the sum of its state and transition weights.
        m = CRF(max_iterations=30).fit(X, Y).tagger_
        x, y = X[2], Y[2]
        state, trans = m.state_features(), m.transition_features()
        start, end = m.start_features(), m.end_features()
        total = start[y[0]] + end[y[-1]]
        for t, token in enumerate(x):
            for name, value in token.items():
                attr = name + "=" + value if isinstance(value, str) else name
                weight = 1.0 if isinstance(value, str) else float(value)
                total += weight * state.get((attr, y[t]), 0.0)
            if t > 0:
                total += trans[(y[t - 1], y[t])]
        s = m.tag(x, forced=y)
        self.assertAlmostEqual(s.score, total, places=4)


class ErrorsTest(unittest.TestCase):
    def test_empty_sequences(self):
        crf = CRF(max_iterations=5).fit(X, Y)
        self.assertEqual(crf.predict([[]]), [[]])
        out = crf.predict([X[0], [], X[1]])
        self.assertEqual(out[1], [])
        self.assertEqual(len(out[2]), 3)
        self.assertEqual(crf.predict_single([]), [])

    def test_predict_error_names_the_sequence(self):
        crf = CRF(max_iterations=5).fit(X, Y)
        with self.assertRaisesRegex(TypeError, r"xs\[3\]"):
            crf.predict([X[0], [], X[1], [{"w": 1j}]])
        with self.assertRaisesRegex(TypeError, r"xs\[1\]"):
            list(crf.tagger_.tag_many([X[0], [5]]))

    def test_keyword_names_not_flags(self):
        m = chaintag.Model.load(CHUNK_MODEL)
        with self.assertRaises(ValueError) as ctx:
            m.tag([("The", "DT")], kbest=-1)
        self.assertNotIn("--", str(ctx.exception))
        self.assertIn("kbest", str(ctx.exception))
        with self.assertRaises(ValueError) as ctx:
            chaintag.train([(["a"], ["X"])], preset="pos", algorithm="bcfw")
        self.assertNotIn("--", str(ctx.exception))

    def test_labels_and_names_checked_before_training(self):
        with self.assertRaisesRegex(ValueError, "training sequence 1: expected the label at "
                                                "token 0 .* found a space"):
            chaintag.train([([{"a": 1.0}], ["X"]), ([{"a": 1.0}], ["A B"])])
        with self.assertRaisesRegex(ValueError, "token 0: expected the attribute name"):
            chaintag.train([([{"a\x85b": 1.0}], ["X"])])


class MetricsTest(unittest.TestCase):
    def test_metrics(self):
        gold = [["B-PER", "I-PER", "O"], ["B-LOC", "O"]]
        pred = [["B-PER", "I-PER", "O"], ["B-PER", "O"]]
        self.assertAlmostEqual(metrics.flat_accuracy_score(gold, pred), 4 / 5)
        self.assertAlmostEqual(metrics.sequence_accuracy_score(gold, pred), 0.5)
        self.assertAlmostEqual(metrics.entity_f1_score(gold, pred), 0.5)
        if HAVE_SKLEARN:
            f1 = metrics.flat_f1_score(gold, pred, average="micro")
            self.assertAlmostEqual(f1, 4 / 5)
            report = metrics.flat_classification_report(gold, pred, labels=["B-PER", "B-LOC"],
                                                        zero_division=0)
            self.assertIn("B-PER", report)
        with self.assertRaisesRegex(ValueError, "sequence 1"):
            metrics.flat_accuracy_score(gold, [pred[0], ["O"]])


# Labels unrelated to the features: L-BFGS needs hundreds of slow iterations (a separable corpus
# converges in under a second, before the signal could arrive).
BIG = ("import chaintag, sys, random\n"
       "rng = random.Random(7)\n"
       "data = [([{'w': 'w%d' % rng.randrange(3000), 'p': 'q%d' % rng.randrange(50)}\n"
       "          for i in range(20)], ['L%d' % rng.randrange(8) for i in range(20)])\n"
       "        for k in range(20000)]\n")


class InterruptTest(unittest.TestCase):
    def test_callback_exception_stops_training_at_once(self):
        calls = []

        def progress(p):
            calls.append(p["iteration"])
            if p["iteration"] == 2:
                raise RuntimeError("enough")

        with self.assertRaisesRegex(RuntimeError, "enough"):
            chaintag.train(list(zip(X, Y)) * 50, max_iterations=500, progress=progress)
        self.assertEqual(calls, [1, 2])

    def test_ctrl_c_raises_keyboard_interrupt_within_a_second(self):
        code = BIG + (
            "import time\n"
            "print('ready', flush=True)\n"
            "t = time.time()\n"
            "try:\n"
            "    m = chaintag.train(data, max_iterations=100000, tolerance=0, period=100000)\n"
            "    print('finished', flush=True)\n"
            "except KeyboardInterrupt:\n"
            "    print('interrupted %.3f' % (time.time() - t), flush=True)\n")
        proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
        self.assertEqual(proc.stdout.readline().strip(), "ready")
        time.sleep(1.0)
        sent = time.time()
        proc.send_signal(signal.SIGINT)
        line = proc.stdout.readline().strip()
        waited = time.time() - sent
        proc.wait(timeout=60)
        proc.stdout.close()
        self.assertTrue(line.startswith("interrupted"), line)
        # Within 0.1 s on an idle machine; the margin is for loaded CI machines.
        self.assertLess(waited, 3.0 if not os.environ.get("CHAINTAG_SANITIZED") else 10.0)


class PackageTest(unittest.TestCase):
    def test_python_m_chaintag_runs_the_command(self):
        r = subprocess.run([sys.executable, "-m", "chaintag", "--version"], capture_output=True,
                           text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.startswith("chaintag"), r.stdout)

    def test_stubs_name_every_model_method(self):
        stub = os.path.join(os.path.dirname(chaintag.__file__), "_core.pyi")
        if not os.path.exists(stub):  # build trees link only the .py files
            stub = os.path.join(ROOT, "src", "python", "chaintag", "_core.pyi")
        with open(stub, encoding="utf-8") as f:
            text = f.read()
        for name in dir(chaintag.Model):
            if not name.startswith("_"):
                self.assertIn("def %s(" % name if callable(getattr(chaintag.Model, name))
                              else name + ":", text, name)


if __name__ == "__main__":
    unittest.main()
