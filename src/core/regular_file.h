// Opening input files that must be regular files. The readers of user-named inputs (score
// bleu's text files, score coco's JSON, benchmark definitions and tunings) read a file to its
// end, so a FIFO would block the open until a writer comes, /dev/zero or /dev/urandom would
// never end, and a directory opens but fails on the first read with a library exception. These
// helpers refuse all of them up front with a core::Error naming the path.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

namespace trainbench::core {

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using UniqueFile = std::unique_ptr<std::FILE, FileCloser>;

// Opens `path` for reading in binary mode. A path that cannot be opened gives nullptr and the
// reason in *open_error (strerror text, "No such file or directory"), so that callers keep
// their own wording ("cannot open tuning file"); one that is not a regular file throws
// FileError(path, "is a directory, not a file" / "is a FIFO (named pipe), not a regular file" /
// "is a character device, not a regular file" ...). Opening never blocks: the open is
// non-blocking, and the check is on the opened descriptor (no race with a rename).
// With allow_pipe, a pipe or FIFO is read too (blocking, as `cat` would): for score bleu's
// `<(decoder ...)` and /dev/stdin; the caller bounds what it reads.
UniqueFile OpenRegularFile(const std::string& path, std::string* open_error,
                           bool allow_pipe = false);

// The whole of a regular file of at most max_bytes bytes (checked before reading, and again
// while reading should it grow); throws FileError naming the path and the limit otherwise,
// "read error" on an I/O error, and "cannot open: <reason>" when it cannot be opened, unless
// open_error is given: then that sets *open_error and returns "".
std::string ReadRegularFile(const std::string& path, uint64_t max_bytes,
                            std::string* open_error = nullptr);

}  // namespace trainbench::core
