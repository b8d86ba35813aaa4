// Line-aligned parallel corpora: a source file and a target file (train.en / train.es) whose
// line i holds one sentence and its translation. Reading checks what a translation benchmark
// relies on and reports the first violation as core::FileError naming the file and the
// 1-based line: a missing or unreadable file, different line counts (both files and both
// counts named), an empty or whitespace-only line, invalid UTF-8 (byte offset in the line).
// Lines end with "\n"; a "\r" before it (CRLF files) is dropped; the last line may lack its
// "\n". Writing is atomic (core::WriteFileAtomically) and refuses lines that would not read
// back as the same corpus. Functions are thread-compatible (no shared state).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace trainbench::text {

struct ParallelCorpus {
  std::vector<std::string> source;
  std::vector<std::string> target;  // target[i] translates source[i]
  size_t size() const { return source.size(); }
};

// Throws core::FileError(file, line_number, ...) when `line` is not a valid corpus line:
// empty, only whitespace, contains "\n", or invalid UTF-8.
void CheckCorpusLine(std::string_view line, const std::string& file, long line_number);

// Streams both files in step, calling fn(line_number, source_line, target_line) for every
// pair after checking both lines. Returns the number of pairs. A corpus with no lines is an
// error. Memory: one line of each file at a time (fit for WMT-size files).
long long ForEachParallelLine(
    const std::string& source_path, const std::string& target_path,
    const std::function<void(long long, std::string_view, std::string_view)>& fn);

// Reads both files whole (checked as above).
ParallelCorpus ReadParallelCorpus(const std::string& source_path, const std::string& target_path);

// The lines joined with "\n", each line ended by "\n" (the bytes WriteParallelCorpus writes).
std::string JoinLines(const std::vector<std::string>& lines);

// Writes both files atomically. Throws core::Error when the sides differ in length, or
// core::FileError naming the file and line of a line that CheckCorpusLine rejects.
void WriteParallelCorpus(const ParallelCorpus& corpus, const std::string& source_path,
                         const std::string& target_path);

}  // namespace trainbench::text
