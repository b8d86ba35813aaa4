// The ImageNet folder layout (torchvision's ImageFolder): root/<class>/**/<file>.{jpg,jpeg}
// (extension case-insensitive, e.g. n01440764/n01440764_10026.JPEG). Classes are the
// subdirectories of root in sorted (byte-wise) order; the class index is the position in that
// order. Samples are listed class by class, each class in os.walk order (directory by
// directory, files sorted), exactly as torchvision lists them.
//
// Errors (root missing or not a folder, no class folders, a class folder without JPEGs) are
// core::Error naming the folder. Immutable after construction; safe to share across threads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace trainbench::data {

struct ImageFolderSample {
  std::string path;  // root/<class>/.../<file>
  int64_t label = 0;
};

class ImageFolder {
 public:
  // Scans the tree (follows symlinks). Throws core::Error as described above.
  explicit ImageFolder(const std::string& root);

  const std::string& root() const { return root_; }
  const std::vector<std::string>& classes() const { return classes_; }
  const std::vector<ImageFolderSample>& samples() const { return samples_; }
  int64_t size() const { return static_cast<int64_t>(samples_.size()); }

 private:
  std::string root_;
  std::vector<std::string> classes_;
  std::vector<ImageFolderSample> samples_;
};

// True for names ending in .jpg or .jpeg, any case.
bool HasJpegExtension(const std::string& filename);

}  // namespace trainbench::data
