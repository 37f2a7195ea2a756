"""Model.save through the library's writer (issue 27 item 1): a FIFO is written in place for its
reader and a symbolic link is written through to its target, never replaced."""
import os
import stat
import tempfile
import threading
import unittest

import chaintag

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHUNK_MODEL = os.path.join(ROOT, "models", "en-chunk.model")


class SaveTest(unittest.TestCase):
    def test_fifo_and_symlink_are_kept(self):
        model = chaintag.Model.load(CHUNK_MODEL)
        with tempfile.TemporaryDirectory() as d:
            plain = os.path.join(d, "plain.model")
            model.save(plain)
            fifo = os.path.join(d, "fifo")
            os.mkfifo(fifo)
            got = []
            reader = threading.Thread(target=lambda: got.append(open(fifo, "rb").read()))
            reader.start()
            model.save(fifo)
            reader.join()
            self.assertTrue(stat.S_ISFIFO(os.lstat(fifo).st_mode))
            with open(plain, "rb") as f:
                self.assertEqual(got[0], f.read())
            os.mkdir(os.path.join(d, "real"))
            link = os.path.join(d, "link")
            os.symlink(os.path.join("real", "target.model"), link)
            model.save(link)
            self.assertTrue(os.path.islink(link))
            self.assertEqual(chaintag.Model.load(os.path.join(d, "real", "target.model")).labels,
                             model.labels)
            self.assertEqual([n for n in os.listdir(d) + os.listdir(os.path.join(d, "real"))
                              if ".tmp-" in n], [])


if __name__ == "__main__":
    unittest.main()
