"""The Python module: loading, tagging with every request, tag_many, training, errors.

Run by ctest with the interpreter the module was built for (PYTHONPATH=build/python).
"""
import os
import pathlib
import subprocess
import sys
import tempfile
import threading
import unittest

import chaintag

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHUNK_MODEL = os.path.join(ROOT, "models", "en-chunk.model")
POS_MODEL = os.path.join(ROOT, "models", "en-pos.model")
SENT = [("The", "DT"), ("old", "JJ"), ("man", "NN"), ("saw", "VBD"), ("it", "PRP"), (".", ".")]
TRAIN = [(["The", "dog", "barks"], ["DT", "NN", "VBZ"]),
         (["A", "cat", "sleeps"], ["DT", "NN", "VBZ"]),
         (["The", "cat", "saw", "a", "dog"], ["DT", "NN", "VBD", "DT", "NN"])]


def chunks_of(labels):
    return sum(1 for label in labels if label.startswith("B-"))


class LoadTest(unittest.TestCase):
    def test_default_pipeline_tags_text(self):
        p = chaintag.load()
        out = p.tag_text("The old man saw it. He left.")
        self.assertEqual(len(out), 2)
        s = out[0]
        self.assertEqual(s.tokens, ["The", "old", "man", "saw", "it", "."])
        self.assertEqual(len(s.labels), 2)  # POS, then chunks
        self.assertEqual(s.labels[0][:3], ["DT", "JJ", "NN"])
        self.assertEqual(s.labels[1][:3], ["B-NP", "I-NP", "I-NP"])
        self.assertEqual(s.best, s.labels[1])
        self.assertEqual(s.offsets[:2], [(0, 3), (4, 7)])
        self.assertEqual(out[1].offsets[0], (20, 22))
        self.assertEqual(s.status, "ok")
        self.assertTrue(0 < s.probability <= 1)
        self.assertIn("The/DT/B-NP", repr(s))

    def test_default_models_from_environment(self):
        env = dict(os.environ, CHAINTAG_MODELS="/nonexistent-dir")
        code = "import chaintag; print(chaintag.default_model_paths())"
        r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)  # falls back to the build tree's models
        self.assertIn("en-pos.model", r.stdout)

    def test_import_does_not_need_numpy(self):
        code = "import sys, chaintag; chaintag.load(); print('numpy' in sys.modules)"
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        self.assertEqual(r.stdout.strip(), "False", r.stderr)

    def test_model_load_labels_info_save(self):
        m = chaintag.Model.load(CHUNK_MODEL)
        self.assertIn("B-NP", m.labels)
        info = m.info()
        self.assertEqual(info["labels"], m.labels)
        self.assertGreater(info["num_state_features"], 0)
        self.assertIn("objective", info["metadata"])
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "copy.model")
            m.save(path, compress=True)
            again = chaintag.Model.load(path)
            self.assertEqual(again.tag(SENT).labels, m.tag(SENT).labels)
        self.assertIn("Model", chaintag.Model.__doc__)

    def test_load_of_files_equals_loading_each(self):
        p = chaintag.load(POS_MODEL, chaintag.Model.load(CHUNK_MODEL), pathlib.Path(CHUNK_MODEL))
        self.assertEqual(len(p.models), 3)
        self.assertEqual(p.models[0].info(), chaintag.Model.load(POS_MODEL).info())
        self.assertEqual(p.models[1].info(), chaintag.Model.load(CHUNK_MODEL).info())
        self.assertEqual(p.models[2].info(), chaintag.Model.load(CHUNK_MODEL).info())
        self.assertNotEqual(p.models[0].info(), p.models[1].info())
        with self.assertRaises(FileNotFoundError) as missing:
            chaintag.load(POS_MODEL, "/nonexistent/a.model", "/nonexistent/b.model")
        self.assertIn("/nonexistent/a.model", str(missing.exception))

    def test_pipeline_of_model_objects(self):
        pos = chaintag.Model.load(POS_MODEL)
        chunk = chaintag.Model.load(CHUNK_MODEL)
        p = chaintag.load(pos, chunk)
        s = p.tag(["The", "old", "man"])
        self.assertEqual(s.labels, [["DT", "JJ", "NN"], ["B-NP", "I-NP", "I-NP"]])
        self.assertEqual(p.labels, chunk.labels)
        self.assertEqual(chunk.pipeline().tag(SENT).labels, chunk.tag(SENT).labels)
        self.assertEqual(len(p.models), 2)


class TagTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.m = chaintag.Model.load(CHUNK_MODEL)

    def test_plain_and_text(self):
        s = self.m.tag(SENT)
        self.assertEqual(s.labels, [["B-NP", "I-NP", "I-NP", "B-VP", "B-NP", "O"]])
        self.assertEqual(len(s.solutions), 1)
        self.assertAlmostEqual(s.solutions[0].score, s.score)
        self.assertIsNone(self.m.tag(SENT, probability=False).probability)

    def test_kbest_is_sorted_distinct_and_starts_with_the_best(self):
        best = self.m.tag(SENT)
        s = self.m.tag(SENT, kbest=5)
        self.assertEqual(len(s.solutions), 5)
        self.assertEqual(s.solutions[0].labels, best.best)
        scores = [x.score for x in s.solutions]
        self.assertEqual(scores, sorted(scores, reverse=True))
        self.assertEqual(len({tuple(x.labels) for x in s.solutions}), 5)
        self.assertEqual([x.rank for x in s.solutions], [1, 2, 3, 4, 5])
        self.assertLessEqual(sum(x.probability for x in s.solutions), 1.0 + 1e-9)

    def test_diverse(self):
        s = self.m.tag(SENT, diverse=3, min_distance=2)
        sols = [x.labels for x in s.solutions]
        for i in range(len(sols)):
            for j in range(i):
                self.assertGreaterEqual(sum(a != b for a, b in zip(sols[i], sols[j])), 2)
        chunks = self.m.tag(SENT, diverse=2, diversity="chunks")
        self.assertEqual(len(chunks.solutions), 2)

    def test_counts(self):
        s = self.m.tag(SENT, counts={"chunk:NP": (3, None)})
        self.assertGreaterEqual(sum(1 for y in s.best if y == "B-NP"), 3)
        s = self.m.tag(SENT, counts={"B-NP": 1})
        self.assertEqual(s.best.count("B-NP"), 1)
        s = self.m.tag(SENT, counts=["B-VP=0..0"])
        self.assertNotIn("B-VP", s.best)
        s = self.m.tag(SENT, counts={"chunk:NP": (7, None)})
        self.assertEqual(s.status, "infeasible")
        self.assertIsNone(s.best)
        self.assertIsNone(s.score)

    def test_score_range(self):
        best = self.m.tag(SENT)
        s = self.m.tag(SENT, score_range=(None, best.score - 5))
        self.assertEqual(s.status, "ok")
        self.assertLessEqual(s.score, best.score - 5 + 1e-6)
        self.assertIsNotNone(s.score_resolution)

    def test_exclude_and_forced(self):
        best = self.m.tag(SENT)
        s = self.m.tag(SENT, exclude=[best.best])
        self.assertNotEqual(s.best, best.best)
        self.assertEqual(s.best, self.m.tag(SENT, kbest=2).solutions[1].labels)
        s = self.m.tag(SENT, forced={1: "B-NP"})
        self.assertEqual(s.best[1], "B-NP")
        s = self.m.tag(SENT, forced=[None, None, "B-VP", None, None, None])
        self.assertEqual(s.best[2], "B-VP")

    def test_marginals(self):
        s = self.m.tag(SENT, marginals=True)
        self.assertEqual(s.marginals.shape, (len(SENT), len(self.m.labels)))
        self.assertEqual(s.label_names, self.m.labels)
        for row in s.marginals:
            self.assertAlmostEqual(float(row.sum()), 1.0, places=6)
        argmax = [s.label_names[int(row.argmax())] for row in s.marginals]
        self.assertEqual(argmax[0], "B-NP")
        self.assertIsNone(self.m.tag(SENT).marginals)

    def test_too_large(self):
        s = self.m.tag(SENT * 50, kbest=100000, max_memory_mb=1)
        self.assertEqual(s.status, "too_large")
        self.assertTrue(s.status_reason)

    def test_errors(self):
        with self.assertRaises(FileNotFoundError):
            chaintag.Model.load("/nonexistent/x.model")
        with tempfile.NamedTemporaryFile(suffix=".model") as f:
            f.write(b"not a model")
            f.flush()
            with self.assertRaises(ValueError):
                chaintag.Model.load(f.name)
        with self.assertRaises(ValueError):
            self.m.tag(["only", "words"])  # the chunker reads a POS column
        with self.assertRaises(ValueError):
            self.m.tag([])
        with self.assertRaises(TypeError):
            self.m.tag("The old man")
        with self.assertRaises(ValueError):
            self.m.tag([("a", "DT"), ("b",)])
        with self.assertRaises(TypeError):
            self.m.tag(SENT, kbets=2)
        with self.assertRaises(ValueError):
            self.m.tag(SENT, counts={"NOPE": 1})
        with self.assertRaises(ValueError):
            self.m.tag(SENT, kbest=-1)
        with self.assertRaises(ValueError):
            self.m.tag(SENT, score_range=(3, 1))
        with self.assertRaises(ValueError):
            self.m.tag(SENT, forced={1: "NOT-A-LABEL"})
        with self.assertRaises(ValueError):
            self.m.tag(SENT, forced={10: "B-NP"})
        with self.assertRaises(ValueError):
            self.m.tag(SENT, exclude=[["B-NP"]])
        with self.assertRaises(ValueError):
            self.m.tag(SENT, diversity="nope")
        with self.assertRaises(ValueError):
            list(self.m.tag_many([SENT], forced={1: "B-NP"}))


class CollectiveTest(unittest.TestCase):
    def test_text_is_one_document(self):
        pos = chaintag.Model.load(POS_MODEL)
        text = "Brown saw Brown. The brown dog met Brown."
        plain = pos.tag_text(text)
        joint = pos.tag_text(text, collective="potts", collective_lambda=50,
                             collective_capitalised=True)
        self.assertEqual([s.tokens for s in joint], [s.tokens for s in plain])
        # A strong clique over the capitalised "Brown"s gives them one tag.
        tags = {s.labels[0][i] for s in joint for i, w in enumerate(s.tokens) if w == "Brown"}
        self.assertEqual(len(tags), 1)

    def test_errors(self):
        pos = chaintag.Model.load(POS_MODEL)
        with self.assertRaises(ValueError):
            pos.tag_text("A b.", collective="dense")
        with self.assertRaises(ValueError):
            pos.tag_text("A b.", collective="majority")
        with self.assertRaises(ValueError):
            pos.tag_text("A b.", collective="potts", collective_iterations=0)
        with self.assertRaises(ValueError):
            list(pos.tag_many([SENT], collective="potts"))


class LatentTest(unittest.TestCase):
    """The shipped en-np is a latent-dynamic CRF: LDI, bhp and marginal decoding from Python."""

    @classmethod
    def setUpClass(cls):
        cls.m = chaintag.Model.load(os.path.join(ROOT, "models", "en-np.model"))

    def test_decoders_and_certificates(self):
        s = self.m.tag(SENT)
        self.assertEqual(s.status, "ok")
        self.assertIn(s.exact, (True, False))
        self.assertGreaterEqual(s.hidden_paths, 1)
        self.assertEqual(len(s.best), len(SENT))
        if s.exact:
            self.assertGreaterEqual(s.probability, 0.0)
        k = self.m.tag(SENT, kbest=3)
        probs = [x.probability for x in k.solutions]
        self.assertEqual(probs, sorted(probs, reverse=True))
        self.assertEqual(k.solutions[0].labels, s.best)
        for decoder in ("bhp", "marginal"):
            d = self.m.tag(SENT, latent_decoder=decoder)
            self.assertEqual(len(d.best), len(SENT))
        one = self.m.tag(SENT, ldi_max_paths=1)
        self.assertLessEqual(one.hidden_paths, 1)
        with self.assertRaises(ValueError):
            self.m.tag(SENT, latent_decoder="nosuch")
        with self.assertRaises(ValueError):
            self.m.tag(SENT, ldi_max_paths=0)

    def test_plain_models_report_no_certificate(self):
        s = chaintag.Model.load(CHUNK_MODEL).tag(SENT)
        self.assertIsNone(s.exact)
        self.assertIsNone(s.hidden_paths)


class LmsbnTest(unittest.TestCase):
    """LMSBN models: branch-and-bound results (cost, optimal, nodes) and its keyword arguments."""

    @classmethod
    def setUpClass(cls):
        cls.m = chaintag.train(TRAIN, preset="pos-history", objective="lmsbn", max_iterations=50)

    def test_info_search_and_keywords(self):
        info = self.m.info()
        self.assertEqual(info["family"], "lmsbn")
        self.assertTrue(any("%y[-1]" in t for t in info["history_templates"]))
        s = self.m.tag(["The", "cat", "sleeps"])
        self.assertEqual(s.best, ["DT", "NN", "VBZ"])
        self.assertIs(s.optimal, True)
        self.assertGreaterEqual(s.nodes, 3)
        self.assertIsNone(s.probability)
        self.assertGreaterEqual(s.solutions[0].cost, 0.0)
        k = self.m.tag(["The", "cat", "sleeps"], kbest=3)
        costs = [x.cost for x in k.solutions]
        self.assertEqual(len(costs), 3)
        self.assertEqual(costs, sorted(costs))
        self.assertEqual(k.solutions[0].labels, s.best)
        greedy = self.m.tag(["The", "cat", "sleeps"], bb_max_nodes=1)
        self.assertEqual(greedy.nodes, 3)
        # A bound below the best cost leaves nothing to return.
        bounded = self.m.tag(["The", "cat", "sleeps"], bb_bound=s.solutions[0].cost + 1e-9)
        self.assertEqual(bounded.best, s.best)
        if s.solutions[0].cost > 0:
            self.assertEqual(self.m.tag(["The", "cat", "sleeps"],
                                        bb_bound=s.solutions[0].cost).status, "infeasible")
        with self.assertRaises(ValueError):
            self.m.tag(["The", "cat"], bb_max_nodes=0)
        with self.assertRaises(ValueError):
            self.m.tag(["The", "cat"], bb_bound=-1.0)
        with self.assertRaises(TypeError):
            self.m.tag(["The", "cat"], bb_max_nodes=2.5)
        with self.assertRaises(ValueError):
            self.m.tag(["The", "cat"], score_range=(0, 1))
        # Asked for explicitly, probabilities are refused rather than silently left out.
        with self.assertRaisesRegex(ValueError, "probabilities is not supported"):
            self.m.tag(["The", "cat"], probability=True)
        self.assertIsNone(self.m.tag(["The", "cat"], probability=False).probability)

    def test_chain_models_report_no_search(self):
        s = chaintag.Model.load(CHUNK_MODEL).tag(SENT)
        self.assertIsNone(s.optimal)
        self.assertIsNone(s.nodes)
        self.assertIsNone(s.solutions[0].cost)
        self.assertEqual(chaintag.Model.load(CHUNK_MODEL).info()["family"], "linear-chain")


class LmbmTest(unittest.TestCase):
    """LMBM models (issue 28): trained with eta0, a chain for every request, save/load."""

    def test_train_info_chain_requests_and_round_trip(self):
        m = chaintag.train(TRAIN, preset="pos", objective="lmbm", eta0=0.5, c2=0.01)
        info = m.info()
        self.assertEqual(info["family"], "lmbm")
        self.assertEqual(info["metadata"]["eta0"], "0.5")
        self.assertEqual(info["metadata"]["algorithm"], "dcd")
        s = m.tag(["The", "cat", "sleeps"], kbest=2)
        self.assertEqual(s.best, ["DT", "NN", "VBZ"])
        self.assertTrue(0 < s.probability <= 1)
        self.assertGreaterEqual(s.solutions[0].score, s.solutions[1].score)
        self.assertIsNone(s.nodes)  # Viterbi, not a search
        self.assertAlmostEqual(m.probability(["The", "cat", "sleeps"], s.best), s.probability)
        self.assertGreater(len(m.transition_features()), 0)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "lmbm.model")
            m.save(path)
            again = chaintag.Model.load(path)
            self.assertEqual(again.info()["family"], "lmbm")
            k = again.tag(["The", "cat", "sleeps"], kbest=2)
            self.assertEqual([(x.labels, x.score) for x in k.solutions],
                             [(x.labels, x.score) for x in s.solutions])
            self.assertEqual(again.transition_features(), m.transition_features())

    def test_eta0_shrinks_the_transition_weights(self):
        def transitions(eta0):
            m = chaintag.train(TRAIN, preset="pos", objective="lmbm", eta0=eta0, c2=0.01)
            return sum(w * w for w in m.transition_features().values())
        self.assertLess(transitions(50.0), 0.5 * transitions(0.0))
        with self.assertRaises(ValueError):
            chaintag.train(TRAIN, preset="pos", objective="lmbm", eta0=-1.0)


class TagManyTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.m = chaintag.Model.load(CHUNK_MODEL)
        words = ["The", "old", "man", "saw", "a", "dog", "near", "the", "river", "."]
        tags = ["DT", "JJ", "NN", "VBD", "DT", "NN", "IN", "DT", "NN", "."]
        cls.sents = [list(zip(words[: 2 + i % 8], tags[: 2 + i % 8])) for i in range(600)]

    def test_order_and_threads(self):
        one = [s.best for s in self.m.tag_many(self.sents, threads=1, batch_size=64)]
        two = [s.best for s in self.m.tag_many(iter(self.sents), threads=2, batch_size=50)]
        self.assertEqual(one, two)
        self.assertEqual(one, [self.m.tag(s).best for s in self.sents])
        stream = self.m.tag_many(self.sents[:10], kbest=2)
        got = list(stream)
        self.assertEqual(len(got[0].solutions), 2)
        self.assertEqual(stream.sentences, 10)

    def test_streams_lazily(self):
        pulled = []

        def source():
            for i, s in enumerate(self.sents):
                pulled.append(i)
                yield s

        it = self.m.tag_many(source(), batch_size=10)
        next(it)
        self.assertEqual(len(pulled), 10)

    def test_releases_the_gil_while_tagging(self):
        # With a huge switch interval the interpreter never takes the GIL from the main thread;
        # the helper thread can count only while the module has released it.
        counter = [0]
        stop = threading.Event()

        def spin():
            while not stop.is_set():
                counter[0] += 1
                stop.wait(0.0001)

        old = sys.getswitchinterval()
        sys.setswitchinterval(1000)
        try:
            t = threading.Thread(target=spin)
            t.start()
            stream = self.m.tag_many(self.sents * 10, batch_size=6000, probability=True)
            before = counter[0]
            next(stream)  # tags the whole batch
            after = counter[0]
        finally:
            sys.setswitchinterval(old)
            stop.set()
            t.join()
        self.assertGreater(after, before)

    def test_bad_item_raises(self):
        with self.assertRaises(TypeError):
            list(self.m.tag_many([SENT, 5]))


class TrainTest(unittest.TestCase):
    def test_in_memory(self):
        iterations = []
        m = chaintag.train(TRAIN, preset="pos", c2=0.1, max_iterations=30,
                           progress=lambda d: iterations.append(d["iteration"]))
        self.assertTrue(iterations)
        self.assertEqual(sorted(m.labels), ["DT", "NN", "VBD", "VBZ"])
        self.assertEqual(m.tag(["The", "cat", "sleeps"]).best, ["DT", "NN", "VBZ"])
        self.assertEqual(m.info()["metadata"]["c2"], "0.1")

    def test_objectives_and_dev(self):
        m = chaintag.train(TRAIN, preset="pos", objective="ssvm-margin", loss="hamming",
                           max_iterations=5, dev=TRAIN[:1])
        self.assertEqual(m.info()["metadata"]["objective"], "ssvm-margin")
        p = chaintag.train(TRAIN, template_text="w[0]\nw[-1]\n", algorithm="perceptron",
                           max_iterations=3)
        self.assertEqual(p.tag(["The", "dog"]).best[0], "DT")

    def test_from_file_and_save(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "train.conll")
            with open(path, "w") as f:
                for words, labels in TRAIN:
                    for w, l in zip(words, labels):
                        f.write(f"{w}\t{l}\n")
                    f.write("\n")
            m = chaintag.train(path, preset="pos", max_iterations=20)
            out = os.path.join(d, "m.model")
            m.save(out)
            self.assertEqual(chaintag.Model.load(out).tag(["A", "dog"]).best, ["DT", "NN"])
            self.assertEqual(chaintag.Model.load(out).info()["metadata"]["training_files"], path)

    def test_progress_exception_is_raised(self):
        def boom(d):
            raise RuntimeError("stop")

        with self.assertRaises(RuntimeError):
            chaintag.train(TRAIN, preset="pos", max_iterations=3, progress=boom)

    def test_errors(self):
        with self.assertRaises(ValueError):
            chaintag.train(TRAIN)  # no templates
        with self.assertRaises(ValueError):
            chaintag.train(TRAIN, preset="nope")
        with self.assertRaises(ValueError):
            chaintag.train(TRAIN, preset="pos", c9=1)
        with self.assertRaises(ValueError):
            chaintag.train(TRAIN, preset="pos", objective="nope")
        with self.assertRaises(ValueError):
            chaintag.train([(["a", "b"], ["X"])], preset="pos")
        with self.assertRaises(ValueError):
            chaintag.train(TRAIN, preset="pos", early_stopping=2)
        with self.assertRaises(FileNotFoundError):
            chaintag.train("/nonexistent/train.conll", preset="pos")
        with self.assertRaises(ValueError):
            chaintag.train([], preset="pos")


if __name__ == "__main__":
    unittest.main()
