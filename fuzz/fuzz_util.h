// Helpers shared by the libFuzzer targets (src/*/*_fuzz.cc; docs/fuzzing.md).
//
// A target feeds its input to a reader and treats core::Error (the designed answer to bad input)
// as fine. Anything else that escapes (another exception, a crash, a sanitizer report, a hang)
// is a finding: ExpectOnlyCoreErrors aborts with the exception's message, so libFuzzer saves
// the input.
#pragma once

#include <stdlib.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"

namespace trainbench::fuzz {

// The input split at every `sep` byte (a byte that the format itself rarely holds, so one input
// can carry several files: ground truth and results, hypotheses and references).
inline std::vector<std::string> Split(const uint8_t* data, size_t size, char sep,
                                      size_t max_parts) {
  std::vector<std::string> parts(1);
  for (size_t i = 0; i < size; ++i) {
    if (static_cast<char>(data[i]) == sep && parts.size() < max_parts) {
      parts.emplace_back();
    } else {
      parts.back().push_back(static_cast<char>(data[i]));
    }
  }
  return parts;
}

// A private folder for the readers that only take a path; removed at exit. The same file names
// are rewritten for every input.
class TempDir {
 public:
  TempDir() {
    const char* base = getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/trainbench_fuzz.XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (!mkdtemp(buf.data())) {
      std::perror("mkdtemp");
      std::abort();
    }
    dir_ = buf.data();
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  // Writes `bytes` to <dir>/<name> and returns that path.
  std::string Write(const std::string& name, std::string_view bytes) const {
    std::string path = dir_ + "/" + name;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) {
      std::perror(path.c_str());
      std::abort();
    }
    return path;
  }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
};

// One per process: libFuzzer runs inputs one after another in one thread.
inline const TempDir& Temp() {
  static TempDir* dir = new TempDir();
  static const bool cleanup = [] {
    std::atexit([] { delete dir; });
    return true;
  }();
  (void)cleanup;
  return *dir;
}

// Runs `fn`; a core::Error is fine, any other exception aborts (a finding).
template <typename Fn>
void ExpectOnlyCoreErrors(Fn&& fn) {
  try {
    fn();
  } catch (const core::Error&) {
  } catch (const std::exception& e) {
    std::fprintf(stderr, "finding: exception other than core::Error: %s\n", e.what());
    std::abort();
  } catch (...) {
    std::fprintf(stderr, "finding: a non-std exception escaped\n");
    std::abort();
  }
}

}  // namespace trainbench::fuzz
