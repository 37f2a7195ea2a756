"""Hostile inputs to the Python module (issue 27): none may crash the interpreter; each raises a
Python exception (TypeError, OverflowError, ValueError) whose text names the argument in plain
words, never pybind11's "Unable to cast Python instance". CI also runs this file against an
AddressSanitizer + UBSan build of the module (tools/test.sh --sanitize)."""

import os
import sys
import tempfile
import threading
import unittest
import warnings

import chaintag

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_ABSENT = object()
CHUNK_MODEL = os.path.join(ROOT, "models", "en-chunk.model")
SENT = [("The", "DT"), ("old", "JJ"), ("man", "NN"), ("saw", "VBD"), ("it", "PRP"), (".", ".")]
ATTR_TRAIN = [([{"w": "the"}, {"w": "dog", "n": 1.0}], ["D", "N"]),
              ([{"w": "a"}, {"w": "cat", "n": 0.5}], ["D", "N"])]


def self_referential():
    d = {}
    d["x"] = d
    return d


def deep_dict(depth):
    root = cur = {}
    for _ in range(depth):
        nxt = {}
        cur["a"] = nxt
        cur = nxt
    cur["b"] = 1.0
    return root


class HostileTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.chunker = chaintag.Model.load(CHUNK_MODEL)
        cls.attr_model = chaintag.train(ATTR_TRAIN, max_iterations=5)

    def assertPlain(self, exc_type, fn, *needles):
        with self.assertRaises(exc_type) as ctx:
            fn()
        text = str(ctx.exception)
        self.assertNotIn("Unable to cast", text)
        for needle in needles:
            self.assertIn(needle, text)
        return text

    # -- issue 27 item 4: one tag_many stream read by several threads -------------------------

    def test_threads_sharing_one_stream_get_each_sentence_once(self):
        n = 2000
        it = self.chunker.tag_many((SENT for _ in range(n)), threads=2, batch_size=64)
        counts = [0] * 4
        errors = []

        def drain(k):
            try:
                for s in it:
                    self.assertEqual(len(s), len(SENT))
                    counts[k] += 1
            except Exception as e:  # pragma: no cover - reported below
                errors.append(e)

        threads = [threading.Thread(target=drain, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        self.assertEqual(sum(counts), n)
        self.assertEqual(it.sentences, n)

    def test_stream_read_from_its_own_input_is_an_error(self):
        holder = {}

        def source():
            yield SENT
            next(holder["it"])  # re-entering the stream that is reading this generator
            yield SENT

        holder["it"] = self.chunker.tag_many(source(), batch_size=4)
        self.assertPlain(ValueError, lambda: list(holder["it"]), "its own input iterator")

    # -- issue 27 item 5: self-referential and deep feature dicts -----------------------------

    def test_self_referential_dict(self):
        d = self_referential()
        self.assertPlain(ValueError, lambda: chaintag.train([([d], ["X"])]),
                         "training sequence 0: token 0", "nested at most 100 deep")
        self.assertPlain(ValueError, lambda: self.attr_model.tag([d]), "x: token 0",
                         "contain itself")
        self.assertPlain(ValueError, lambda: list(self.attr_model.tag_many([[{"w": "a"}, d]])),
                         "token 1")

    def test_deep_dicts(self):
        deep = deep_dict(100000)
        self.assertPlain(ValueError, lambda: chaintag.train([([deep], ["X"])]),
                         "nested at most 100 deep")
        self.assertPlain(ValueError, lambda: self.attr_model.tag([deep]), "nested at most")
        # Nesting within the cap is a name with ':' between the levels, as python-crfsuite's.
        s = self.attr_model.tag([deep_dict(99)])
        self.assertEqual(len(s), 1)

    # -- Low: lone surrogates, huge ints, wrong types, NUL in paths, thread counts -------------

    def test_lone_surrogates(self):
        self.assertPlain(ValueError, lambda: self.chunker.tag([("a\ud800", "DT")]),
                         "token 0 column 0", "lone surrogate U+D800 at character 1")
        self.assertPlain(ValueError, lambda: self.chunker.tag_text("x \udfff y"),
                         "text:", "U+DFFF")
        self.assertPlain(ValueError, lambda: self.attr_model.tag([{"w\ud800": 1.0}]),
                         "attribute name")
        self.assertPlain(ValueError, lambda: self.attr_model.tag([{"w": "\ud800"}]),
                         "attribute 'w'")
        self.assertPlain(ValueError, lambda: self.attr_model.tag([["n\udc00"]]), "U+DC00")
        self.assertPlain(ValueError, lambda: chaintag.train([([{"a": 1.0}], ["X\udc00"])]),
                         "training sequence 0: label")
        self.assertPlain(ValueError, lambda: chaintag.evaluate([["B-X"]], [["\ud800"]]),
                         "predicted")
        self.assertPlain(ValueError, lambda: self.chunker.tag(SENT, counts={"B-NP\ud800": 1}),
                         "counts")

    def test_huge_ints_overflow(self):
        for key in ("kbest", "diverse", "min_distance", "max_memory_mb", "score_max_states",
                    "ldi_max_paths"):
            self.assertPlain(OverflowError, lambda: self.chunker.tag(SENT, **{key: 2 ** 70}),
                             key, "out of range")
        self.assertPlain(OverflowError, lambda: self.chunker.tag(SENT, bb_max_nodes=2 ** 70),
                         "bb_max_nodes")
        self.assertPlain(OverflowError, lambda: self.chunker.tag(SENT, forced={2 ** 70: "O"}),
                         "forced position")
        self.assertPlain(OverflowError,
                         lambda: self.chunker.tag(SENT, counts={"B-NP": (2 ** 70, None)}),
                         "counts['B-NP']")
        self.assertPlain(OverflowError, lambda: self.chunker.tag_many([SENT], threads=2 ** 70),
                         "threads")
        self.assertPlain(OverflowError, lambda: self.chunker.tag_many([SENT], batch_size=2 ** 70),
                         "batch_size")
        self.assertPlain(OverflowError,
                         lambda: self.chunker.tag(SENT, score_range=(10 ** 400, None)),
                         "score_range")

    def test_marginals_without_numpy_say_so(self):
        # An interpreter without numpy (a pyenv build) gets a plain ImportError naming numpy.
        saved = sys.modules.get("numpy", _ABSENT)
        sys.modules["numpy"] = None  # makes `import numpy` fail, as where it is not installed
        try:
            with self.assertRaisesRegex(ImportError, "numpy is not installed for .*Model.marginal"):
                self.chunker.tag(SENT, marginals=True)
            self.assertGreater(self.chunker.marginal(SENT, "B-NP", 0), 0.5)
        finally:
            if saved is _ABSENT:
                del sys.modules["numpy"]
            else:
                sys.modules["numpy"] = saved

    def test_wrong_types(self):
        self.assertPlain(TypeError, lambda: self.chunker.tag(SENT, marginals="yes"),
                         "marginals: expected True or False, found str")
        self.assertPlain(TypeError, lambda: self.chunker.tag(SENT, probability="no"),
                         "probability")
        self.assertPlain(TypeError, lambda: self.chunker.tag(SENT, kbest="2"),
                         "kbest: expected an int, found str")
        self.assertPlain(TypeError, lambda: self.chunker.tag(SENT, kbest=2.0), "kbest")
        self.assertPlain(TypeError, lambda: self.chunker.tag(SENT, bb_bound="x"), "bb_bound")
        self.assertPlain(TypeError, lambda: self.chunker.tag(SENT, score_range=("a", None)),
                         "score_range lower bound")
        self.assertPlain(TypeError, lambda: self.chunker.tag(SENT, score_range="ab"),
                         "score_range")
        self.assertPlain(TypeError, lambda: self.chunker.tag_text(b"The man."),
                         "text: expected a str, found bytes")
        self.assertPlain(TypeError, lambda: self.chunker.tag_many([SENT], threads="2"),
                         "threads")

    def test_nul_in_paths(self):
        path = os.path.join(tempfile.gettempdir(), "fresh\0junk.model")
        for fn in (lambda: chaintag.Model.load(path), lambda: chaintag.load(path),
                   lambda: self.chunker.save(path), lambda: chaintag.train(path, preset="pos")):
            # The whole path is named, not the part before the NUL.
            self.assertPlain(ValueError, fn, "embedded null byte", "junk.model")

    def test_bytes_and_pathlike_paths(self):
        import pathlib
        m = chaintag.Model.load(os.fsencode(CHUNK_MODEL))
        self.assertEqual(m.labels, self.chunker.labels)
        m = chaintag.Model.load(pathlib.Path(CHUNK_MODEL))
        self.assertEqual(m.labels, self.chunker.labels)

    def test_thread_counts(self):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = list(self.chunker.tag_many([SENT] * 5, threads=100000))
        self.assertEqual(len(out), 5)
        self.assertTrue(any("capped at" in str(w.message) for w in caught), caught)
        self.assertTrue(all(issubclass(w.category, RuntimeWarning) for w in caught))
        self.assertEqual(len(list(self.chunker.tag_many([SENT] * 3, threads=0))), 3)
        self.assertPlain(ValueError, lambda: self.chunker.tag_many([SENT], threads=-1),
                         "threads")
        self.assertPlain(ValueError, lambda: self.chunker.tag_many([SENT], batch_size=0),
                         "batch_size")

    def test_fifo_model_without_a_writer_is_refused_at_once(self):
        # Issue 27 (Low): Model.load used to wait forever for a writer.
        with tempfile.TemporaryDirectory() as d:
            fifo = os.path.join(d, "m.fifo")
            os.mkfifo(fifo)
            for fn in (lambda: chaintag.Model.load(fifo), lambda: chaintag.load(fifo)):
                self.assertPlain(ValueError, fn, "m.fifo", "a FIFO with no writer")

    def test_non_finite_and_huge_weights(self):
        for w in (float("nan"), float("inf")):
            self.assertPlain(ValueError, lambda: self.attr_model.tag([{"n": w}]), "finite")


if __name__ == "__main__":
    unittest.main()
