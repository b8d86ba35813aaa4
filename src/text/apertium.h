// Machine translation with Apertium (https://apertium.org), run as a child process:
// `apertium -u <pair>` reads sentences one per line on stdin and writes their translations
// one per line (the txt format keeps newlines; `-f line` would drop final periods). RunCommand is
// the generic part (posix_spawnp with pipes for stdin, stdout and stderr, its own process group, a
// wall-clock timeout that kills the group). TranslateLines feeds the lines in chunks and checks
// that each chunk comes back with exactly as many lines; when one does not (Apertium merged or
// split lines), the chunk is halved and retried down to single lines, so every output line is known
// to belong to its input line. Threading: RunCommand blocks SIGPIPE in the calling thread while it
// writes; call it from one thread at a time per child.
#pragma once

#include <string>
#include <vector>

namespace trainbench::text {

struct CommandResult {
  int exit_code = 0;  // the child's exit status; 128+N when killed by signal N
  std::string out;    // everything it wrote to stdout
  std::string err;    // everything it wrote to stderr
};

// Runs argv[0] (searched in PATH) with argv, writing `input` to its stdin. Throws core::Error
// when the program cannot be started (naming it, plus `install_hint` when not empty, e.g.
// "install the Debian package apertium") or runs longer than timeout_s seconds (the process
// group is killed). A non-zero exit is returned, not thrown.
CommandResult RunCommand(const std::vector<std::string>& argv, const std::string& input,
                         double timeout_s, const std::string& install_hint = "");

struct ApertiumOptions {
  std::string command = "apertium";  // the program (PATH lookup) or a path to it
  std::string pair = "eng-spa";      // the translation direction (mode)
  size_t chunk_lines = 2000;         // lines per call; a chunk that comes back misaligned is halved
  double timeout_s = 600;            // per call
};

struct TranslationStats {
  long long calls = 0;        // apertium processes run
  long long misaligned = 0;   // calls whose output had another number of lines than the input
  long long split_lines = 0;  // single input lines that came back as several lines (joined)
  long long empty_lines = 0;  // input lines that came back empty
};

// Translates each line (no "\n" inside, TB_CHECK). Output line i is the translation of
// lines[i] with whitespace collapsed and trimmed; it may be empty (Apertium produced nothing).
// Throws core::Error on a missing program (naming it and the packages to install), a
// non-zero exit (with its stderr) or a timeout.
std::vector<std::string> TranslateLines(const std::vector<std::string>& lines,
                                        const ApertiumOptions& options,
                                        TranslationStats* stats = nullptr);

}  // namespace trainbench::text
