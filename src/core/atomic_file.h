// Result files are written atomically: the content goes to "<path>.tmp.<pid>" in the same
// directory, is flushed and fsync'ed, then renamed over <path>. A reader sees the old file
// or the new one, never half of one.
#pragma once

#include <string>

namespace trainbench::core {

// Throws core::Error naming the path when any step fails (the temporary is removed).
void WriteFileAtomically(const std::string& path, const std::string& content);

// Creates the directory and its parents; throws core::Error naming the path on failure.
void MakeDirs(const std::string& path);

// Reads a whole file; throws core::Error naming the path when it cannot be read.
std::string ReadFile(const std::string& path);

}  // namespace trainbench::core
