"""chaintag.sklearn.CRF(encoder=...): neural and hybrid models trained from Python (issue 30)."""

import pickle
import random
import unittest

from chaintag.sklearn import CRF

# Small sizes so a fit takes a fraction of a second.
TINY = {"word_dim": 8, "char_filters": 0, "hidden": 8, "dropout": 0.0, "batch_size": 4,
        "learning_rate": 0.02}


def toy(count, seed):
    """Sentences of words whose label needs the previous word: a word after "not" is NEG, any
    other word is its own class (A or B)."""
    rng = random.Random(seed)
    words = {"red": "A", "blue": "A", "green": "A", "cat": "B", "dog": "B", "fox": "B"}
    X, y = [], []
    for _ in range(count):
        sent, labels = [], []
        for t in range(rng.randint(2, 7)):
            if t > 0 and sent[-1] != "not" and rng.random() < 0.3:
                sent.append("not")
                labels.append("O")
                continue
            w = rng.choice(sorted(words))
            sent.append(w)
            labels.append("NEG" if t > 0 and sent[-2] == "not" else words[w])
        X.append(sent)
        y.append(labels)
    return X, y


class NeuralCRFTest(unittest.TestCase):
    def test_neural_and_hybrid_learn_a_task_that_needs_context(self):
        X, y = toy(150, 1)
        X_test, y_test = toy(60, 2)
        for encoder in ("neural", "hybrid"):
            crf = CRF(encoder=encoder, max_iterations=15, threads=2, options=TINY)
            crf.fit(X, y, X_dev=X_test[:20], y_dev=y_test[:20])
            self.assertGreater(crf.score(X_test, y_test), 0.95, encoder)
            self.assertEqual(sorted(crf.classes_), ["A", "B", "NEG", "O"])
            info = crf.tagger_.info()["metadata"]
            self.assertEqual(info["encoder"], encoder)
            self.assertEqual(len(crf.training_log_), int(info["iterations"]))
            # The fitted estimator pickles with its model.
            back = pickle.loads(pickle.dumps(crf))
            self.assertEqual(back.predict(X_test), crf.predict(X_test))
            self.assertEqual(crf.predict([[]]), [[]])

    def test_character_bilstm(self):
        X, y = toy(150, 5)
        X_test, y_test = toy(60, 6)
        options = dict(TINY, char_filters=6, char_encoder="bilstm")
        crf = CRF(encoder="neural", max_iterations=15, threads=2, options=options)
        crf.fit(X, y)
        self.assertGreater(crf.score(X_test, y_test), 0.95)
        self.assertEqual(crf.tagger_.info()["metadata"]["char_encoder"], "bilstm")
        back = pickle.loads(pickle.dumps(crf))
        self.assertEqual(back.predict(X_test), crf.predict(X_test))
        with self.assertRaisesRegex(ValueError, "even"):
            CRF(encoder="neural", max_iterations=1,
                options=dict(TINY, char_filters=5, char_encoder="bilstm")).fit(X, y)

    def test_the_thread_count_does_not_change_the_model(self):
        X, y = toy(40, 3)
        sizes = []
        for threads in (1, 2):
            crf = CRF(encoder="hybrid", max_iterations=2, threads=threads, options=TINY)
            crf.fit(X, y)
            sizes.append(crf.tagger_.__getstate__()[1])
        self.assertEqual(sizes[0], sizes[1])

    def test_bad_settings_raise(self):
        X, y = toy(10, 4)
        with self.assertRaisesRegex(ValueError, "encoder"):
            CRF(encoder="transformer").fit(X, y)
        with self.assertRaisesRegex(ValueError, "preset= and embeddings="):
            CRF(preset="pos").fit([[{"w": "a"}]], [["A"]])
        with self.assertRaisesRegex(ValueError, "c1"):
            CRF(encoder="neural", c1=0.5, max_iterations=1, options=TINY).fit(X, y)
        with self.assertRaises((ValueError, OSError)):
            CRF(encoder="hybrid", embeddings="/nonexistent/vec.bin", max_iterations=1,
                options=TINY).fit(X, y)


if __name__ == "__main__":
    unittest.main()


class AccuratePipelineTest(unittest.TestCase):
    def test_accurate_pipeline_is_found_like_the_default(self):
        import os
        import subprocess
        import sys
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            for name in ("en-pos-nn.model", "en-chunk-nn.model"):
                open(os.path.join(d, name), "w").close()
            env = dict(os.environ, CHAINTAG_MODELS=d)
            code = "import chaintag; print(chaintag.default_model_paths(accurate=True))"
            r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                               text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout.strip(), repr([os.path.join(d, "en-pos-nn.model"),
                                                     os.path.join(d, "en-chunk-nn.model")]))

    def test_accurate_with_paths_raises(self):
        import chaintag
        with self.assertRaisesRegex(ValueError, "accurate=True chooses the shipped models"):
            chaintag.load("x.model", accurate=True)

    def test_shipped_accurate_pipeline_tags_text(self):
        import chaintag
        p = chaintag.load(accurate=True)
        out = p.tag_text("Under the plan, spending on schools will rise.")
        self.assertEqual(len(out[0].labels), 2)  # POS (en-pos-nn), then chunks
        self.assertEqual(out[0].labels[0][:5], ["IN", "DT", "NN", ",", "VBG"])  # en-pos: NN
        self.assertEqual(out[0].labels[1][:3], ["B-PP", "B-NP", "I-NP"])
        # The chunker is en-chunk-nn: "trading" starts an NP (en-chunk: inside the VP).
        out = p.tag_text("The decision was announced after trading ended.")
        self.assertEqual(out[0].labels[1][4:7], ["B-PP", "B-NP", "B-VP"])
