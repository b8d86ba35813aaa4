// Test helpers for the report tests: where the fixture result folders are
// (testdata/make_fixtures.py writes them), and counting in generated text. Header-only.
#pragma once

#include <string>

#include "summary/test_logs.h"

namespace trainbench::report::test_util {

using summary::test_logs::ScopedDir;
using summary::test_logs::WriteText;

inline std::string Fixture(const std::string& name) {
  return std::string(TRAINBENCH_TEST_SRCDIR) + "/src/report/testdata/" + name;
}

inline size_t Count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

// The text between the first `open` after `from` and the next `close`.
inline std::string Between(const std::string& s, const std::string& open, const std::string& close,
                           size_t from = 0) {
  const size_t a = s.find(open, from);
  if (a == std::string::npos) return "";
  const size_t b = s.find(close, a + open.size());
  return s.substr(a + open.size(),
                  b == std::string::npos ? std::string::npos : b - a - open.size());
}

}  // namespace trainbench::report::test_util
