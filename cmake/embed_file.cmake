# Writes INPUT as a C++ source defining chaintag::serve::kDemoPage (a std::string_view), so the
# binary serves the page without reading any file. Run with cmake -DINPUT=... -DOUTPUT=... -P.
file(READ ${INPUT} hex HEX)
string(LENGTH "${hex}" hex_length)
math(EXPR size "${hex_length} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," bytes "${hex}")
file(WRITE ${OUTPUT} "// Generated from ${INPUT} by cmake/embed_file.cmake; do not edit.\n"
  "#include <string_view>\n\nnamespace chaintag::serve {\n\n"
  "static const char kDemoPageBytes[] = {${bytes} 0};\n"
  "extern const std::string_view kDemoPage(kDemoPageBytes, ${size});\n\n"
  "}  // namespace chaintag::serve\n")
