"""Builds chaintag's C++ core for `pip install .` (pyproject.toml): CMake configures this tree
for the running interpreter and builds the module chaintag._core and the chaintag command in
build-pip/ (kept, so a second install only rebuilds what changed); the module, the command
(chaintag/bin) and the shipped models (chaintag/share/chaintag/models) go into the package.
A missing prerequisite stops the build at once with its name."""

import glob
import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


def fail(message):
    sys.stderr.write("chaintag: cannot build: %s\n" % message)
    raise SystemExit(1)


def check_prerequisites():
    if shutil.which("cmake") is None:
        fail("cmake is not installed (Debian: apt-get install cmake; or bash tools/setup.sh "
             "--no-build)")
    include = sysconfig.get_paths().get("include", "")
    if not os.path.exists(os.path.join(include, "Python.h")):
        fail("Python.h of %s is missing from %s (Debian: apt-get install python3-dev)"
             % (sys.executable, include))
    if not (os.path.exists("/usr/lib/cmake/pybind11") or os.path.exists("/usr/share/cmake/pybind11")
            or _pybind11_cmake_dir()):
        fail("pybind11 is not installed (Debian: apt-get install python3-pybind11; or "
             "pip install pybind11)")


def _pybind11_cmake_dir():
    try:
        import pybind11
        return pybind11.get_cmake_dir()
    except Exception:  # not installed for this interpreter
        return None


def check_wheel():
    """pip builds a wheel: setuptools needs the `wheel` package for it (setuptools >= 70.1 has
    bdist_wheel itself). Without it pip's own message is "invalid command 'bdist_wheel'"."""
    try:
        import wheel  # noqa: F401
        return
    except ImportError:
        pass
    try:
        import setuptools.command.bdist_wheel  # noqa: F401
        return
    except ImportError:
        pass
    fail("the Python package 'wheel' is not installed for %s, and pip needs it to build "
         "(with --no-build-isolation nothing is downloaded): install it (Debian: "
         "python3-wheel; pip install wheel), or use Debian's /usr/bin/python3 for the venv"
         % sys.executable)


check_wheel()


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        check_prerequisites()
        # One build directory per interpreter installation (a venv shares its base's).
        tag = hashlib.sha1(os.path.realpath(sys.base_prefix).encode()).hexdigest()[:8]
        build_dir = os.path.join(ROOT, "build-pip", "%s%d%d-%s" % (
            sys.implementation.name, sys.version_info[0], sys.version_info[1], tag))
        args = ["-DCMAKE_BUILD_TYPE=Release", "-DCHAINTAG_PYTHON=ON",
                "-DPython_EXECUTABLE=" + sys.executable, "-DCHAINTAG_BUILD_TESTS=OFF",
                "-DCHAINTAG_BUILD_BENCHMARKS=OFF"]
        if shutil.which("ninja"):
            args += ["-G", "Ninja"]
        if shutil.which("ccache"):
            args += ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache", "-DCMAKE_C_COMPILER_LAUNCHER=ccache"]
        cmake_dir = _pybind11_cmake_dir()
        if cmake_dir:
            args.append("-Dpybind11_DIR=" + cmake_dir)
        try:
            subprocess.run(["cmake", "-S", ROOT, "-B", build_dir] + args, check=True)
            subprocess.run(["cmake", "--build", build_dir, "-j", str(os.cpu_count() or 1),
                            "--target", "chaintag_python", "chaintag"], check=True)
        except subprocess.CalledProcessError as e:
            fail("%s failed (exit %d); its messages are above (the libraries chaintag needs: "
                 "bash tools/setup.sh --no-build)" % (" ".join(e.cmd[:2]), e.returncode))
        built = glob.glob(os.path.join(build_dir, "python", "chaintag", "_core*"))
        if not built:
            fail("the build made no chaintag/_core module in " + build_dir)
        target = self.get_ext_fullpath(ext.name)
        package = os.path.dirname(target)
        os.makedirs(package, exist_ok=True)
        shutil.copy2(built[0], target)
        os.makedirs(os.path.join(package, "bin"), exist_ok=True)
        shutil.copy2(os.path.join(build_dir, "chaintag"), os.path.join(package, "bin", "chaintag"))
        models = os.path.join(package, "share", "chaintag", "models")
        os.makedirs(models, exist_ok=True)
        for f in glob.glob(os.path.join(ROOT, "models", "*.model")) + [
                os.path.join(ROOT, "models", "MODELS.md")]:
            shutil.copy2(f, models)


setup(ext_modules=[Extension("chaintag._core", sources=[])],
      cmdclass={"build_ext": CMakeBuild},
      options={"build": {"build_base": os.path.join("build-pip", "setuptools")}})
