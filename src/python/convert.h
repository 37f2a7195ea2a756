// Python values as C++ values with Python-native errors: a value that does not convert raises
// TypeError, OverflowError or ValueError naming the argument in plain words (never pybind11's
// "Unable to cast Python instance"). Shared by the translation units of chaintag._core.
#ifndef CHAINTAG_PYTHON_CONVERT_H_
#define CHAINTAG_PYTHON_CONVERT_H_

#include <pybind11/pybind11.h>

#include <charconv>
#include <climits>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

namespace chaintag::python {

namespace py = pybind11;

// A library message with the command line's option names ("--kbest") as Python's keyword
// arguments ("kbest"); keywords.cc.
std::string KeywordText(std::string_view message);

// A library error as a Python exception: FileNotFoundError for missing files, KeyboardInterrupt
// for a cancelled call (Ctrl-C), ValueError otherwise; option names as keyword arguments.
[[noreturn]] inline void Raise(const absl::Status& status) {
  const std::string message =
      KeywordText(std::string_view(status.message().data(), status.message().size()));
  if (status.code() == absl::StatusCode::kNotFound) {
    PyErr_SetString(PyExc_FileNotFoundError, message.c_str());
    throw py::error_already_set();
  }
  if (status.code() == absl::StatusCode::kCancelled) {
    // A pending signal handler's exception (KeyboardInterrupt) wins over the status text.
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    PyErr_SetString(PyExc_KeyboardInterrupt, message.c_str());
    throw py::error_already_set();
  }
  throw py::value_error(message);
}
template <typename T>
T Check(absl::StatusOr<T> value) {
  if (!value.ok()) Raise(value.status());
  return *std::move(value);
}
inline void Check(const absl::Status& status) {
  if (!status.ok()) Raise(status);
}

// Shortest text that reads back as the same double.
inline std::string NumberText(double x) {
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), x);
  return std::string(buffer, end);
}

// The name of a value's type ("str", "dict", ...).
inline std::string TypeName(const py::handle& v) {
  return py::str(py::type::handle_of(v).attr("__name__")).cast<std::string>();
}

// A str as UTF-8. A lone surrogate (which UTF-8 cannot encode) raises ValueError naming `what`
// and the position.
inline std::string Utf8(const py::handle& s, const std::string& what) {
  if (!py::isinstance<py::str>(s)) {
    throw py::type_error(absl::StrCat(what, ": expected a str, found ", TypeName(s)));
  }
  Py_ssize_t size = 0;
  const char* data = PyUnicode_AsUTF8AndSize(s.ptr(), &size);
  if (data == nullptr) {
    PyErr_Clear();
    const Py_ssize_t n = PyUnicode_GetLength(s.ptr());
    Py_ssize_t at = 0;
    Py_UCS4 c = 0;
    for (; at < n; ++at) {
      c = PyUnicode_ReadChar(s.ptr(), at);
      if (c >= 0xD800 && c <= 0xDFFF) break;
    }
    char code[16];
    std::snprintf(code, sizeof(code), "U+%04X", static_cast<unsigned>(c));
    throw py::value_error(absl::StrCat(what, ": expected text that UTF-8 can encode, found a lone ",
                                       "surrogate ", code, " at character ", at));
  }
  return std::string(data, static_cast<size_t>(size));
}

// str(v) as UTF-8 (names and options given as any object with a str form).
inline std::string StrOf(const py::handle& v, const std::string& what) {
  if (py::isinstance<py::str>(v)) return Utf8(v, what);
  return Utf8(py::str(v), what);
}

// An int argument within [lo, hi]: TypeError for a non-int (bool included), OverflowError beyond.
inline long long IntOf(const py::handle& v, const std::string& what, long long lo = LLONG_MIN,
                       long long hi = LLONG_MAX) {
  if (py::isinstance<py::bool_>(v) || !PyIndex_Check(v.ptr())) {
    throw py::type_error(absl::StrCat(what, ": expected an int, found ", TypeName(v)));
  }
  py::object index = py::reinterpret_steal<py::object>(PyNumber_Index(v.ptr()));
  if (!index) throw py::error_already_set();
  int overflow = 0;
  const long long x = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
  if (x == -1 && PyErr_Occurred()) throw py::error_already_set();
  if (overflow != 0 || x < lo || x > hi) {
    const std::string shown = py::str(index).cast<std::string>();
    const std::string text = shown.size() > 40 ? shown.substr(0, 20) + "..." : shown;
    const std::string range =
        lo == LLONG_MIN ? absl::StrCat("at most ", hi) : absl::StrCat(lo, " to ", hi);
    if (overflow != 0 || x > INT32_MAX || x < INT32_MIN) {
      PyErr_SetString(
          PyExc_OverflowError,
          absl::StrCat(what, ": ", text, " is out of range (expected ", range, ")").c_str());
      throw py::error_already_set();
    }
    throw py::value_error(absl::StrCat(what, ": expected ", range, ", found ", text));
  }
  return x;
}

// A float argument: any real number (int, float, numpy scalar); TypeError otherwise.
inline double FloatOf(const py::handle& v, const std::string& what) {
  if (py::isinstance<py::str>(v) || py::isinstance<py::bytes>(v)) {
    throw py::type_error(absl::StrCat(what, ": expected a number, found ", TypeName(v)));
  }
  const double x = PyFloat_AsDouble(v.ptr());
  if (x == -1.0 && PyErr_Occurred()) {
    const bool overflow = PyErr_ExceptionMatches(PyExc_OverflowError);
    PyErr_Clear();
    if (overflow) {
      PyErr_SetString(PyExc_OverflowError,
                      absl::StrCat(what, ": the number is too large for a float").c_str());
      throw py::error_already_set();
    }
    throw py::type_error(absl::StrCat(what, ": expected a number, found ", TypeName(v)));
  }
  return x;
}

// A bool argument: True/False (numpy's bool too), or the ints 0 and 1; TypeError otherwise.
inline bool BoolOf(const py::handle& v, const std::string& what) {
  if (py::isinstance<py::bool_>(v)) return v.ptr() == Py_True;
  const std::string type = TypeName(v);
  if (type == "bool_" || type == "bool") return PyObject_IsTrue(v.ptr()) == 1;
  if (py::isinstance<py::int_>(v)) {
    int overflow = 0;
    const long long x = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
    if (overflow == 0 && (x == 0 || x == 1)) return x == 1;
  }
  throw py::type_error(absl::StrCat(what, ": expected True or False, found ", type));
}

// A path argument (str, bytes or os.PathLike) as the bytes the file system sees; a NUL raises
// ValueError with the whole path (C file APIs would cut the name at it).
inline std::string PathOf(const py::handle& obj, const std::string& what = "path") {
  py::object encoded = py::module_::import("os").attr("fsencode")(obj);
  std::string path = encoded.cast<std::string>();
  if (path.find('\0') != std::string::npos) {
    throw py::value_error(
        absl::StrCat(what, ": embedded null byte in ", py::repr(obj).cast<std::string>()));
  }
  return path;
}
inline bool IsPathLike(const py::handle& obj) {
  return py::isinstance<py::str>(obj) || py::hasattr(obj, "__fspath__");
}

}  // namespace chaintag::python

#endif  // CHAINTAG_PYTHON_CONVERT_H_
