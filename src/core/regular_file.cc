#include "core/regular_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/error.h"

namespace trainbench::core {
namespace {

const char* KindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "is a directory, not a file";
  if (S_ISFIFO(mode)) return "is a FIFO (named pipe), not a regular file";
  if (S_ISCHR(mode)) return "is a character device, not a regular file";
  if (S_ISBLK(mode)) return "is a block device, not a regular file";
  if (S_ISSOCK(mode)) return "is a socket, not a regular file";
  return "is not a regular file";
}

}  // namespace

UniqueFile OpenRegularFile(const std::string& path, std::string* open_error, bool allow_pipe) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    *open_error = std::strerror(errno);
    return nullptr;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    *open_error = std::strerror(errno);
    ::close(fd);
    return nullptr;
  }
  if (!S_ISREG(st.st_mode) && !(allow_pipe && S_ISFIFO(st.st_mode))) {
    ::close(fd);
    throw FileError(path, 0, KindOf(st.st_mode));
  }
  // Regular files ignore O_NONBLOCK; a pipe's reads must block for its writer. Clear it so that
  // stdio sees an ordinary descriptor.
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  std::FILE* f = ::fdopen(fd, "rb");
  if (f == nullptr) {
    *open_error = std::strerror(errno);
    ::close(fd);
    return nullptr;
  }
  return UniqueFile(f);
}

std::string ReadRegularFile(const std::string& path, uint64_t max_bytes, std::string* open_error) {
  std::string why;
  UniqueFile f = OpenRegularFile(path, &why);
  if (!f) {
    if (open_error == nullptr) throw FileError(path, 0, "cannot open: " + why);
    *open_error = why;
    return "";
  }
  struct stat st {};
  const auto too_big = [&](uint64_t size, const char* at_least) {
    return FileError(path, 0,
                     "is " + std::string(at_least) + std::to_string(size) +
                         " bytes, more than the " + std::to_string(max_bytes) +
                         " such a file may have");
  };
  if (::fstat(::fileno(f.get()), &st) == 0 && static_cast<uint64_t>(st.st_size) > max_bytes) {
    throw too_big(static_cast<uint64_t>(st.st_size), "");
  }
  std::string text;
  char buf[1 << 16];
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof(buf), f.get())) > 0) {
    if (text.size() + n > max_bytes) throw too_big(text.size() + n, "at least ");
    text.append(buf, n);
  }
  if (std::ferror(f.get())) throw FileError(path, 0, "read error");
  return text;
}

}  // namespace trainbench::core
