#include "data/image_folder.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "data/jpeg_codec.h"
#include "data/test_util.h"

namespace trainbench::data {
namespace {

namespace fs = std::filesystem;
using testing::ErrorOf;
using testing::SyntheticImage;
using testing::TempDir;

void Touch(const std::string& path) { std::ofstream(path) << "x"; }

TEST(ImageFolderTest, SortedClassesAndTorchvisionSampleOrder) {
  TempDir dir;
  const fs::path root = dir.path();
  for (const char* d : {"n02", "n01", "n01/sub", "n03"}) fs::create_directories(root / d);
  const Image img = SyntheticImage(8, 8, 3, 1);
  WriteJpegFile((root / "n02/b.JPEG").string(), img);
  WriteJpegFile((root / "n02/a.jpg").string(), img);
  WriteJpegFile((root / "n01/x.jpeg").string(), img);
  WriteJpegFile((root / "n01/sub/y.JPG").string(), img);
  WriteJpegFile((root / "n01/z.Jpeg").string(), img);
  WriteJpegFile((root / "n03/c.JPEG").string(), img);
  Touch((root / "n01/readme.txt").string());
  Touch((root / "n03/c.png").string());
  Touch((root / "top_level.jpg").string());  // not in a class folder: ignored

  const ImageFolder folder(root.string());
  EXPECT_EQ(folder.classes(), (std::vector<std::string>{"n01", "n02", "n03"}));
  std::vector<std::string> rel;
  std::vector<int64_t> labels;
  for (const ImageFolderSample& s : folder.samples()) {
    rel.push_back(fs::relative(s.path, root).string());
    labels.push_back(s.label);
  }
  // os.walk order: a folder's own files (sorted) before its subfolders.
  EXPECT_EQ(rel, (std::vector<std::string>{"n01/x.jpeg", "n01/z.Jpeg", "n01/sub/y.JPG", "n02/a.jpg",
                                           "n02/b.JPEG", "n03/c.JPEG"}));
  EXPECT_EQ(labels, (std::vector<int64_t>{0, 0, 0, 1, 1, 2}));
  EXPECT_EQ(folder.size(), 6);
}

TEST(ImageFolderTest, ErrorsNameTheFolder) {
  TempDir dir;
  std::string msg = ErrorOf([&] { ImageFolder(dir.file("missing")); });
  EXPECT_NE(msg.find(dir.file("missing") + ": image folder does not exist"), std::string::npos)
      << msg;

  msg = ErrorOf([&] { ImageFolder(dir.path()); });
  EXPECT_NE(msg.find(dir.path() + ": image folder has no class subfolders"), std::string::npos)
      << msg;

  fs::create_directories(dir.file("n01"));
  fs::create_directories(dir.file("n02"));
  WriteJpegFile(dir.file("n01/a.JPEG"), SyntheticImage(8, 8, 3, 1));
  Touch(dir.file("n02/notes.txt"));
  msg = ErrorOf([&] { ImageFolder(dir.path()); });
  EXPECT_NE(msg.find(dir.file("n02") + ": class folder has no .jpg/.jpeg files"), std::string::npos)
      << msg;
}

TEST(ImageFolderTest, JpegExtension) {
  EXPECT_TRUE(HasJpegExtension("a.JPEG"));
  EXPECT_TRUE(HasJpegExtension("a.jpg"));
  EXPECT_TRUE(HasJpegExtension("a.JpG"));
  EXPECT_FALSE(HasJpegExtension("a.png"));
  EXPECT_FALSE(HasJpegExtension("jpeg"));
  EXPECT_FALSE(HasJpegExtension("a.jpeg.txt"));
}

}  // namespace
}  // namespace trainbench::data
