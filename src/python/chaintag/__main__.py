"""python3 -m chaintag ARGS: runs the chaintag command-line tool (the one installed with this
package, else the build tree's, else `chaintag` on PATH) with ARGS."""

import os
import shutil
import sys


def _binary():
    here = os.path.dirname(os.path.abspath(__file__))
    for candidate in (os.path.join(here, "bin", "chaintag"),  # pip install .
                      os.path.join(os.path.dirname(os.path.dirname(here)), "chaintag")):  # build/
        if os.access(candidate, os.X_OK):
            return candidate
    return shutil.which("chaintag")


def main():
    binary = _binary()
    if binary is None:
        sys.stderr.write("chaintag: the chaintag command is not installed with this package, "
                         "not in the build tree and not on PATH\n")
        return 2
    os.execv(binary, ["chaintag"] + sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
