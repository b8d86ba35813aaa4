#include "data/image_folder.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <utility>

#include "core/error.h"

namespace trainbench::data {
namespace fs = std::filesystem;

namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool IsDir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);  // follows symlinks
}

// Appends the JPEGs under dir in os.walk order (top-down; this dir's files sorted, then each
// subdirectory in sorted order).
void Walk(const fs::path& dir, int64_t label, std::vector<ImageFolderSample>* out) {
  std::vector<std::string> files;
  std::vector<std::string> subdirs;
  std::error_code ec;
  fs::directory_iterator it(dir, fs::directory_options::follow_directory_symlink, ec);
  if (ec) throw core::FileError(dir.string(), 0, "cannot list folder: " + ec.message());
  for (const fs::directory_entry& entry : it) {
    const std::string name = entry.path().filename().string();
    if (IsDir(entry.path())) {
      subdirs.push_back(name);
    } else if (HasJpegExtension(name)) {
      files.push_back(name);
    }
  }
  std::sort(files.begin(), files.end());
  std::sort(subdirs.begin(), subdirs.end());
  for (const std::string& f : files) out->push_back({(dir / f).string(), label});
  for (const std::string& d : subdirs) Walk(dir / d, label, out);
}

}  // namespace

bool HasJpegExtension(const std::string& filename) {
  const std::string lower = Lower(filename);
  auto ends_with = [&lower](const std::string& suffix) {
    return lower.size() >= suffix.size() &&
           lower.compare(lower.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return ends_with(".jpg") || ends_with(".jpeg");
}

ImageFolder::ImageFolder(const std::string& root) : root_(root) {
  std::error_code ec;
  if (!fs::exists(root, ec)) throw core::FileError(root, 0, "image folder does not exist");
  if (!IsDir(root)) throw core::FileError(root, 0, "image folder is not a directory");
  fs::directory_iterator it(root, fs::directory_options::follow_directory_symlink, ec);
  if (ec) throw core::FileError(root, 0, "cannot list image folder: " + ec.message());
  for (const fs::directory_entry& entry : it) {
    if (IsDir(entry.path())) classes_.push_back(entry.path().filename().string());
  }
  if (classes_.empty()) {
    throw core::FileError(root, 0,
                          "image folder has no class subfolders (expected root/<class>/*.JPEG)");
  }
  std::sort(classes_.begin(), classes_.end());
  for (size_t c = 0; c < classes_.size(); ++c) {
    const size_t before = samples_.size();
    const fs::path class_dir = fs::path(root) / classes_[c];
    Walk(class_dir, static_cast<int64_t>(c), &samples_);
    if (samples_.size() == before) {
      throw core::FileError(class_dir.string(), 0, "class folder has no .jpg/.jpeg files");
    }
  }
}

}  // namespace trainbench::data
